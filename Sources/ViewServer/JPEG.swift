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
