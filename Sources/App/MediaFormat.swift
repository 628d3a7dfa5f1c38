import Foundation

/// An image or video format posekit reads through ffmpeg (`FFmpegDecoder`), recognized by its
/// first bytes or, failing that, by its file extension; also the extensions a directory
/// argument takes (`InputDirectory`).
struct MediaFormat: Equatable {
    /// How the README names it in errors, e.g. "a JPEG image".
    let name: String
    /// What ffmpeg is asked to produce from it.
    let media: FFmpegDecoder.Media

    static let jpeg = MediaFormat(name: "a JPEG image", media: .image)
    static let png = MediaFormat(name: "a PNG image", media: .image)
    static let bmp = MediaFormat(name: "a BMP image", media: .image)
    static let gif = MediaFormat(name: "a GIF image", media: .image)
    static let webp = MediaFormat(name: "a WebP image", media: .image)
    static let tiff = MediaFormat(name: "a TIFF image", media: .image)
    static let mp4 = MediaFormat(name: "an MP4/MOV video", media: .video)
    static let matroska = MediaFormat(name: "a Matroska/WebM video", media: .video)
    static let avi = MediaFormat(name: "an AVI video", media: .video)
    static let mpeg = MediaFormat(name: "an MPEG video", media: .video)
    static let captureDevice = MediaFormat(name: "a V4L2 capture device", media: .device)

    /// Extensions posekit reads itself (PNM images, Y4M video).
    static let directExtensions: Set<String> = ["ppm", "pgm", "pnm", "pbm", "pam", "y4m"]

    /// Extensions read through ffmpeg.
    static let byExtension: [String: MediaFormat] = [
        "jpg": .jpeg, "jpeg": .jpeg, "png": .png, "bmp": .bmp, "gif": .gif, "webp": .webp, "tif": .tiff, "tiff": .tiff,
        "mp4": .mp4, "m4v": .mp4, "mov": .mp4, "mkv": .matroska, "webm": .matroska, "avi": .avi,
        "mpg": .mpeg, "mpeg": .mpeg, "ts": .mpeg,
    ]

    /// The format whose signature starts `head` (at least 12 bytes when available), or nil.
    static func sniff(_ head: [UInt8]) -> MediaFormat? {
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + bytes.count && Array(head[offset..<(offset + bytes.count)]) == bytes
        }
        func starts(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts("GIF87a") || starts("GIF89a") { return .gif }
        if starts("RIFF") && starts("WEBP", at: 8) { return .webp }
        if starts("RIFF") && starts("AVI ", at: 8) { return .avi }
        if starts("II*\u{0}") || starts("MM\u{0}*") { return .tiff }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return .matroska }
        if ["ftyp", "moov", "mdat", "free", "wide", "skip"].contains(where: { starts($0, at: 4) }) { return .mp4 }
        if starts([0x00, 0x00, 0x01, 0xBA]) { return .mpeg }
        if starts("BM") && head.count >= 14 { return .bmp }
        return nil
    }

    /// The format its extension names, or nil.
    static func forExtension(of path: String) -> MediaFormat? {
        byExtension[URL(fileURLWithPath: path).pathExtension.lowercased()]
    }

    /// True for a file name a directory argument takes: PNM, Y4M or a format read through ffmpeg.
    static func isMediaFileName(_ name: String) -> Bool {
        let ext = URL(fileURLWithPath: name).pathExtension.lowercased()
        return directExtensions.contains(ext) || byExtension[ext] != nil
    }
}
