import FrameIO
import PoseCore
import Foundation

/// One plain line for any error, for people rather than debuggers: Foundation's file errors
/// become "PATH: problem", JSON decoding errors say what is missing or wrong where (never
/// `DecodingError` or `NSError` dumps), and newlines are folded so a line stays one line.
public enum PlainErrorMessage {
    public static func describe(_ error: Error) -> String {
        let text: String
        if let decoding = error as? DecodingError {
            text = plain(decoding)
        } else if let foundation = plainFoundationError(error) {
            text = foundation
        } else if let localized = (error as? LocalizedError)?.errorDescription {
            // Every public error of PoseKit's says its line as a LocalizedError (most also as their
            // `description`); one that says it only so (`PrecisionUnavailable`) is never dumped.
            text = localized
        } else {
            text = String(describing: error)
        }
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// ``describe(_:)`` of an error met while reading `input`, which it names first (once); an
    /// error about another file (an output: `FrameIOError.file`) names that one instead.
    public static func describe(_ error: Error, input: String) -> String {
        let text = describe(error)
        if case FrameIOError.file = error { return text }
        return text.contains(input) ? text : "\(input): \(text)"
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
