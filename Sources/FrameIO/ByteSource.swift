import PoseCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered byte reader over a file descriptor (file, FIFO, pipe, stdin) or an in-memory buffer.
///
/// It calls `read(2)` in large chunks and never holds more than its buffer, so a reader built on it
/// streams arbitrarily long inputs in constant memory. Large payloads (frame pixel data) bypass the
/// buffer and are read straight into the caller's memory.
///
///     let source = try ByteSource(path: "-")          // "-" is standard input
///     let kind = try InputFormat.sniff(source)        // peeks, consumes nothing
///
/// Not thread-safe: use one source from one thread at a time.
public final class ByteSource {
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0  // first unread byte in `buffer`
    private var end = 0    // one past the last valid byte
    private var reachedEOF = false
    /// Pipes, FIFOs, terminals and sockets can block indefinitely: their reads also wait on
    /// `InputCancellation`, so a signal stops a silent live stream at once.
    private let mayBlock: Bool
    /// Called just before a read would wait for more input (a live stream pausing): a frame
    /// loop flushes its buffered output here, so nothing finished waits on the next frame.
    /// Only pipes, FIFOs, terminals and sockets wait; called on the reading thread.
    public var beforeWaiting: (() -> Void)?
    /// Bytes consumed so far (handy in error messages and tests).
    public private(set) var offset = 0

    /// Reads from an open file descriptor. The descriptor is closed on deinit only if `closeOnDeinit`.
    public init(fileDescriptor: Int32, closeOnDeinit: Bool = false, bufferSize: Int = 1 << 20) {
        fd = fileDescriptor
        ownsDescriptor = closeOnDeinit
        buffer = .allocate(byteCount: max(bufferSize, 64), alignment: 64)
        var info = stat()
        mayBlock = fstat(fileDescriptor, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG
    }

    /// Opens a file, FIFO or device for reading; `"-"` means standard input.
    public convenience init(path: String, bufferSize: Int = 1 << 20) throws {
        if path == "-" {
            self.init(fileDescriptor: 0, closeOnDeinit: false, bufferSize: bufferSize)
            return
        }
        // O_NONBLOCK: opening a FIFO never waits for its writer (a wait no signal could end);
        // the first read waits instead, in `poll` with the cancellation pipe. Reads themselves
        // block as usual once the flag is cleared.
        let fd = FileName.withPath(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }   // the name's own bytes
        if fd < 0 { throw FrameIOError.system(operation: "open \(path)", errno: errno) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        self.init(fileDescriptor: fd, closeOnDeinit: true, bufferSize: bufferSize)
    }

    /// Reads from bytes already in memory (tests, fuzzing, embedded images).
    public init(bytes: [UInt8]) {
        fd = -1
        ownsDescriptor = false
        mayBlock = false
        buffer = .allocate(byteCount: max(bytes.count, 1), alignment: 64)
        bytes.withUnsafeBytes { src in
            if let base = src.baseAddress { buffer.baseAddress!.copyMemory(from: base, byteCount: src.count) }
        }
        end = bytes.count
        reachedEOF = true
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { _ = close(fd) }
    }

    private var buffered: Int { end - start }

    /// Makes at least `count` bytes available in the buffer unless the input ends first.
    /// Returns the number of buffered bytes (may be less than `count` at end of input).
    @discardableResult
    private func fill(atLeast count: Int) throws -> Int {
        precondition(count <= buffer.count)
        if buffered >= count || reachedEOF { return buffered }
        if start > 0 {  // slide the unread tail to the front
            if buffered > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: buffered) }
            end = buffered
            start = 0
        }
        while end < count && !reachedEOF {
            let n = try readSome(into: buffer.baseAddress! + end, count: buffer.count - end)
            if n == 0 { reachedEOF = true } else { end += n }
        }
        return buffered
    }

    private func readSome(into pointer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        while true {
            if mayBlock { try waitUntilReadable() }
            let n = Glibc.read(fd, pointer, count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw FrameIOError.system(operation: "read", errno: errno)
        }
    }

    /// Waits until `fd` has data (or its end) or input is cancelled, whichever comes first.
    ///
    /// Always waits in `poll`, even without a cancellation pipe: a FIFO opened before its writer
    /// arrived reads as ended until then, while `poll` waits for the writer's first bytes.
    private func waitUntilReadable() throws {
        let wake = InputCancellation.wakeDescriptor
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let count = nfds_t(wake >= 0 ? 2 : 1)
        if let beforeWaiting, poll(&fds, count, 0) == 0 { beforeWaiting() }
        while true {
            try InputCancellation.check()
            let n = poll(&fds, count, -1)
            if n < 0 && errno == EINTR { continue }
            try InputCancellation.check()
            return  // readable, at its end, or an error that read(2) will report
        }
    }

    /// The next byte without consuming it, or nil at end of input.
    public func peekByte() throws -> UInt8? {
        if buffered == 0 { try fill(atLeast: 1) }
        return buffered > 0 ? buffer[start] : nil
    }

    /// Up to `count` next bytes without consuming them (fewer at end of input). `count` ≤ 64 KiB.
    public func peek(_ count: Int) throws -> [UInt8] {
        let n = min(try fill(atLeast: min(count, buffer.count)), count)
        return Array(UnsafeRawBufferPointer(rebasing: buffer[start..<(start + n)]))
    }

    /// Consumes and returns the next byte, or nil at end of input.
    public func readByte() throws -> UInt8? {
        if buffered == 0 { try fill(atLeast: 1) }
        guard buffered > 0 else { return nil }
        let b = buffer[start]
        start += 1
        offset += 1
        return b
    }

    /// True when no byte is left.
    public func atEnd() throws -> Bool { try peekByte() == nil }

    /// Fills `destination` completely unless the input ends; returns the number of bytes stored.
    public func read(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        let total = destination.count
        // 1. Whatever is buffered.
        let fromBuffer = min(buffered, total)
        if fromBuffer > 0 {
            destination.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: fromBuffer)
            start += fromBuffer
            done = fromBuffer
        }
        // 2. Large remainders go straight to the destination; small ones through the buffer.
        while done < total && !reachedEOF {
            let remaining = total - done
            if remaining >= buffer.count / 2 {
                let n = try readSome(into: destination.baseAddress! + done, count: remaining)
                if n == 0 { reachedEOF = true } else { done += n }
            } else {
                let have = try fill(atLeast: remaining)
                let n = min(have, remaining)
                if n > 0 {
                    (destination.baseAddress! + done).copyMemory(from: buffer.baseAddress! + start, byteCount: n)
                    start += n
                    done += n
                }
                if have < remaining { break }
            }
        }
        offset += done
        return done
    }

