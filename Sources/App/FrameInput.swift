import ArgumentParser
import FrameIO
import PoseCore
#if canImport(Glibc)
import Glibc
#endif

/// Opens one input of `pose`, `actions` or `eval` for its frames: PNM and Y4M (and `-`, standard
/// input) are read directly; any other image or video file, or a V4L2 capture device, is decoded
/// by ffmpeg as a child process (`FFmpegDecoder`) whose output is read the same way.
enum FrameInput {
    /// Calls `body` with a reader over the frames of `input` and returns its result. With ffmpeg,
    /// its failure becomes the error (`ffmpeg: <its most informative stderr line>`), and it is always ended
    /// and reaped before this returns or throws.
    static func withFrames<T>(of input: String, _ body: (FrameReader) throws -> T) throws -> T {
        guard let format = try ffmpegFormat(of: input) else {
            let reader: FrameReader
            do {
                reader = try FrameReader(source: ByteSource(path: input))
            } catch let error as FrameIOError where input == "-" {
                guard case .wrongMagic = error else { throw error }
                // Piped media cannot be handed to ffmpeg once its first bytes are read: say how to pipe it.
                throw CLIError("\(error); other media on standard input need decoding first (ffmpeg -i - -f yuv4mpegpipe - | posekit ... -), or give the file's path")
            }
            return try body(reader)
        }
        let decoder = try FFmpegDecoder(input: input, format: format)
        do {
            let result = try body(FrameReader(source: decoder.output))
            try decoder.finish()
            return result
        } catch let error as FrameIOError where !endsTheRun(error) {
            throw decoder.explain(error)   // an empty or cut stream: ffmpeg's own error says why
        } catch {
            decoder.stop()
            throw error
        }
    }

    /// The format to decode with ffmpeg, or nil for what posekit reads itself (PNM, Y4M,
    /// standard input, and anything unrecognized, which then fails with the usual message).
    static func ffmpegFormat(of input: String) throws -> MediaFormat? {
        guard input != "-" else { return nil }
        var info = stat()
        guard FileName.status(input, &info) else { return nil }
        if (info.st_mode & S_IFMT) == S_IFCHR, isVideoForLinux(device: info.st_rdev) { return .captureDevice }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let head = try ByteSource(path: input, bufferSize: 64).peek(16)
        if (try? InputFormat.sniff(ByteSource(bytes: head))) != nil { return nil }
        return MediaFormat.sniff(head) ?? MediaFormat.forExtension(of: input)
    }

    /// Video4Linux character devices have major number 81 (/dev/video0, ...).
    private static func isVideoForLinux(device: dev_t) -> Bool {
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
        return major == 81
    }
}

extension FrameInput {
    /// Runs `body`, which reads `input`; an input error that does not name it gets `input: ` in
    /// front (for commands that report one input's error themselves; as `CLIError.reading`).
    /// Errors that end the run (a stop signal, a reader gone, a failed write) and usage errors
    /// pass unchanged.
    static func namingErrors<T>(of input: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch {
            if endsTheRun(error) || error is ValidationError || error is ExitCode { throw error }
            let text = CLIError.describe(error)
            throw CLIError(text.contains(input) && !(error is FFmpegFailure) ? text : "\(input): \(text)")
        }
    }
}
