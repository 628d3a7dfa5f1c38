import Foundation
import PoseCore
#if canImport(Glibc)
import Glibc
#endif

/// An image or video format PoseKit reads through ffmpeg (``MediaReader``), recognized by its
/// first bytes or, failing that, by its file extension; also the extensions a directory of
/// inputs takes.
public struct MediaFormat: Sendable, Equatable {
    /// What a format holds, and so what ffmpeg is asked to produce from it.
    public enum Media: Sendable, Equatable {
        /// A still image: `-f image2pipe -c:v ppm -` (PPM frames).
        case image
        /// A video file: `-f yuv4mpegpipe -` (a Y4M stream).
        case video
        /// A V4L2 capture device such as /dev/video0: `-f v4l2 -i DEVICE -f yuv4mpegpipe -`.
        case device
    }

    /// How errors name it, e.g. "a JPEG image".
    public let name: String
    /// What it holds.
    public let media: Media
    /// The ffmpeg demuxer that reads it (`-f`), never left to ffmpeg's probing: probing picks the
    /// image2 demuxer for a name like `frame%03d.jpg` and expands it as a numbered sequence.
    public let demuxer: String

    /// JPEG (`.jpg`, `.jpeg`; starts `FF D8 FF`).
    public static let jpeg = MediaFormat(name: "a JPEG image", media: .image, demuxer: "jpeg_pipe")
    /// PNG (`.png`; starts `89 50 4E 47 0D 0A 1A 0A`).
    public static let png = MediaFormat(name: "a PNG image", media: .image, demuxer: "png_pipe")
    /// Windows bitmap (`.bmp`; starts `BM`).
    public static let bmp = MediaFormat(name: "a BMP image", media: .image, demuxer: "bmp_pipe")
    /// GIF (`.gif`; starts `GIF87a` or `GIF89a`); its first frame.
    public static let gif = MediaFormat(name: "a GIF image", media: .image, demuxer: "gif")
    /// WebP (`.webp`; `RIFF` then `WEBP`).
    public static let webp = MediaFormat(name: "a WebP image", media: .image, demuxer: "webp_pipe")
    /// TIFF (`.tif`, `.tiff`; starts `II*` or `MM*`).
    public static let tiff = MediaFormat(name: "a TIFF image", media: .image, demuxer: "tiff_pipe")
    /// MP4 and QuickTime (`.mp4`, `.m4v`, `.mov`; an `ftyp`, `moov` or `mdat` box first).
    public static let mp4 = MediaFormat(name: "an MP4/MOV video", media: .video, demuxer: "mov")
    /// Matroska and WebM (`.mkv`, `.webm`; the EBML signature `1A 45 DF A3`).
    public static let matroska = MediaFormat(name: "a Matroska/WebM video", media: .video, demuxer: "matroska")
    /// AVI (`.avi`; `RIFF` then `AVI `).
    public static let avi = MediaFormat(name: "an AVI video", media: .video, demuxer: "avi")
    /// MPEG program stream (`.mpg`, `.mpeg`; a pack header `00 00 01 BA`).
    public static let mpeg = MediaFormat(name: "an MPEG video", media: .video, demuxer: "mpeg")
    /// MPEG transport stream (`.ts`; recognized by its extension only).
    public static let mpegTransportStream = MediaFormat(name: "an MPEG transport stream", media: .video, demuxer: "mpegts")
    /// A Video4Linux capture device (`/dev/video0`): a live camera, read with ffmpeg's `v4l2` input.
    public static let captureDevice = MediaFormat(name: "a V4L2 capture device", media: .device, demuxer: "v4l2")

    /// Extensions posekit reads itself (PNM images, Y4M video).
    public static let directExtensions: Set<String> = ["ppm", "pgm", "pnm", "pbm", "pam", "y4m"]

