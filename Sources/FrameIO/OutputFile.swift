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
/// - A device node, FIFO or socket (`/dev/null`, `/dev/stdout`, a named pipe) is written in place,
///   never renamed over.
/// - `"-"` is standard output, written in place.
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
    private let temporaryPath: String?
    private var finished = false

    /// Opens `path` for writing (`"-"`: standard output). `realtime` flushes every record.
    public init(path: String, realtime: Bool = false, bufferSize: Int = 1 << 20) throws {
        self.path = path
        if path == "-" {
            sink = ByteSink(fileDescriptor: 1, bufferSize: bufferSize)
            sink.flushPolicy = .forRecords(to: 1, realtime: realtime)
            destination = nil
            temporaryPath = nil
            return
        }
        let target = try Self.resolvingSymbolicLinks(path)
        var info = stat()
        let exists = stat(target, &info) == 0
        if exists && (info.st_mode & S_IFMT) == S_IFDIR {
            throw FrameIOError.system(operation: "open \(path)", errno: EISDIR)
        }
        if exists && (info.st_mode & S_IFMT) != S_IFREG {
            let fd = open(target, O_WRONLY | O_CLOEXEC)
            if fd < 0 { throw FrameIOError.system(operation: "open \(path)", errno: errno) }
            sink = ByteSink(fileDescriptor: fd, closeOnDeinit: true, bufferSize: bufferSize, name: path)
            sink.flushPolicy = .forRecords(to: fd, realtime: realtime)
            destination = nil
            temporaryPath = nil
            return
        }
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
        if let temporaryPath { _ = unlink(temporaryPath) }
    }

    /// Runs `body`, then commits every output whether `body` finished or threw (an input that
    /// broke halfway, a stop signal, a closed pipe): what was finished is kept. `body`'s error
    /// is rethrown first, else the first commit error; an output whose own write failed, or
    /// that got nothing before `body` threw, is discarded, leaving its destination as it was.
    public static func committing<T>(_ outputs: [OutputFile], after body: () throws -> T) throws -> T {
        let result = Result { try body() }
        var commitError: Error?
        for output in outputs {
            // A run that failed before writing anything leaves an existing file as it was.
            if case .failure = result, output.sink.bytesWritten == 0 {
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

    /// Follows symbolic links in the last path component (up to 40, like the kernel) to the file
    /// that is really written; a dangling link resolves to the path it names.
    static func resolvingSymbolicLinks(_ path: String) throws -> String {
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

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// A new file `.NAME.XXXXXX.tmp` beside `target`, readable as the umask allows.
    private static func createTemporary(beside target: String, displayName: String) throws -> (Int32, String) {
        let directory = directory(of: target)
        let name = target.split(separator: "/").last.map(String.init) ?? target
        for _ in 0..<100 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let candidate = directory + "/." + name + "." + suffix + ".tmp"
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd >= 0 { return (fd, candidate) }
            if errno != EEXIST { throw FrameIOError.system(operation: "create \(displayName)", errno: errno) }
        }
        throw FrameIOError.system(operation: "create \(displayName)", errno: EEXIST)
    }

    /// Makes the rename itself durable (best effort: not every file system syncs directories).
    private static func synchronizeDirectory(of path: String) {
        let fd = open(directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = close(fd)
    }
}
