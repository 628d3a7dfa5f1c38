#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered writer to a file descriptor (file, pipe, stdout) or to memory.
///
/// A closed pipe (the reader exited, e.g. `posekit … | head -c 100`) surfaces as
/// `FrameIOError.brokenPipe` rather than killing the process: creating a descriptor-backed sink
/// sets `SIGPIPE` to be ignored for the whole process, so `write(2)` returns `EPIPE` instead.
/// Command-line tools should catch `.brokenPipe` and exit quietly.
///
/// Not thread-safe. Call `flush()` when done (deinit flushes too, ignoring errors).
public final class ByteSink {
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// Everything written, for memory sinks (`ByteSink()`); empty otherwise.
    public private(set) var bytes: [UInt8] = []
    private var failed: FrameIOError?

    /// Writes to an open descriptor; closed on deinit only if `closeOnDeinit`.
    public init(fileDescriptor: Int32, closeOnDeinit: Bool = false, bufferSize: Int = 1 << 20) {
        fd = fileDescriptor
        ownsDescriptor = closeOnDeinit
        capacity = bufferSize
        buffer.reserveCapacity(bufferSize)
        ByteSink.ignoreSIGPIPE()
    }

    /// Creates or truncates a file for writing; `"-"` means standard output.
    public convenience init(path: String, bufferSize: Int = 1 << 20) throws {
        if path == "-" {
            self.init(fileDescriptor: 1, bufferSize: bufferSize)
            return
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw FrameIOError.system(operation: "open \(path)", errno: errno) }
        self.init(fileDescriptor: fd, closeOnDeinit: true, bufferSize: bufferSize)
    }

    /// Collects the output in `bytes`.
    public init() {
        fd = -1
        ownsDescriptor = false
        capacity = 0
    }

    deinit {
        try? flush()
        if ownsDescriptor { _ = close(fd) }
    }

    private static let ignoreOnce: Void = { _ = signal(SIGPIPE, SIG_IGN) }()
    static func ignoreSIGPIPE() { _ = ignoreOnce }

    /// Appends bytes (buffered).
    public func write(_ data: UnsafeRawBufferPointer) throws {
        if let failed { throw failed }
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

    /// Sends buffered bytes to the descriptor.
    public func flush() throws {
        if let failed { throw failed }
        guard fd >= 0, !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBytes { try writeAll($0) }
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
            let error: FrameIOError = errno == EPIPE ? .brokenPipe : .system(operation: "write", errno: errno)
            failed = error
            throw error
        }
    }
}
