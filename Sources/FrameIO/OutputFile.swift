#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An output path opened so that nothing already there is lost: the one way PoseKit writes `-o`,
/// `--json`, `--overlay` and `--output-dir` files.
///
/// - A regular file (or a new one) is written to a temporary file beside it and only `commit()`
///   moves it into place: flush, `fsync`, `rename`, so readers see the old file or the whole new
///   one, and a failed write leaves the old file untouched (the temporary file is removed).
///   An existing file keeps its permission bits.
/// - A symbolic link is followed: its target is replaced as above and the link stays a link.
/// - A device node, FIFO or socket (`/dev/null`, a named pipe) is written in place, never renamed
///   over; a FIFO without a reader is waited for in a way a stop signal ends.
/// - `"-"` is standard output, written in place, and so are the names of the standard streams
///   (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, and the same for 2), whatever they lead to:
///   a pipe's link ends in `pipe:[N]`, which is no file to create.
/// - The temporary file is locked (`flock`) while it is written. Temporaries of this output left
///   by a killed run (`.NAME.XXXXXX.tmp`, unlocked, a minute old) are removed when the next run
///   creates its own, so retries do not pile them up.
///
///     let output = try OutputFile(path: "poses.jsonl")
///     try output.sink.write(line); try output.sink.endRecord()
///     try output.commit()           // or discard(); deinit discards an uncommitted file
public final class OutputFile {
    /// The path as given (used in messages).
    public let path: String
    /// Where the bytes go; buffered, with `ByteSink.FlushPolicy.forRecords` for its descriptor.
    public let sink: ByteSink
    /// The file a commit replaces (the symlink's target for a link); nil when written in place.
    public let destination: String?
    /// The temporary file a regular destination is written to until ``commit()`` (nil in place).
    let temporaryPath: String?
    private var finished = false
    /// Runs first in ``commit()`` (a writer that is not ``sink``, such as an ffmpeg child writing
    /// the temporary file itself, finishes here); its error fails the commit.
    var beforeCommit: (() throws -> Void)?
    /// Runs when the output is discarded (such a writer is stopped).
    var onDiscard: (() -> Void)?
    /// Set once such a writer has written something (``committing(_:after:)`` keeps the output).
    var isWrittenElsewhere = false

    /// Opens `path` for writing (`"-"`: standard output). `realtime` flushes every record.
    public init(path: String, realtime: Bool = false, bufferSize: Int = 1 << 20) throws {
        self.path = path
        if let stream = Self.standardStream(named: path) {
            sink = ByteSink(fileDescriptor: stream, bufferSize: bufferSize, name: stream == 1 ? nil : path)
            sink.flushPolicy = .forRecords(to: stream, realtime: realtime)
            destination = nil
            temporaryPath = nil
            return
        }
        var info = stat()
        let exists = stat(path, &info) == 0
        if exists && (info.st_mode & S_IFMT) == S_IFDIR {
            throw FrameIOError.system(operation: "open \(path)", errno: EISDIR)
        }
        if exists && (info.st_mode & S_IFMT) != S_IFREG {
            // Opened by the name given: /proc's links to pipes and sockets open only that way.
            let fd = try Self.openInPlace(path, isFIFO: (info.st_mode & S_IFMT) == S_IFIFO)
            sink = ByteSink(fileDescriptor: fd, closeOnDeinit: true, bufferSize: bufferSize, name: path)
            sink.flushPolicy = .forRecords(to: fd, realtime: realtime)
            destination = nil
            temporaryPath = nil
            return
        }
        let target = try Self.resolvingSymbolicLinks(path)
        let (fd, temporary) = try Self.createTemporary(beside: target, displayName: path)
        if exists { _ = fchmod(fd, info.st_mode & 0o7777) }
        sink = ByteSink(fileDescriptor: fd, closeOnDeinit: true, bufferSize: bufferSize, name: path)
        sink.flushPolicy = .forRecords(to: fd, realtime: realtime)
        destination = target
        temporaryPath = temporary
    }

    deinit { if !finished { discard() } }

    /// Makes everything written final: flushes, and for a regular file syncs it and renames it
    /// over the destination. On failure the destination is unchanged and the error is thrown.
    public func commit() throws {
        try commit(as: destination)
    }

    /// Commits to a different path in the same directory (e.g. `NAME.partial` for an input that
    /// broke halfway); in-place outputs are just flushed.
    public func commit(renamingTo alternative: String) throws {
        try commit(as: destination == nil ? nil : alternative)
    }

    private func commit(as final: String?) throws {
        guard !finished else { return }
        do {
            try beforeCommit?()
            beforeCommit = nil
            guard let temporaryPath, let final else {
                try sink.flush()
                finished = true
                return
            }
            try sink.synchronize()
            if rename(temporaryPath, final) != 0 {
                throw FrameIOError.writeFailed(name: path, errno: errno)
            }
            finished = true
            Self.synchronizeDirectory(of: final)
        } catch {
            discard()
            throw error
        }
    }

