import ArgumentParser
import Foundation
import PoseKit
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
        PlainErrorMessage.describe(error)
    }

    /// ``describe(_:)`` of an error met while reading `input`, which it names first (once);
    /// an error about another file (an output) names that one instead.
    static func describe(_ error: Error, input: String) -> String {
        let text = describe(error)
        if case FrameIOError.file = error { return text }
        return text.contains(input) ? text : "\(input): \(text)"
    }

    /// `text` safe for a terminal line (``PrintableText``).
    static func printable(_ text: String) -> String { PrintableText.make(text) }

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
}

/// FrameIO's `SameFileCheck` as a usage error (exit 2): two files of the run are one file, refused
/// before anything is read or written.
func refuseSameFiles(inputs: [String], outputs: [(option: String, path: String)]) throws {
    do { try SameFileCheck.refuse(inputs: inputs, outputs: outputs) } catch let error as SameFileError { throw ValidationError(error.message) }
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
/// A message (`newline`) shows control characters as `?` (`CLIError.printable`), since file
/// names and ffmpeg's words reach it; only the progress line writes its own escapes.
func printToStandardError(_ line: String, newline: Bool = true) {
    var text = newline ? line.split(separator: "\n", omittingEmptySubsequences: false).map { CLIError.printable(String($0)) }.joined(separator: "\n") : line
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