    /// Reads `count` bytes into `storage`, which ends up exactly `count` long, and returns how many
    /// arrived (fewer only at the end of input).
    ///
    /// Storage that is already large enough (a frame loop reusing its buffer) is filled in place.
    /// Empty storage for a frame of video size (up to ``directReadLimit``) is allocated once and
    /// read into directly, uninitialized: a stream of new frame buffers pays no zero fill.
    /// Otherwise it grows only as data arrives, in steps of at most the bytes already read (1 MiB
    /// at first), so a header that claims a huge frame costs memory in proportion to the data
    /// really sent, never to the claim.
    public func readGrowing(into storage: inout [UInt8], count: Int) throws -> Int {
        if storage.isEmpty && count > 0 && count <= Self.directReadLimit {
            // Untouched pages cost nothing: a lying header on a short input reserves address space only.
            var failure: Error?
            storage = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                do { initialized = try read(into: UnsafeMutableRawBufferPointer(buffer)) } catch {
                    initialized = 0
                    failure = error
                }
            }
            if let failure { throw failure }
            return storage.count
        }
        if storage.count > count { storage.removeLast(storage.count - count) }
        var filled = 0
        while filled < count {
            if storage.count == filled {
                let step = min(count - filled, max(1 << 20, filled))
                storage.append(contentsOf: repeatElement(0, count: step))
            }
            let wanted = storage.count - filled
            let n = try storage.withUnsafeMutableBytes { try read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled..<(filled + wanted)])) }
            filled += n
            if n < wanted { return filled }
        }
        return filled
    }

    /// The largest frame ``readGrowing(into:count:)`` reads straight into new storage (64 MiB:
    /// 4K video in 4:4:4 at 16 bits); larger claims grow with the data that arrives.
    public static let directReadLimit = 64 << 20

    /// Discards up to `count` bytes; returns how many were discarded.
    public func skip(_ count: Int) throws -> Int {
        var done = 0
        while done < count {
            if buffered == 0 { try fill(atLeast: 1) }
            if buffered == 0 { break }
            let n = min(buffered, count - done)
            start += n
            done += n
        }
        offset += done
        return done
    }

    /// Reads bytes up to (not including) `terminator`, which is consumed.
    /// Returns nil if the input is already at its end; throws `.lineTooLong` past `limit` bytes.
    /// The result excludes the terminator; `hitEnd` tells whether the input ended before it.
    func readLine(terminator: UInt8 = 0x0A, limit: Int) throws -> (bytes: [UInt8], hitEnd: Bool)? {
        var line: [UInt8] = []
        while true {
            if buffered == 0 { try fill(atLeast: 1) }
            if buffered == 0 { return line.isEmpty ? nil : (line, true) }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
            if let i = chunk.firstIndex(of: terminator) {
                if line.count + i > limit { throw LineTooLong() }
                line.append(contentsOf: chunk[..<i])
                start += i + 1
                offset += i + 1
                return (line, false)
            }
            if line.count + chunk.count > limit { throw LineTooLong() }
            line.append(contentsOf: chunk)
            offset += chunk.count
            start = end
        }
    }

    struct LineTooLong: Error {}

    // MARK: Handing the input over (to an ffmpeg child that decodes it)

    /// The descriptor read (-1 for bytes in memory).
    var descriptor: Int32 { fd }

    /// Bytes read from the descriptor so far, consumed or still buffered: where the descriptor's
    /// offset stands from where this source started.
    var bytesTakenFromDescriptor: Int { offset + buffered }

    /// Whether every byte read from the descriptor is still buffered (none consumed).
    var nothingConsumed: Bool { offset == 0 }

    /// Reads what is there now into `destination`, waiting only when nothing is (cancellable, as
    /// every read); 0 at the end of input. A pump copying a live stream uses it, so that a frame
    /// goes on as soon as it arrives.
    func readAvailable(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        if buffered > 0 {
            let n = min(buffered, destination.count)
            destination.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: n)
            start += n
            offset += n
            return n
        }
        guard !reachedEOF, fd >= 0 else { return 0 }
        let n = try readSome(into: destination.baseAddress!, count: destination.count)
        if n == 0 { reachedEOF = true }
        offset += n
        return n
    }

    /// Removes and returns the buffered bytes (what a peek read ahead), so that whoever takes the
    /// input over sends them first and then goes on reading from the descriptor.
    func takeBuffered() -> [UInt8] {
        let bytes = Array(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
        offset += buffered
        start = end
        return bytes
    }
}
