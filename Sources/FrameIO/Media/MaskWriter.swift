import Foundation

/// Writes grey masks (one 8-bit level per pixel: a person mask, 255 = person) to a path, as its
/// extension asks: `.pgm` as binary PGM (`P5`, one picture after another for video, as
/// `ffmpeg -f image2pipe -c:v pgm` reads them); every other name `MediaWriter` accepts (`.png`,
/// `.mp4`, `.mkv`, `.y4m`, …) as grey RGB frames through `MediaWriter`.
///
///     let masks = try MaskWriter(path: "mask.png")
///     try OutputFile.committing([masks.output]) { try masks.write(levels, width: w, height: h, of: frame) }
public final class MaskWriter {
    /// The output as given (named in errors).
    public let path: String
    private let pgm: ByteSink?
    private let media: MediaWriter?
    private var size: (width: Int, height: Int)?
    /// The file written: commit it to keep what was written.
    public let output: OutputFile

    /// Whether `path` is written as PGM.
    static func isPGM(_ path: String) -> Bool { URL(fileURLWithPath: path).pathExtension.lowercased() == "pgm" }

    /// Throws a `FrameIOError` naming `path` unless masks can be written there.
    public static func check(path: String) throws {
        if !isPGM(path) { try MediaWriter.check(path: path) }
    }

    public init(path: String) throws {
        self.path = path
        if Self.isPGM(path) {
            output = try OutputFile(path: path)
            pgm = output.sink
            media = nil
        } else {
            let writer = try MediaWriter(path: path)
            media = writer
            output = writer.output
            pgm = nil
        }
    }

    /// Appends one mask of `frame`: `levels` holds `width · height` grey levels, row-major.
    public func write(_ levels: [UInt8], width: Int, height: Int, of frame: VideoFrame) throws {
        precondition(levels.count == width * height, "MaskWriter: \(levels.count) levels for \(width)×\(height)")
        if let size, size != (width, height) {
            throw FrameIOError.file(path: path, .invalidArgument("a mask is \(width)x\(height) but the masks written are \(size.width)x\(size.height)"))
        }
        size = (width, height)
        if let pgm {
            try pgm.write("P5\n\(width) \(height)\n255\n")
            try pgm.write(levels)
            try pgm.endRecord()
        } else if let media {
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            pixels.withUnsafeMutableBufferPointer { out in
                for (i, level) in levels.enumerated() { out[3 * i] = level; out[3 * i + 1] = level; out[3 * i + 2] = level }
            }
            try media.write(RGBImage(width: width, height: height, pixels: pixels), of: frame)
        }
    }
}
