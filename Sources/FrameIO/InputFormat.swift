/// What kind of stream a `ByteSource` holds, judged from its first bytes.
public enum InputFormat: Sendable, Equatable {
    /// Netpbm `P2`, `P3`, `P5` or `P6` (one image or several concatenated).
    case pnm
    /// YUV4MPEG2.
    case y4m

    /// Peeks at the first bytes of `source` without consuming them.
    ///
    ///     let source = try ByteSource(path: path)       // "-" = stdin
    ///     switch try InputFormat.sniff(source) { case .y4m: ...; case .pnm: ... }
    ///
    /// Throws ``FrameIOError/unknownFormat(start:)`` for anything else (including an empty
    /// input), naming the formats PoseKit reads.
    public static func sniff(_ source: ByteSource) throws -> InputFormat {
        let head = try source.peek(12)   // every signature PoseKit knows fits (MediaFormat.sniff)
        if head.starts(with: Array("YUV4MPEG2".utf8)) { return .y4m }
        var i = 0
        while i < head.count, head[i] == 0x20 || (head[i] >= 0x09 && head[i] <= 0x0D) { i += 1 }
        if head.count >= i + 2, head[i] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(head[i + 1]) {
            return .pnm
        }
        throw FrameIOError.unknownFormat(start: head)
    }
}
