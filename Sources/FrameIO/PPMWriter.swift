/// Writes RGB images as binary PPM (`P6`, maxval 255), one after another, as
/// `ffmpeg -f image2pipe -c:v ppm -i -` reads them.
///
///     let writer = PPMWriter(sink: try ByteSink(path: "-"))
///     try writer.write(image)
///     try writer.flush()
public final class PPMWriter {
    public let sink: ByteSink

    public init(sink: ByteSink) {
        self.sink = sink
    }

    public func write(_ image: RGBImage) throws {
        try sink.write("P6\n\(image.width) \(image.height)\n255\n")
        try sink.write(image.pixels)
    }

    public func flush() throws { try sink.flush() }

    /// The P6 encoding of one image.
    public static func encode(_ image: RGBImage) -> [UInt8] {
        Array("P6\n\(image.width) \(image.height)\n255\n".utf8) + image.pixels
    }
}
