#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PoseCore

/// A buffered writer to a file descriptor (file, pipe, stdout) or to memory.
///
/// A closed pipe (the reader exited, e.g. `posekit … | head -c 100`) surfaces as
/// `FrameIOError.brokenPipe` rather than killing the process: creating a descriptor-backed sink
/// sets `SIGPIPE` to be ignored for the whole process, so `write(2)` returns `EPIPE` instead.
/// Command-line tools should catch `.brokenPipe` and exit quietly. Any other failed write throws
/// `FrameIOError.writeFailed` naming the output.
///
/// Writers of records (one JSON line per frame) call `endRecord()` after each record; the
/// `FlushPolicy` then decides whether the bytes go out now.
///
/// Not thread-safe. Call `flush()` when done (deinit flushes too, ignoring errors).
public final class ByteSink {
    /// When finished records leave the buffer.
    public enum FlushPolicy: Sendable, Equatable {
        /// Only when the buffer is full or on `flush()` (bulk data such as frames).
        case whenFull
        /// After every record: a reader sees each line as soon as its frame is finished.
        case everyRecord
        /// Hold records for at most about this many seconds (files: fewer, larger writes).
        case within(seconds: Double)

        /// The policy for a stream of records to `fileDescriptor`: pipes, terminals, sockets and
        /// devices get every record at once (someone may be watching), regular files at most
        /// 100 ms late, and everything at once when `realtime`.
        public static func forRecords(to fileDescriptor: Int32, realtime: Bool = false) -> FlushPolicy {
            if realtime { return .everyRecord }
            var info = stat()
            guard fstat(fileDescriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .everyRecord }
            return .within(seconds: 0.1)
        }
    }

    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// Everything written, for memory sinks (`ByteSink()`); empty otherwise.
    public private(set) var bytes: [UInt8] = []
    private var failed: FrameIOError?
    /// How records are flushed (see `endRecord()`).
    public var flushPolicy: FlushPolicy = .whenFull
    /// The clock `.within(seconds:)` reads, in seconds: ``/PoseCore/MonotonicClock`` unless a test
    /// drives time itself (a record "held 60 ms" is then a clock moved by 60 ms, not a sleep).
    public var clock: @Sendable () -> Double = MonotonicClock.now
    /// The output's name in error messages (a path, or "standard output").
    public var name: String
    /// Bytes written so far (buffered or not).
    public private(set) var bytesWritten = 0
    private let isPipeOrSocket: Bool
    private var firstHeldRecordEnd: Double?   // when the oldest record in the buffer was finished
    private var lastRecordEnd: Double?

    /// Writes to an open descriptor; closed on deinit only if `closeOnDeinit`.
    public init(fileDescriptor: Int32, closeOnDeinit: Bool = false, bufferSize: Int = 1 << 20, name: String? = nil) {
        fd = fileDescriptor
        ownsDescriptor = closeOnDeinit
        capacity = bufferSize
        self.name = name ?? (fileDescriptor == 1 ? "standard output" : "descriptor \(fileDescriptor)")
        buffer.reserveCapacity(bufferSize)
        var info = stat()
        let type = fstat(fileDescriptor, &info) == 0 ? info.st_mode & S_IFMT : 0
        isPipeOrSocket = type == S_IFIFO || type == S_IFSOCK
        ByteSink.ignoreSIGPIPE()
    }

    /// Creates or truncates a file for writing in place; `"-"` means standard output.
    /// (Commands write their outputs through `OutputFile`, which never truncates in place.)
    public convenience init(path: String, bufferSize: Int = 1 << 20) throws {
        if path == "-" {
            self.init(fileDescriptor: 1, bufferSize: bufferSize)
            return
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw FrameIOError.system(operation: "open \(path)", errno: errno) }
        self.init(fileDescriptor: fd, closeOnDeinit: true, bufferSize: bufferSize, name: path)
    }

    /// Collects the output in `bytes`.
    public init() {
        fd = -1
        ownsDescriptor = false
        capacity = 0
        name = "memory"
        isPipeOrSocket = false
    }

