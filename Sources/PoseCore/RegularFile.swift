import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file that must be a regular file (weights, labels, ground truth), without ever
/// blocking on what is not one.
///
/// `open(2)` of a FIFO waits for a writer, and no signal ends that wait when the handlers
/// restart system calls; `Data(contentsOf:)` of a FIFO or `/dev/zero` then reads forever. So the
/// file is opened with `O_NONBLOCK` (which never waits), its type checked on the descriptor that
/// was opened, and only a regular file is read.
///
///     let data = try RegularFile.contents(atPath: "labels.json")
public enum RegularFile {
    /// The bytes of the regular file at `path`.
    ///
    /// - Throws: ``RegularFileError`` naming the path: cannot be opened, or not a regular file
    ///   (saying what it is instead).
    public static func contents(atPath path: String) throws -> Data {
        try contents(atPath: path, maximumBytes: nil)
    }

    /// The bytes of the regular file at `path`, refused before it is read when it holds more than
    /// `maximumBytes` (and never more than `maximumBytes + 1` read, should it grow meanwhile), so
    /// memory stays bounded by what the file may be, not by what it is.
    ///
    /// - Throws: ``RegularFileError`` naming the path, as ``contents(atPath:)``, and
    ///   `N bytes, more than the M this file may hold` past the limit.
    public static func contents(atPath path: String, maximumBytes: Int?) throws -> Data {
        let fd = FileName.withPath(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw RegularFileError(path: path, problem: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw RegularFileError(path: path, problem: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw RegularFileError(path: path, problem: "not a regular file (\(kind(of: info.st_mode)))")
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        guard let maximumBytes else {
            do { return try handle.readToEnd() ?? Data() } catch {
                throw RegularFileError(path: path, problem: "cannot read: \(error.localizedDescription)")
            }
        }
        func tooLarge(_ size: Int) -> RegularFileError {
            RegularFileError(path: path, problem: "\(size) bytes, more than the \(maximumBytes) this file may hold")
        }
        guard info.st_size <= maximumBytes else { throw tooLarge(Int(info.st_size)) }
        let data: Data
        do { data = try handle.read(upToCount: maximumBytes + 1) ?? Data() } catch {
            throw RegularFileError(path: path, problem: "cannot read: \(error.localizedDescription)")
        }
        guard data.count <= maximumBytes else { throw tooLarge(data.count) }
        return data
    }

    /// True when `path` names a regular file (following symbolic links); never opens it.
    public static func exists(atPath path: String) -> Bool {
        var info = stat()
        return FileName.status(path, &info) && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// "a directory", "a FIFO", ... for a file mode.
    public static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a file"
        }
    }
}

/// A file that could not be read as a regular file: `PATH: problem`.
public struct RegularFileError: Error, CustomStringConvertible {
    public let path: String
    public let problem: String
    public var description: String { "\(path): \(problem)" }
}

extension RegularFileError: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
