/// Reads a YUV4MPEG2 stream (`ffmpeg -i clip.mp4 -f yuv4mpegpipe -`) frame by frame in constant memory.
///
/// The stream header is parsed by the initializer; each `read(into:)` then reads one `FRAME`
/// header and the frame's planes straight into the caller's reusable `YUVFrame`.
///
///     let reader = try Y4MReader(source: try ByteSource(path: "-"))
///     var frame = YUVFrame()
///     var rgb = RGBImage()
///     while try reader.read(into: &frame) {
///         frame.convert(to: &rgb, conversion: reader.defaultConversion)
///         ...
///     }
///
/// Errors name the frame index reached; frames before it were complete and have been delivered.
public final class Y4MReader {
    public let source: ByteSource
    public let header: Y4MStreamHeader
    public let limits: FrameLimits
    /// Frames delivered so far; also the index of the next frame.
    public private(set) var frameIndex = 0

    /// Reads and checks the stream header.
    public init(source: ByteSource, limits: FrameLimits = .default) throws {
        self.source = source
        self.limits = limits
        let magic = Array("YUV4MPEG2".utf8)
        let start = try source.peek(magic.count + 1)
        guard start.starts(with: magic.prefix(start.count)), start.count == magic.count + 1,
              start[magic.count] == 0x20 || start[magic.count] == 0x0A else {
            if start.count <= magic.count && start.starts(with: magic.prefix(start.count)) && !start.isEmpty {
                throw FrameIOError.truncatedHeader(format: "y4m", frameIndex: 0)
            }
            throw FrameIOError.wrongMagic(format: "y4m", found: FrameIOError.excerpt(start))
        }
        _ = try source.skip(magic.count)
        let line: (bytes: [UInt8], hitEnd: Bool)?
        do { line = try source.readLine(limit: limits.maxHeaderBytes) } catch is ByteSource.LineTooLong {
            throw FrameIOError.invalidHeader(format: "y4m", frameIndex: 0, reason: "stream header longer than \(limits.maxHeaderBytes) bytes")
        }
        guard let line, !line.hitEnd else { throw FrameIOError.truncatedHeader(format: "y4m", frameIndex: 0) }
        header = try Y4MStreamHeader.parse(line.bytes, limits: limits)
    }

    /// The conversion ffmpeg would use for this stream: BT.601 unless `matrix` says otherwise,
    /// range from `XCOLORRANGE` (limited when absent).
    public func conversion(matrix: ColorMatrix = .bt601) -> YUVToRGB.Conversion {
        YUVToRGB.Conversion(matrix: matrix, range: header.declaredRange ?? .limited)
    }

    /// BT.601 with the declared range.
    public var defaultConversion: YUVToRGB.Conversion { conversion() }

    /// Reads the next frame into `frame`. Returns false at the clean end of the stream.
    public func read(into frame: inout YUVFrame) throws -> Bool {
        let marker = Array("FRAME".utf8)
        let start = try source.peek(marker.count)
        if start.isEmpty { return false }
        guard start == marker else {
            if start.count < marker.count && marker.starts(with: start) {
                throw FrameIOError.truncatedHeader(format: "y4m", frameIndex: frameIndex)
            }
            throw FrameIOError.missingFrameMarker(frameIndex: frameIndex, found: FrameIOError.excerpt(try source.peek(16)))
        }
        let line: (bytes: [UInt8], hitEnd: Bool)?
        do { line = try source.readLine(limit: limits.maxHeaderBytes) } catch is ByteSource.LineTooLong {
            throw FrameIOError.invalidHeader(format: "y4m", frameIndex: frameIndex, reason: "FRAME header longer than \(limits.maxHeaderBytes) bytes")
        }
        guard let line, !line.hitEnd else { throw FrameIOError.truncatedHeader(format: "y4m", frameIndex: frameIndex) }
        let rest = line.bytes.dropFirst(marker.count)
        if let first = rest.first, first != 0x20 {
            throw FrameIOError.missingFrameMarker(frameIndex: frameIndex, found: FrameIOError.excerpt(line.bytes))
        }
        frame.format = header.format
        frame.parameters = rest.isEmpty ? [] : String(decoding: rest, as: UTF8.self).split(separator: " ").map(String.init)
        let expected = header.format.frameByteCount
        // Storage grows with the data that arrives, so a header's claimed size costs nothing up front.
        let n = try source.readGrowing(into: &frame.data, count: expected)
        if n < expected {
            frame.data = []
            throw FrameIOError.truncatedFrame(format: "y4m", frameIndex: frameIndex, bytesRead: n, bytesExpected: expected)
        }
        frame.index = frameIndex
        let rate = header.frameRate
        frame.timestamp = rate.isUnknown ? nil : Double(frameIndex) * Double(rate.denominator) / Double(rate.numerator)
        frameIndex += 1
        return true
    }

    /// Reads the next frame into a new buffer, or nil at the end of the stream.
    public func next() throws -> YUVFrame? {
        var frame = YUVFrame()
        return try read(into: &frame) ? frame : nil
    }
}
