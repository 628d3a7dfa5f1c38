import PoseCore

/// Streams the lines of a file or standard input with constant memory per line. A line ends at
/// LF; a CR just before it is part of the line end (CRLF files from Windows). Bytes that are not
/// UTF-8 are kept (`FileName`), so a list names such files as they are.
public struct LineReader {
    public let source: ByteSource
    /// The path as given (named in errors).
    public let path: String
    /// Longest accepted line in bytes; longer ones are an error rather than unbounded memory.
    public let maximumLength: Int

    public init(path: String, maximumLength: Int = 16 << 20) throws {
        source = try ByteSource(path: path)
        self.path = path
        self.maximumLength = maximumLength
    }

    /// Calls `body` with each line. A stop signal ends the loop between lines, even on a
    /// regular file, whose reads never wait.
    public func forEachLine(_ body: (String) throws -> Void) throws {
        var line: [UInt8] = []
        func deliver() throws {
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            try InputCancellation.check()
            try body(FileName.decode(line))
            line.removeAll(keepingCapacity: true)
        }
        while let byte = try source.readByte() {
            if byte == UInt8(ascii: "\n") {
                try deliver()
            } else {
                line.append(byte)
                if line.count > maximumLength { throw FrameIOError.invalidArgument("\(path): a line is longer than \(Self.describe(bytes: maximumLength))") }
            }
        }
        if !line.isEmpty { try deliver() }
    }

    /// `16 MiB`, `4096 bytes`.
    public static func describe(bytes: Int) -> String { bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes" }
}
