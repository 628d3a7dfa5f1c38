import CJPEG
import FrameIO

/// JPEG encoding and decoding on memory buffers, by libjpeg (`CJPEG`): the frames the live view
/// sends to the page, and what a viewer (the benchmark's, the tests') decodes.
public enum JPEG {
    /// What libjpeg refused (its own message).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The quality the live view sends frames at: 80 keeps edges and faces readable at about
    /// a tenth of the raw frame's bytes.
    public static let defaultQuality = 80

    /// `image` as a baseline JPEG (4:2:0, libjpeg's fast integer DCT) at `quality` (1...100).
    public static func encode(_ image: RGBImage, quality: Int = defaultQuality) throws -> [UInt8] {
        precondition((1...100).contains(quality), "JPEG quality is 1...100")
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let encoded = image.pixels.withUnsafeBufferPointer { pixels in
            posekit_jpeg_encode_rgb(pixels.baseAddress, Int32(image.width), Int32(image.height), image.width * 3, Int32(quality),
                                    &size, &message, message.count)
        }
        guard let encoded else { throw Failure(description: Self.text(message)) }
        defer { posekit_jpeg_free(encoded) }
        return Array(UnsafeBufferPointer(start: encoded, count: size))
    }

    /// `frame` as a baseline JPEG at `quality`. An 8-bit BT.601 4:2:0 video frame (what ffmpeg's
    /// Y4M pipes carry) goes to the encoder as its planes are, JPEG's own layout: no RGB frame is
    /// made and converted back (about half the encoding's time). Other frames go through RGB.
    public static func encode(_ frame: VideoFrame, quality: Int = defaultQuality) throws -> [UInt8] {
        guard case .yuv(let yuv, let conversion) = frame.pixels, yuv.format.chroma.subsampling == .s420,
              yuv.format.chroma.bitDepth == 8, !yuv.format.chroma.hasAlpha, conversion.matrix == .bt601 else {
            return try encode(frame.rgb(), quality: quality)
        }
        precondition((1...100).contains(quality), "JPEG quality is 1...100")
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let format = yuv.format
        let encoded = yuv.data.withUnsafeBufferPointer { data -> UnsafeMutablePointer<UInt8>? in
            guard let base = data.baseAddress, data.count >= format.frameByteCount else { return nil }
            return posekit_jpeg_encode_yuv420(base, base + format.planeOffset(1), base + format.planeOffset(2),
                                              Int32(format.width), Int32(format.height), conversion.range == .limited ? 1 : 0,
                                              Int32(quality), &size, &message, message.count)
        }
        guard let encoded else {
            throw Failure(description: message[0] == 0 ? "a \(format.width)x\(format.height) frame holds fewer bytes than its planes" : Self.text(message))
        }
        defer { posekit_jpeg_free(encoded) }
        return Array(UnsafeBufferPointer(start: encoded, count: size))
    }

    /// The RGB pixels of a JPEG held in `bytes`; images over `maximumPixels` are refused before
    /// any pixel is decoded.
    public static func decode(_ bytes: [UInt8], maximumPixels: Int = 1 << 26) throws -> RGBImage {
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let decoded = bytes.withUnsafeBufferPointer { jpeg in
            posekit_jpeg_decode_rgb(jpeg.baseAddress, jpeg.count, maximumPixels, &width, &height, &message, message.count)
        }
        guard let decoded else { throw Failure(description: Self.text(message)) }
        defer { posekit_jpeg_free(decoded) }
        let count = Int(width) * Int(height) * 3
        return RGBImage(width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: decoded, count: count)))
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
