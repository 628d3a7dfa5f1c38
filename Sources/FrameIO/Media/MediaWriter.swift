import PoseCore
import Foundation

/// Writes frames (annotated overlays) to a path, as its extension asks:
///
/// | path | written as |
/// |---|---|
/// | `.y4m`, or `-`, a FIFO or a device, for video | a Y4M stream (4:2:0, the input's frame rate) |
/// | `.ppm` / `.pnm`, or `-`, a FIFO or a device, for images | PPM images, one after another |
/// | `.mp4`, `.m4v`, `.mov`, `.mkv`, `.webm` | video encoded by ffmpeg (H.264 in MP4 and Matroska, VP9 in WebM) |
/// | `.png`, `.jpg`, `.jpeg` | one image encoded by ffmpeg |
///
/// Anything else is refused by ``init(path:realtime:)`` (and by ``check(path:)``, before any work).
/// A regular file is written through an ``OutputFile``: the destination is replaced only by a
/// complete file (``output``'s commit; for ffmpeg, once it has finished writing).
///
///     let writer = try MediaWriter(path: "overlay.mp4")
///     try OutputFile.committing([writer.output]) {
///         for try await frame in MediaFrames(path: "clip.y4m") {
///             var image = frame.rgb()
///             PoseOverlay().draw(poses, on: &image)
///             try writer.write(image, of: frame)
///         }
///     }
///
/// The first frame decides the stream: video frames (at their frame rate, `Ratio.fallbackFrameRate`
/// when unknown) or still images; later frames must be of the same kind and size.
public final class MediaWriter {
    /// A format written through ffmpeg.
    struct EncodedFormat: Equatable {
        let name: String
        let muxer: String
        let codecArguments: [String]
        let isImage: Bool
        /// The audio encoder for audio copied from the input (nil: images).
        var audioCodec: String? { isImage ? nil : (muxer == "webm" ? "libopus" : "aac") }