    /// Whether `path` names a PNM image (read directly, a single image) by its extension; standard
    /// input and other names are only known once their first bytes are read.
    public static func isPNMName(_ path: String) -> Bool {
        ["ppm", "pgm", "pnm", "pbm", "pam"].contains(URL(fileURLWithPath: path).pathExtension.lowercased())
    }

    /// Extensions read through ffmpeg.
    public static let byExtension: [String: MediaFormat] = [
        "jpg": .jpeg, "jpeg": .jpeg, "png": .png, "bmp": .bmp, "gif": .gif, "webp": .webp, "tif": .tiff, "tiff": .tiff,
        "mp4": .mp4, "m4v": .mp4, "mov": .mp4, "mkv": .matroska, "webm": .matroska, "avi": .avi,
        "mpg": .mpeg, "mpeg": .mpeg, "ts": .mpegTransportStream,
    ]

    /// The format whose signature starts `head` (at least 12 bytes when available), or nil.
    public static func sniff(_ head: [UInt8]) -> MediaFormat? {
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

    /// The formats PoseKit reads, for messages: PNM and Y4M itself, the rest through ffmpeg.
    public static let acceptedFormats = "PNM (.ppm, .pgm, .pnm) and Y4M itself, and JPEG, PNG, BMP, GIF, WebP, TIFF, "
        + "MP4/MOV, MKV/WebM, AVI and MPEG through ffmpeg"

    /// Whether ffmpeg must seek to read an MP4/MOV stream that starts with `head`: its index
    /// (the `moov` box) comes after the media data (`mdat`), as in most files not written for
    /// streaming, or `head` ends before either shows. A stream whose `moov` (or first fragment,
    /// `moof`) comes first reads front to back, as from a pipe. Other formats read front to back.
    public static func needsSeeking(_ head: [UInt8], format: MediaFormat) -> Bool {
        guard format == .mp4 else { return false }
        var offset = 0
        while offset + 8 <= head.count {
            let size32 = head[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: head[(offset + 4)..<(offset + 8)], as: UTF8.self)
            switch type {
            case "moov", "moof": return false
            case "mdat": return true
            default: break
            }
            var size = size32
            if size32 == 1 {   // a 64-bit size follows the type
                guard offset + 16 <= head.count else { return true }
                size = head[(offset + 8)..<(offset + 16)].reduce(0) { $0 &<< 8 | Int($1) }
            }
            guard size >= 8, size <= Int.max - offset else { return true }   // 0: to the end; absurd: no index first
            offset += size
        }
        return true
    }

    /// The format its extension names, or nil.
    public static func forExtension(of path: String) -> MediaFormat? {
        byExtension[URL(fileURLWithPath: path).pathExtension.lowercased()]
    }

    /// The format to decode `path` with through ffmpeg, or nil for what PoseKit reads itself (PNM,
    /// Y4M, standard input, and anything unrecognized, which then fails with the readers' message).
    /// A Video4Linux character device is ``captureDevice``; a regular file is recognized by its
    /// first bytes, else by its extension.
    public static func decodedByFFmpeg(_ path: String) throws -> MediaFormat? {
        guard path != "-" else { return nil }
        var info = stat()
        guard FileName.status(path, &info) else { return nil }
        if (info.st_mode & S_IFMT) == S_IFCHR, isVideoForLinux(device: info.st_rdev) { return .captureDevice }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let head = try ByteSource(path: path, bufferSize: 64).peek(16)
        if (try? InputFormat.sniff(ByteSource(bytes: head))) != nil { return nil }
        return sniff(head) ?? forExtension(of: path)
    }

    /// Video4Linux character devices have major number 81 (/dev/video0, ...).
    private static func isVideoForLinux(device: dev_t) -> Bool {
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
        return major == 81
    }

    /// True for a file name a directory argument takes: PNM, Y4M or a format read through ffmpeg.
    public static func isMediaFileName(_ name: String) -> Bool {
        let ext = URL(fileURLWithPath: name).pathExtension.lowercased()
        return directExtensions.contains(ext) || byExtension[ext] != nil
    }
}
