import ArgumentParser
import Foundation
import ModelFiles
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
        PlainErrorMessage.describe(error, input: input)
    }

    /// `text` safe for a terminal line (``PrintableText``).
    static func printable(_ text: String) -> String { PrintableText.make(text) }

    /// Runs `body`, which reads `path`; any failure becomes one line naming the file.
    static func reading<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CLIError { throw error } catch let error as ModelFileError { throw error } catch {
            let text = describe(error)
            throw CLIError(text.contains(path) ? text : "\(path): \(text)")
        }
    }
}

/// FrameIO's `SameFileCheck` as a usage error (exit 2): two files of the run are one file, refused
/// before anything is read or written.
func refuseSameFiles(inputs: [String], outputs: [(option: String, path: String)]) throws {
    do { try SameFileCheck.refuse(inputs: inputs, outputs: outputs) } catch let error as SameFileError { throw ValidationError(error.message) }
}
