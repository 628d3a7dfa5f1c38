import Foundation
import FrameIO
#if canImport(Glibc)
import Glibc
#endif

/// A runtime failure the command reports as one line, `posekit: error: <message>`, with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }

    /// The one-line, plain text for any error: Foundation's file errors become "PATH: problem",
    /// JSON decoding errors say what is missing or wrong where, never a debug dump; newlines are
    /// folded so that the `posekit: error:` line stays a single line a script can grep.
    static func describe(_ error: Error) -> String {
        let text: String
        if let decoding = error as? DecodingError {
            text = plain(decoding)
        } else if let foundation = plainFoundationError(error) {
            text = foundation
        } else {
            text = String(describing: error)
        }
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// Runs `body`, which reads `path`; any failure becomes one line naming the file.
    static func reading<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CLIError { throw error } catch {
            let text = describe(error)
            throw CLIError(text.contains(path) ? text : "\(path): \(text)")
        }
    }

    /// Creates the directory an output file goes into (as `-o Weights/x.pkw` expects).
    static func creatingParent(of path: String) throws {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
            throw CLIError("cannot create the directory of \(path): \(describe(error))")
        }
    }

    private static func plain(_ error: DecodingError) -> String {
        func location(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? "" : " at \(path.hasPrefix(".") ? String(path.dropFirst()) : path)"
        }
        switch error {
        case let .keyNotFound(key, context):
            return "invalid JSON: \"\(key.stringValue)\" is missing" + location(context)
        case let .typeMismatch(type, context):
            return "invalid JSON: expected \(typeName(type))" + location(context)
        case let .valueNotFound(type, context):
            return "invalid JSON: expected \(typeName(type)), found null" + location(context)
        case let .dataCorrupted(context):
            let reason = context.debugDescription.hasPrefix("The given data was not valid JSON")
                ? "not valid JSON" : "invalid JSON: " + context.debugDescription.trimmingCharacters(in: CharacterSet(charactersIn: "."))
            return reason + location(context)
        @unknown default:
            return "invalid JSON"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type, is UInt64.Type, is Int32.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        case is Bool.Type: return "true or false"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "an object"
        }
    }

    /// Foundation's `NSError`s (file reads and writes) as "PATH: problem", or nil for other errors.
    private static func plainFoundationError(_ error: Error) -> String? {
        let ns = error as NSError
        guard ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain else { return nil }
        let path = (ns.userInfo[NSFilePathErrorKey] as? String) ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
        var problem: String
        if ns.domain == NSPOSIXErrorDomain {
            problem = String(cString: strerror(Int32(ns.code)))
        } else if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            problem = String(cString: strerror(Int32(underlying.code)))
        } else {
            switch CocoaError.Code(rawValue: ns.code) {
            case .fileNoSuchFile, .fileReadNoSuchFile: problem = "no such file"
            case .fileReadNoPermission, .fileWriteNoPermission: problem = "permission denied"
            case .fileWriteOutOfSpace: problem = "no space left on device"
            case .fileReadCorruptFile: problem = "unreadable (corrupt or of another format)"
            case .fileReadTooLarge: problem = "too large"
            case .fileWriteFileExists: problem = "already exists"
            case .fileWriteVolumeReadOnly: problem = "read-only file system"
            case .fileReadInapplicableStringEncoding: problem = "not UTF-8 text"
            default: problem = ns.code >= 3840 && ns.code <= 3851 ? "not valid JSON" : "cannot be read or written (error \(ns.code))"
            }
        }
        if problem.hasSuffix(".") { problem.removeLast() }
        return path.map { "\($0): \(problem)" } ?? problem
    }
}

/// Errors that end the whole run instead of one input: an output that cannot be written, a
/// reader that has gone away, a stop signal.
func endsTheRun(_ error: Error) -> Bool {
    guard let error = error as? FrameIOError else { return false }
    switch error {
    case .brokenPipe, .interrupted, .writeFailed: return true
    default: return false
    }
}

/// Writes a line to standard error, unbuffered (progress and errors never mix into stdout).
func printToStandardError(_ line: String, newline: Bool = true) {
    var text = line
    if newline && !text.hasSuffix("\n") { text += "\n" }
    var bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + done, $0.count - done) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        done += n
    }
}