    /// Drops what was written: the temporary file is removed, the destination left as it was.
    /// (In-place outputs cannot take back bytes already written.)
    public func discard() {
        guard !finished else { return }
        finished = true
        onDiscard?()
        if let temporaryPath { _ = unlink(temporaryPath) }
    }

    /// Runs `body`, then commits every output whether `body` finished or threw (an input that
    /// broke halfway, a stop signal, a closed pipe): what was finished is kept. `body`'s error
    /// is rethrown first, else the first commit error; an output whose own write failed, or
    /// that got nothing before `body` threw, is discarded, leaving its destination as it was.
    public static func committing<T>(_ outputs: [OutputFile], after body: () throws -> T) throws -> T {
        try commit(outputs, after: Result { try body() })
    }

    /// ``committing(_:after:)`` for an asynchronous `body`.
    public static func committing<T>(_ outputs: [OutputFile], after body: () async throws -> T) async throws -> T {
        let result: Result<T, Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        return try commit(outputs, after: result)
    }

    private static func commit<T>(_ outputs: [OutputFile], after result: Result<T, Error>) throws -> T {
        var commitError: Error?
        for output in outputs {
            // A run that failed before writing anything leaves an existing file as it was.
            if case .failure = result, output.sink.bytesWritten == 0 && !output.isWrittenElsewhere {
                output.discard()
                continue
            }
            do { try output.commit() } catch { if commitError == nil { commitError = error } }
        }
        let value = try result.get()
        if let commitError { throw commitError }
        return value
    }

    // MARK: helpers

    /// The descriptor of the standard stream `path` names (`-` and `/dev/stdout` are 1), or nil.
    public static func standardStream(named path: String) -> Int32? {
        switch path {
        case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1": return 1
        case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2": return 2
        default: return nil
        }
    }

    /// Opens a device, FIFO or socket for writing. A FIFO without a reader is retried every
    /// 50 ms (`O_NONBLOCK` opens fail at once instead of waiting), so a stop signal ends the wait.
    private static func openInPlace(_ path: String, isFIFO: Bool) throws -> Int32 {
        guard isFIFO else {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            if fd < 0 { throw FrameIOError.system(operation: "open \(path)", errno: errno) }
            return fd
        }
        while true {
            let fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                return fd
            }
            guard errno == ENXIO || errno == EINTR else { throw FrameIOError.system(operation: "open \(path)", errno: errno) }
            try InputCancellation.check()
            usleep(50_000)
        }
    }

    /// Follows symbolic links in the last path component (up to 40, like the kernel) to the file
    /// that is really written; a dangling link resolves to the path it names.
    public static func resolvingSymbolicLinks(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            if n < 0 { throw FrameIOError.system(operation: "readlink \(path)", errno: errno) }
            let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : directory(of: current) + "/" + link
        }
        throw FrameIOError.system(operation: "open \(path)", errno: ELOOP)
    }

    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// A new file `.NAME.XXXXXX.tmp` beside `target`, readable as the umask allows and locked
    /// while this process holds it; stale ones of the same output are removed first.
    private static func createTemporary(beside target: String, displayName: String) throws -> (Int32, String) {
        let directory = directory(of: target)
        let name = target.split(separator: "/").last.map(String.init) ?? target
        removeStaleTemporaries(of: name, in: directory)
        for _ in 0..<100 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let candidate = directory + "/." + name + "." + suffix + ".tmp"
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd >= 0 {
                _ = flock(fd, LOCK_EX | LOCK_NB)   // released by the kernel however this process ends
                return (fd, candidate)
            }
            if errno != EEXIST { throw FrameIOError.system(operation: "create \(displayName)", errno: errno) }
        }
        throw FrameIOError.system(operation: "create \(displayName)", errno: EEXIST)
    }

    /// Oldest a temporary file may be before an unlocked one counts as left by a killed run: a
    /// run holds the lock from creation, and a minute covers the moment between the two.
    static let staleTemporaryAge = 60

    /// Removes `.NAME.XXXXXX.tmp` files in `directory` that no running process holds (an
    /// exclusive lock is free) and that are older than `staleTemporaryAge` seconds: what runs
    /// killed while writing this output left behind. Best effort: any doubt keeps the file.
    static func removeStaleTemporaries(of name: String, in directory: String) {
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        let prefix = "." + name + "."
        let now = time(nil)
        while let entry = readdir(stream) {
            let file = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard file.hasPrefix(prefix), file.hasSuffix(".tmp") else { continue }
            let suffix = file.dropFirst(prefix.count).dropLast(4)
            guard !suffix.isEmpty, suffix.count <= 13,
                  suffix.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."z").contains($0) }) else { continue }
            let path = directory + "/" + file
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                  now - info.st_mtim.tv_sec >= staleTemporaryAge,
                  flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            _ = unlink(path)
        }
    }

    /// Makes the rename itself durable (best effort: not every file system syncs directories).
    private static func synchronizeDirectory(of path: String) {
        let fd = open(directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = close(fd)
    }
}
