import Foundation
import PoseCore
#if canImport(Glibc)
import Glibc
#endif

/// How media PoseKit found on a stream (standard input, a pipe, a `FileHandle`, bytes in
/// memory) reaches the ffmpeg child that decodes it, once its first bytes have been read to
/// recognize it: ffmpeg's standard input is then one of
/// - **the file itself** when the stream is a regular file read from its start (`posekit pose -
///   < clip.mp4`): ffmpeg opens it again (`file:/dev/stdin`) and may seek;
/// - **a copy in an unlinked temporary file** when ffmpeg must seek and the stream cannot (an
///   MP4 whose index comes after its media data, piped: `cat clip.mp4 | posekit pose -`); the
///   whole input is read first;
/// - **a pipe fed by a pump thread** otherwise (JPEG, PNG, Matroska, a streaming MP4, ...):
///   the bytes read ahead first, then the rest of the stream as it comes, so a live stream stays
///   live.
enum FFmpegStreamInput {
    /// ffmpeg's standard input and how its `-i` names it; `pump`, if any, feeds it.
    struct Prepared {
        let descriptor: Int32
        let inputArgument: String
        let pump: StreamPump?
    }

    /// Prepares `source` (whose buffered bytes are its first ones, `head` the start of them) for
    /// ffmpeg decoding `format`; the caller closes `descriptor` once ffmpeg has it.
    static func prepare(_ source: ByteSource, head: [UInt8], format: MediaFormat) throws -> Prepared {
        let fd = source.descriptor
        var info = stat()
        if fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
           lseek(fd, 0, SEEK_CUR) == off_t(source.bytesTakenFromDescriptor), source.nothingConsumed {
            // Read from the file's start: ffmpeg opens the same file again through its descriptor.
            let copy = dup(fd)
            guard copy >= 0 else { throw FrameIOError.system(operation: "duplicate a descriptor", errno: errno) }
            _ = fcntl(copy, F_SETFD, FD_CLOEXEC)
            return Prepared(descriptor: copy, inputArgument: "file:/dev/stdin", pump: nil)
        }
        if MediaFormat.needsSeeking(head, format: format) {
            return Prepared(descriptor: try spool(source), inputArgument: "file:/dev/stdin", pump: nil)
        }
        var ends: [Int32] = [0, 0]
        // A socket pair rather than a pipe: the pump sends with MSG_NOSIGNAL, so ffmpeg going away
        // is an error to the pump, never a SIGPIPE to a program that did not ignore it.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
            throw FrameIOError.system(operation: "create a socket pair for ffmpeg", errno: errno)
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        shutdown(ends[0], Int32(SHUT_WR))   // ffmpeg's end only reads
        return Prepared(descriptor: ends[0], inputArgument: "pipe:0", pump: StreamPump(source: source, into: ends[1]))
    }

    /// The whole of `source` in an unlinked temporary file, rewound (a stop signal ends the copy).
    private static func spool(_ source: ByteSource) throws -> Int32 {
        guard let file = tmpfile() else { throw FrameIOError.system(operation: "create a temporary file for the input", errno: errno) }
        let fd = dup(fileno(file))
        fclose(file)
        guard fd >= 0 else { throw FrameIOError.system(operation: "create a temporary file for the input", errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        do {
            while true {
                let count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
                if count == 0 { break }
                try chunk.withUnsafeBytes { raw in
                    var done = 0
                    while done < count {
                        let n = write(fd, raw.baseAddress! + done, count - done)
                        if n < 0 && errno == EINTR { continue }
                        guard n > 0 else { throw FrameIOError.writeFailed(name: "a temporary copy of the input", errno: errno) }
                        done += n
                    }
                }
                if count < chunk.count { break }
            }
        } catch {
            close(fd)
            throw error
        }
        lseek(fd, 0, SEEK_SET)
        return fd
    }
}

/// Copies a stream into ffmpeg's input on a thread of its own: the bytes already read ahead, then
/// the rest as it arrives. It stops at the stream's end (closing ffmpeg's input, so ffmpeg sees
/// the end), when ffmpeg stops reading, at a stop signal, or at ``stop()``.
final class StreamPump: @unchecked Sendable {
    private let output: Int32
    private let lock = NSLock()
    private var stopped = false
    private var closed = false

    init(source: ByteSource, into output: Int32) {
        self.output = output
        let head = source.takeBuffered()
        // Handed over: from here only the pump's thread reads the source.
        nonisolated(unsafe) let source = source
        Thread.detachNewThread { [self] in
            defer { closeOutput() }
            guard send(head) else { return }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while !isStopped {
                // A read that waits also waits on InputCancellation: a stop signal ends it.
                guard let count = try? chunk.withUnsafeMutableBytes({ try source.readAvailable(into: $0) }), count > 0 else { return }
                guard send(Array(chunk[0..<count])) else { return }
            }
        }
    }

    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    /// Ends the copy (ffmpeg is being stopped): the next write or read ends it.
    func stop() {
        lock.lock(); defer { lock.unlock() }
        stopped = true
        if !closed { shutdown(output, Int32(SHUT_RDWR)) }   // a send in progress fails at once
    }

    private func closeOutput() {
        lock.lock(); defer { lock.unlock() }
        closed = true
        close(output)
    }

    /// Sends all of `bytes`; false once ffmpeg no longer reads (or the pump was stopped).
    private func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.send(output, raw.baseAddress! + done, raw.count - done, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
    }
}
