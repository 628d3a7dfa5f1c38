/// Writes RGB frames as a YUV4MPEG2 stream, for `… | ffmpeg -f yuv4mpegpipe -i - out.mp4`.
///
/// RGB → Y'CbCr uses BT.601 (or BT.709) in limited range, the inverse of `YUVToRGB`, and the
/// header says so (`XCOLORRANGE=LIMITED`). `C444` keeps full chroma; `C420jpeg` averages each
/// 2×2 block of pixels (chroma centered, matching the tag).
///
///     let writer = Y4MWriter(sink: try ByteSink(path: "-"), width: 640, height: 360,
///                            frameRate: Ratio(30000, 1001), chroma: .c420)
///     for each frame { try writer.write(image) }
///     try writer.flush()
public final class Y4MWriter {
    /// Output chroma formats.
    public enum Chroma: Sendable {
        case c444, c420
    }

    public let sink: ByteSink
    public let header: Y4MStreamHeader
    public let matrix: ColorMatrix
    private var wroteHeader = false
    private var planes: [UInt8]

    /// - Parameters: `frameRate` should be the input's (`Y4MReader.header.frameRate`) so timing is
    ///   kept; for an input without one, ``Ratio/fallbackFrameRate`` (the default).
    public init(sink: ByteSink, width: Int, height: Int, frameRate: Ratio = .fallbackFrameRate,
                chroma: Chroma = .c420, matrix: ColorMatrix = .bt601,
                pixelAspect: Ratio = Ratio(1, 1)) {
        precondition(width > 0 && height > 0, "Y4MWriter: empty frame size")
        self.sink = sink
        self.matrix = matrix
        header = Y4MStreamHeader(width: width, height: height, frameRate: frameRate, interlacing: .progressive,
                                 pixelAspect: pixelAspect, chroma: chroma == .c444 ? .c444 : .c420jpeg,
                                 extensions: ["COLORRANGE=LIMITED"])
        planes = [UInt8](repeating: 0, count: header.format.frameByteCount)
    }

    /// Appends one frame; it must have the size given at init.
    public func write(_ image: RGBImage) throws {
        guard image.width == header.width && image.height == header.height else {
            throw FrameIOError.invalidArgument("Y4MWriter: frame is \(image.width)x\(image.height), stream is \(header.width)x\(header.height)")
        }
        if !wroteHeader {
            try sink.write(header.line)
            wroteHeader = true
        }
        RGBToYUV.convert(image, into: &planes, format: header.format, matrix: matrix)
        try sink.write("FRAME\n")
        try sink.write(planes)
    }

    public func flush() throws { try sink.flush() }
}

/// RGB → limited-range Y'CbCr planes (4:4:4 or 4:2:0 with centered chroma).
enum RGBToYUV {
    static func convert(_ image: RGBImage, into planes: inout [UInt8], format: YUVFormat, matrix: ColorMatrix) {
        let (kr, kb): (Float, Float) = matrix == .bt601 ? (0.299, 0.114) : (0.2126, 0.0722)
        let kg = 1 - kr - kb
        let w = format.width, h = format.height
        let (cw, ch) = format.planeSize(1)
        let (dx, dy) = format.chroma.decimation
        let cbOffset = format.planeOffset(1), crOffset = format.planeOffset(2)
        @inline(__always) func byte(_ v: Float) -> UInt8 { UInt8(min(max(v + 0.5, 0), 255)) }
        image.pixels.withUnsafeBufferPointer { px in
            planes.withUnsafeMutableBufferPointer { out in
                for y in 0..<h {
                    for x in 0..<w {
                        let i = (y * w + x) * 3
                        let luma = kr * Float(px[i]) + kg * Float(px[i + 1]) + kb * Float(px[i + 2])
                        out[y * w + x] = byte(16 + luma * 219 / 255)
                    }
                }
                // Chroma from the mean RGB of each dx×dy block (clipped at the edges).
                for cy in 0..<ch {
                    for cx in 0..<cw {
                        var r: Float = 0, g: Float = 0, b: Float = 0, n: Float = 0
                        for y in (cy * dy)..<min(cy * dy + dy, h) {
                            for x in (cx * dx)..<min(cx * dx + dx, w) {
                                let i = (y * w + x) * 3
                                r += Float(px[i]); g += Float(px[i + 1]); b += Float(px[i + 2]); n += 1
                            }
                        }
                        r /= n; g /= n; b /= n
                        let luma = kr * r + kg * g + kb * b
                        out[cbOffset + cy * cw + cx] = byte(128 + (b - luma) / (2 * (1 - kb)) * 224 / 255)
                        out[crOffset + cy * cw + cx] = byte(128 + (r - luma) / (2 * (1 - kr)) * 224 / 255)
                    }
                }
            }
        }
    }
}
