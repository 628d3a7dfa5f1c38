import Foundation

/// An image or video format posekit reads through ffmpeg (`FFmpegDecoder`), recognized by its
/// first bytes or, failing that, by its file extension; also the extensions a directory
/// argument takes (`InputDirectory`).
struct MediaFormat: Equatable {
    /// How the README names it in errors, e.g. "a JPEG image".
    let name: String
    /// What ffmpeg is asked to produce from it.
    let media: FFmpegDecoder.Media
    /// The ffmpeg demuxer that reads it (`-f`), never left to ffmpeg's probing: probing picks the
    /// image2 demuxer for a name like `frame%03d.jpg` and expands it as a numbered sequence.
    let demuxer: String

    static let jpeg = MediaFormat(name: "a JPEG image", media: .image, demuxer: "jpeg_pipe")
    static let png = MediaFormat(name: "a PNG image", media: .image, demuxer: "png_pipe")
    static let bmp = MediaFormat(name: "a BMP image", media: .image, demuxer: "bmp_pipe")
    static let gif = MediaFormat(name: "a GIF image", media: .image, demuxer: "gif")
    static let webp = MediaFormat(name: "a WebP image", media: .image, demuxer: "webp_pipe")
    static let tiff = MediaFormat(name: "a TIFF image", media: .image, demuxer: "tiff_pipe")
    static let mp4 = MediaFormat(name: "an MP4/MOV video", media: .video, demuxer: "mov")
    static let matroska = MediaFormat(name: "a Matroska/WebM video", media: .video, demuxer: "matroska")
    static let avi = MediaFormat(name: "an AVI video", media: .video, demuxer: "avi")
    static let mpeg = MediaFormat(name: "an MPEG video", media: .video, demuxer: "mpeg")
    static let mpegTransportStream = MediaFormat(name: "an MPEG transport stream", media: .video, demuxer: "mpegts")
    static let captureDevice = MediaFormat(name: "a V4L2 capture device", media: .device, demuxer: "v4l2")

    /// Extensions posekit reads itself (PNM images, Y4M video).
    static let directExtensions: Set<String> = ["ppm", "pgm", "pnm", "pbm", "pam", "y4m"]

    /// Extensions read through ffmpeg.
    static let byExtension: [String: MediaFormat] = [
        "jpg": .jpeg, "jpeg": .jpeg, "png": .png, "bmp": .bmp, "gif": .gif, "webp": .webp, "tif": .tiff, "tiff": .tiff,
        "mp4": .mp4, "m4v": .mp4, "mov": .mp4, "mkv": .matroska, "webm": .matroska, "avi": .avi,
        "mpg": .mpeg, "mpeg": .mpeg, "ts": .mpegTransportStream,
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