        static let mp4 = EncodedFormat(name: "an MP4 video", muxer: "mp4",
                                       codecArguments: ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"], isImage: false)
        static let mov = EncodedFormat(name: "a QuickTime video", muxer: "mov",
                                       codecArguments: ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"], isImage: false)
        static let matroska = EncodedFormat(name: "a Matroska video", muxer: "matroska",
                                            codecArguments: ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"], isImage: false)
        static let webm = EncodedFormat(name: "a WebM video", muxer: "webm",
                                        codecArguments: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1", "-pix_fmt", "yuv420p"],
                                        isImage: false)
        static let png = EncodedFormat(name: "a PNG image", muxer: "image2", codecArguments: ["-frames:v", "1", "-c:v", "png"], isImage: true)
        static let jpeg = EncodedFormat(name: "a JPEG image", muxer: "image2", codecArguments: ["-frames:v", "1", "-c:v", "mjpeg", "-q:v", "2"], isImage: true)

        static let byExtension: [String: EncodedFormat] = [
            "mp4": .mp4, "m4v": .mp4, "mov": .mov, "mkv": .matroska, "webm": .webm, "png": .png, "jpg": .jpeg, "jpeg": .jpeg,
        ]
    }

    /// How the frames are written.
    private enum Kind {
        /// Y4M or PPM bytes into ``output``'s sink.
        case raw
        /// Encoded by ffmpeg into ``output``'s temporary file.
        case encoded(EncodedFormat)
    }

    /// Extensions written as they are, without ffmpeg.
    static let rawExtensions: Set<String> = ["y4m", "ppm", "pnm"]

    /// The output as given (named in errors).
    public let path: String
    /// The file written: commit it (``OutputFile/committing(_:after:)-4urfn``) to keep what was written.
    public let output: OutputFile
    private let kind: Kind
    private var y4m: Y4MWriter?
    private var ppm: PPMWriter?
    private var encoder: FFmpegEncoder?
    private var framesWritten = 0
    /// A media file whose audio an encoded video output gets (`posekit pose --overlay clip.mp4`
    /// keeps the clip's sound); set before the first frame. Ignored for raw Y4M and images.
    public var audioSource: String?

    /// Throws a ``FrameIOError`` naming `path` unless frames can be written there: `-`, a FIFO or
    /// device, or a file whose extension is one of the table above.
    public static func check(path: String) throws {
        _ = try kind(of: path)
    }

    private static func kind(of path: String) throws -> Kind {
        if OutputFile.standardStream(named: path) != nil { return .raw }
        var info = stat()
        let exists = stat(path, &info) == 0
        let isStream = exists && (info.st_mode & S_IFMT) != S_IFREG && (info.st_mode & S_IFMT) != S_IFDIR
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        if rawExtensions.contains(ext) { return .raw }
        if let format = EncodedFormat.byExtension[ext] {
            guard !isStream else {
                throw FrameIOError.file(path: path, .invalidArgument("ffmpeg writes \(format.name) into a regular file, and this is a pipe or device; write .y4m or .ppm to it instead"))
            }
            return .encoded(format)
        }
        if isStream { return .raw }
        throw FrameIOError.file(path: path, .invalidArgument(
            "cannot write frames as \(ext.isEmpty ? "a file without an extension" : "." + ext); use .mp4, .mkv, .webm, .mov, .m4v, .png or .jpg (encoded by ffmpeg), .y4m or .ppm, or - for standard output"))
    }

    /// Grey pictures (masks): an image ffmpeg encodes is handed to it as PGM and a PNG is written
    /// 8-bit grey (`-pix_fmt gray`), each level kept exactly; frames are grey RGB (R = G = B).
    let grey: Bool

    /// Opens `path` for writing (`"-"`: standard output); `realtime` sends every raw frame on at once.
    public convenience init(path: String, realtime: Bool = false) throws {
        try self.init(path: path, realtime: realtime, grey: false)
    }

    /// ``init(path:realtime:)``, with `grey` pictures (see ``grey``).
    init(path: String, realtime: Bool = false, grey: Bool) throws {
        self.path = path
        self.grey = grey
        kind = try Self.kind(of: path)
        output = try OutputFile(path: path, realtime: realtime)
        if case .encoded = kind {
            output.beforeCommit = { [unowned self] in try self.encoder?.finish() }
            output.onDiscard = { [unowned self] in self.encoder?.stop() }
        }
    }

    /// Appends `image`, the picture of `frame` (its rate and whether it is a still image decide
    /// the stream). Throws when frames of another kind or size were written before.
    public func write(_ image: RGBImage, of frame: VideoFrame) throws {
        switch kind {
        case .raw:
            try writeRaw(image, of: frame)
        case .encoded(let format):
            guard !format.isImage || (framesWritten == 0 && frame.isStillImage) else {
                throw FrameIOError.file(path: path, .invalidArgument(
                    "\(format.name) holds one picture, and this input \(frame.isStillImage ? "has more" : "is a video"); write video to .mp4, .mkv, .webm or .y4m"))
            }
            if encoder == nil {
                guard let temporary = output.temporaryPath else {
                    throw FrameIOError.file(path: path, .invalidArgument("ffmpeg needs a regular file to write \(format.name)"))
                }
                encoder = try FFmpegEncoder(format: format, file: temporary, name: path, audioFrom: audioSource, grey: grey)
                output.isWrittenElsewhere = true
            }
            do {
                if format.isImage && grey {
                    var levels = [UInt8](repeating: 0, count: image.width * image.height)
                    image.pixels.withUnsafeBufferPointer { rgb in
                        for i in 0..<levels.count { levels[i] = rgb[3 * i] }   // R = G = B
                    }
                    try encoder!.input.write(Array("P5\n\(image.width) \(image.height)\n255\n".utf8) + levels)
                } else if format.isImage {
                    try encoder!.input.write(PPMWriter.encode(image))
                } else {
                    try writeY4M(image, of: frame, into: encoder!.input)
                }
                try encoder!.input.endRecord()
            } catch let error as FrameIOError where error == .brokenPipe {
                throw FrameIOError.naming(path, encoder!.explain(error))   // ffmpeg quit: its own words say why
            }
        }
        framesWritten += 1
    }

    private func writeRaw(_ image: RGBImage, of frame: VideoFrame) throws {
        if frame.isStillImage {
            guard y4m == nil else { throw mixed() }
            if ppm == nil { ppm = PPMWriter(sink: output.sink) }
            try ppm!.write(image)
        } else {
            try writeY4M(image, of: frame, into: output.sink)
        }
        try output.sink.endRecord()
    }

    /// Y4M (C420) at the stream's rate; the first frame sets the size.
    private func writeY4M(_ image: RGBImage, of frame: VideoFrame, into sink: ByteSink) throws {
        guard ppm == nil else { throw mixed() }
        if y4m == nil {
            y4m = Y4MWriter(sink: sink, width: image.width, height: image.height, frameRate: frame.frameRate ?? .fallbackFrameRate)
        }
        guard y4m!.header.width == image.width, y4m!.header.height == image.height else {
            throw FrameIOError.file(path: path, .invalidArgument(
                "a frame is \(image.width)x\(image.height) but the video written is \(y4m!.header.width)x\(y4m!.header.height)"))
        }
        try y4m!.write(image)
    }

    private func mixed() -> FrameIOError {
        .file(path: path, .invalidArgument("cannot mix video frames and still images in one output"))
    }
}
