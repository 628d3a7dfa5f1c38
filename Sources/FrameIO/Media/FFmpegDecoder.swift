#if canImport(Glibc)
import Glibc
#endif

/// Decodes a file or device PoseKit cannot read itself (JPEG, PNG, MP4, a webcam, ...) by running
/// `ffmpeg` as a child process, exactly as the README's pipe recipes do, and reading its output
/// (PPM for images, Y4M for video) through a pipe.
///
///     let decoder = try FFmpegDecoder(input: "clip.mp4", format: .mp4)
///     let reader = try FrameReader(source: decoder.output)
///     ... read the frames ...
///     try decoder.finish()        // reaps ffmpeg; throws its most informative stderr line if it failed
///
/// The input is always read as the local file it names, whatever the name looks like to ffmpeg:
/// - it is passed as a `file:` URL of its absolute path, so a name such as `concat:x.mp4`,
///   `pipe:1.jpg` or `http:...` is never taken for a protocol, and `-protocol_whitelist
///   file,pipe` refuses any other protocol a container might point to;
/// - the demuxer is named (`-f`), never probed: probing takes `frame%03d.jpg` for the image2
///   demuxer's numbered sequence and would read `frame000.jpg`, `frame001.jpg`, ... instead.
/// A V4L2 device is opened by the v4l2 demuxer itself, by its absolute path.
final class FFmpegDecoder {
    /// ffmpeg's decoded output (PPM or Y4M).
    let output: ByteSource
    private let process: FFmpegProcess
    /// Feeds ffmpeg's standard input when the media came on a stream.
    private let pump: StreamPump?

    /// The ffmpeg arguments for `input`: the README recipes plus `-nostdin`.
    static func arguments(input: String, format: MediaFormat) -> [String] {
        let path = FFmpeg.absolutePath(input)
        switch format.media {
        case .image: return FFmpeg.commonArguments + ["-f", format.demuxer, "-i", "file:" + path, "-f", "image2pipe", "-c:v", "ppm", "-"]
        case .video: return FFmpeg.commonArguments + ["-f", format.demuxer, "-i", "file:" + path, "-f", "yuv4mpegpipe", "-"]
        case .device: return FFmpeg.commonArguments + ["-f", format.demuxer, "-i", path, "-f", "yuv4mpegpipe", "-"]
        }
    }

    /// Starts `ffmpeg` on `input`; throws ``FrameIOError/ffmpegMissing(_:)`` (naming `format`)
    /// when ffmpeg is not on `PATH`.
    init(input: String, format: MediaFormat) throws {
        process = try FFmpegProcess(arguments: Self.arguments(input: input, format: format), direction: .readingOutput,
                                    missing: .ffmpegMissing(format: format.name, encoding: false),
                                    displayNames: [("file:" + FFmpeg.absolutePath(input), input)])
        output = ByteSource(fileDescriptor: process.pipeDescriptor, closeOnDeinit: true)
        pump = nil
    }

    /// Starts `ffmpeg` on the media `format` that `source` holds (standard input, a pipe, a
    /// `FileHandle`, bytes in memory), recognized from its first bytes `head` (still buffered in
    /// `source`, which ffmpeg then reads in full: ``FFmpegStreamInput``). `name` stands for the
    /// input in ffmpeg's messages.
    init(source: ByteSource, head: [UInt8], format: MediaFormat, name: String) throws {
        guard format.media != .device else { throw FrameIOError.invalidArgument("\(format.name) is read by its device path") }
        let input = try FFmpegStreamInput.prepare(source, head: head, format: format)
        defer { close(input.descriptor) }   // ffmpeg holds its own copy
        let output = format.media == .image ? ["-f", "image2pipe", "-c:v", "ppm", "-"] : ["-f", "yuv4mpegpipe", "-"]
        do {
            process = try FFmpegProcess(arguments: FFmpeg.commonArguments + ["-f", format.demuxer, "-i", input.inputArgument] + output,
                                        direction: .readingOutput, missing: .ffmpegMissing(format: format.name, encoding: false),
                                        displayNames: [(input.inputArgument, name)], standardInput: input.descriptor)
        } catch {
            input.pump?.stop()
            throw error
        }
        self.output = ByteSource(fileDescriptor: process.pipeDescriptor, closeOnDeinit: true)
        pump = input.pump
    }

    deinit { pump?.stop() }

    /// After the last frame: reaps ffmpeg; throws ``FrameIOError/ffmpegFailed(_:)`` when it failed.
    func finish() throws { try process.finish() }

    /// After an input error: ffmpeg's own failure, if any, which explains it better.
    func explain(_ error: Error) -> Error { process.explain(error) }

    /// Ends ffmpeg now (an early stop) and reaps it; idempotent.
    func stop() {
        pump?.stop()
        process.stop()
    }
}
