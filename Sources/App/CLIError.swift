#if canImport(Glibc)
import Glibc
#endif

/// A runtime failure the command reports as one line, `posekit: error: <message>`, with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }

    /// The one-line text for any error: its description, with newlines folded so that the
    /// `posekit: error:` line stays a single line a script can grep.
    static func describe(_ error: Error) -> String {
        let text = String(describing: error)
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
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
        if n <= 0 { break }
        done += n
    }
}