    deinit {
        guard !isClosed else { return }
        try? flush()
        if ownsDescriptor { _ = Self.closeDescriptor(fd) }
    }

    private var isClosed = false

    /// Closes an owned descriptor now, dropping anything still buffered (call ``flush()`` first
    /// to keep it); later writes fail. For a pipe this is the end of the stream for its reader.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        buffer.removeAll()
        if failed == nil { failed = .writeFailed(name: name, errno: EBADF) }
        if ownsDescriptor { _ = Self.closeDescriptor(fd) }
    }

    private static func closeDescriptor(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.close(fd)
        #else
        return Darwin.close(fd)
        #endif
    }

    private static let ignoreOnce: Void = { _ = signal(SIGPIPE, SIG_IGN) }()
    static func ignoreSIGPIPE() { _ = ignoreOnce }

    /// Appends bytes (buffered).
    public func write(_ data: UnsafeRawBufferPointer) throws {
        if let failed { throw failed }
        bytesWritten += data.count
        if fd < 0 {
            bytes.append(contentsOf: data)
            return
        }
        if buffer.count + data.count > capacity { try flush() }
        if data.count >= capacity {
            try writeAll(data)
        } else {
            buffer.append(contentsOf: data)
        }
    }

    public func write(_ data: [UInt8]) throws {
        try data.withUnsafeBytes { try write($0) }
    }

    public func write(_ text: String) throws {
        try write(Array(text.utf8))
    }

    /// Marks the end of one record (a frame's JSON line) and flushes as `flushPolicy` says.
    ///
    /// `.within(seconds:)` flushes when holding the buffer until the next record would likely
    /// make the oldest held record older than the bound (judged by how long the last record
    /// took), so slow frames go out one by one and fast ones in batches. A pipe whose reader
    /// has gone throws `.brokenPipe` here even when nothing is waiting to be written, so a
    /// producer stops reading its input at once.
    public func endRecord() throws {
        if let failed { throw failed }
        guard fd >= 0 else { return }
        switch flushPolicy {
        case .whenFull:
            break
        case .everyRecord:
            try flush()
        case .within(let bound):
            let now = clock()
            let interval = lastRecordEnd.map { now - $0 } ?? 0
            lastRecordEnd = now
            if buffer.isEmpty { break }
            let oldest = firstHeldRecordEnd ?? now
            firstHeldRecordEnd = oldest
            if now - oldest + interval >= bound { try flush() }
        }
        if buffer.isEmpty && isPipeOrSocket && readerHasGone() {
            failed = .brokenPipe
            throw FrameIOError.brokenPipe
        }
    }

    /// True when the descriptor is a pipe or socket whose reading end is closed.
    private func readerHasGone() -> Bool {
        var entry = pollfd(fd: fd, events: 0, revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLERR | POLLHUP) != 0
    }

    /// Sends buffered bytes to the descriptor.
    public func flush() throws {
        if let failed { throw failed }
        firstHeldRecordEnd = nil
        guard fd >= 0, !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBytes { try writeAll($0) }
    }

    /// Flushes, then forces the data to stable storage (`fsync`); devices and pipes that cannot
    /// sync are fine.
    public func synchronize() throws {
        try flush()
        guard fd >= 0 else { return }
        if fsync(fd) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP {
            let error = FrameIOError.writeFailed(name: name, errno: errno)
            failed = error
            throw error
        }
    }

    private func writeAll(_ data: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < data.count {
            #if canImport(Glibc)
            let n = Glibc.write(fd, data.baseAddress! + done, data.count - done)
            #else
            let n = Darwin.write(fd, data.baseAddress! + done, data.count - done)
            #endif
            if n >= 0 { done += n; continue }
            if errno == EINTR { continue }
            let error: FrameIOError = errno == EPIPE ? .brokenPipe : .writeFailed(name: name, errno: errno)
            failed = error
            throw error
        }
    }
}
