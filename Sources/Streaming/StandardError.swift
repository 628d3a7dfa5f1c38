import PoseCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes a line to standard error, unbuffered (progress and errors never mix into stdout).
/// A message (`newline`) shows control characters as `?` (`PrintableText`), since file
/// names and ffmpeg's words reach it; only the progress line writes its own escapes.
public func printToStandardError(_ line: String, newline: Bool = true) {
    var text = newline ? line.split(separator: "\n", omittingEmptySubsequences: false).map { PrintableText.make(String($0)) }.joined(separator: "\n") : line
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
