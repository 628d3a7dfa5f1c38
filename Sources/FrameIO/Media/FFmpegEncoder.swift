/// Encodes frames into a media file PoseKit does not write itself (MP4, Matroska, WebM, PNG,
/// JPEG) by running `ffmpeg` as a child process that reads Y4M (video) or PPM (an image) from a
/// pipe, exactly as the README's `... | ffmpeg -f yuv4mpegpipe -i - out.mp4` recipes do.
///
/// ffmpeg writes `file` itself (the temporary file of an ``OutputFile``, renamed into place once
/// ffmpeg has finished), with the muxer named, since that file's name says nothing about it.
final class FFmpegEncoder {
    /// ffmpeg's standard input.
    let input: ByteSink
    private let process: FFmpegProcess

    /// The ffmpeg arguments: read `media` (Y4M or PPM) from standard input, write `format` to `file`;
    /// with `audioFrom` (a video's file), its first audio stream too, encoded for the container
    /// (`-map 1:a:0?`: none when it has none), the output ending with the shorter of the two.
    /// With `grey`, an image is read as PGM and a PNG written 8-bit grey (masks: levels kept exactly).
    static func arguments(format: MediaWriter.EncodedFormat, file: String, audioFrom: String? = nil, grey: Bool = false) -> [String] {
        let input = format.isImage ? ["-f", "image2pipe", "-c:v", grey ? "pgm" : "ppm", "-i", "-"] : ["-f", "yuv4mpegpipe", "-i", "-"]
        let pixels = grey && format == .png ? ["-pix_fmt", "gray"] : []
        var audio: [String] = []
        if let audioFrom, !format.isImage, let codec = format.audioCodec {
            audio = ["-i", "file:" + FFmpeg.absolutePath(audioFrom), "-map", "0:v:0", "-map", "1:a:0?", "-c:a", codec, "-shortest"]
        }
        // -xerror: a failed write of the output (a full disk) ends ffmpeg with a failure status;
        // without it some muxers (Matroska) log the error and exit 0 with a cut file.
        return FFmpeg.commonArguments + ["-xerror"] + input + audio + format.codecArguments + pixels
            + ["-f", format.muxer, "-y", "file:" + FFmpeg.absolutePath(file)]
    }

    /// Starts ffmpeg writing `file` as `format`; `name` is the output as the user named it.
    init(format: MediaWriter.EncodedFormat, file: String, name: String, audioFrom: String? = nil, grey: Bool = false) throws {
        process = try FFmpegProcess(arguments: Self.arguments(format: format, file: file, audioFrom: audioFrom, grey: grey), direction: .writingInput,
                                    missing: .ffmpegMissing(format: format.name, encoding: true),
                                    displayNames: [("file:" + FFmpeg.absolutePath(file), name)])
        input = ByteSink(fileDescriptor: process.pipeDescriptor, closeOnDeinit: true, name: "ffmpeg encoding \(name)")
    }

    /// After the last frame: ends ffmpeg's input and waits until it has written the file; throws
    /// ``FrameIOError/ffmpegFailed(_:)`` when it failed, by its exit status or by an error line
    /// about writing the file (then the ``OutputFile`` is discarded and the old file stays). A write to ffmpeg that failed because it
    /// exited first is reported as ffmpeg's own error.
    func finish() throws {
        do {
            try input.flush()
            input.close()
        } catch {
            throw process.explain(error)
        }
        try process.finish(graceSeconds: 120, writeErrorsFail: true)
    }

    /// After a failed write: ffmpeg's own error, if it failed.
    func explain(_ error: Error) -> Error { process.explain(error) }

    /// Ends ffmpeg now and reaps it; idempotent.
    func stop() {
        process.stop()
        input.close()
    }
}
