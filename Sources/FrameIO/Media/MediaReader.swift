import PoseCore
#if canImport(Glibc)
import Glibc
#endif

/// The frames of one media input, read one at a time: PNM images and Y4M video (a file, a FIFO or
/// standard input, `"-"`) are read directly; any other image or video (JPEG, PNG, MP4, MKV, WebM,
/// ...: a file, or recognized from its first bytes on standard input or a stream) and a V4L2
/// capture device (`/dev/video0`) are decoded by `ffmpeg` as a child process (``MediaFormat``),
/// whose output is read the same way.
///
///     let reader = try MediaReader(path: "clip.mp4")
///     while let frame = try reader.next() {
///         print(frame.index, frame.time ?? 0, frame.width, frame.height)
///     }
///
/// **Errors** name the input as given (`clip.mp4: ffmpeg: Invalid data found when processing
/// input`, `photo.ppm: pnm: input ends inside frame 0 (1024 of 921600 bytes)`); every frame read
/// before an error has been delivered. ffmpeg missing from `PATH` is
/// ``FrameIOError/ffmpegMissing(format:encoding:)``, naming the format and how to install it.
/// A stop signal (``InputCancellation``) ends a blocked read with ``FrameIOError/interrupted(signal:)``.
///
/// **ffmpeg's lifetime.** The child is reaped at the end of the input (its failure is then the
/// error), by ``close()``, and at the latest when the reader is deallocated: no zombie is left.
///
/// A reader is not thread-safe; ``MediaFrames`` reads one on its own serial queue.
public final class MediaReader {
    /// The input as given (`"-"` is standard input).
    public let path: String
    /// How the frames arrive: `.y4m` for video (directly or from ffmpeg), `.pnm` for still images.
    public let format: InputFormat
    /// Frames per second of a video input (nil for images and streams without a rate, `F0:0`).
    public var frameRate: Ratio? {
        guard let rate = y4m?.header.frameRate, !rate.isUnknown else { return nil }
        return rate
    }

    private let y4m: Y4MReader?
    private let pnm: PNMReader?
    private var decoder: FFmpegDecoder?
    private var imageIndex = 0
    private var ended = false

    /// Opens `path`. Throws a ``FrameIOError`` naming it when it cannot be opened, is neither
    /// PNM/Y4M nor a format ffmpeg can be asked to decode, or ffmpeg cannot be started. `"-"`
    /// (standard input) is recognized from its first bytes as a path is: PNM and Y4M are read
    /// directly, JPEG, PNG, MP4 and the rest go through ffmpeg (`cat photo.jpg | posekit pose -`).
    public init(path: String, limits: FrameLimits = .default) throws {
        self.path = path
        do {
            if let media = try MediaFormat.decodedByFFmpeg(path) {
                let decoder = try FFmpegDecoder(input: path, format: media)
                self.decoder = decoder
                do {
                    (format, y4m, pnm) = try Self.open(decoder.output, limits: limits)
                } catch {
                    throw decoder.explain(error)   // ffmpeg wrote nothing: its own error says why
                }
            } else {
                (format, y4m, pnm, decoder) = try Self.open(stream: ByteSource(path: path), name: Self.displayName(path), limits: limits)
            }
        } catch {
            throw FrameIOError.naming(Self.displayName(path), error)
        }
    }

    /// How errors name `path`: `"-"` is "standard input".
    static func displayName(_ path: String) -> String { path == "-" ? "standard input" : path }

    /// Reads `source` (a pipe, a `FileHandle`, bytes in memory); `name` stands for it in errors.
    /// PNM and Y4M are read directly; media ffmpeg decodes (JPEG, PNG, MP4, ...) are recognized
    /// from their first bytes and handed to an ffmpeg child, which then reads the source in full.
    public init(source: ByteSource, name: String, limits: FrameLimits = .default) throws {
        path = name
        do {
            (format, y4m, pnm, decoder) = try Self.open(stream: source, name: name, limits: limits)
        } catch {
            throw FrameIOError.naming(name, error)
        }
    }

    /// A stream's reader: directly for PNM and Y4M, else through ffmpeg when its first bytes name
    /// a format ffmpeg decodes.
    private static func open(stream source: ByteSource, name: String, limits: FrameLimits)
        throws -> (InputFormat, Y4MReader?, PNMReader?, FFmpegDecoder?) {
        do {
            let (format, y4m, pnm) = try open(source, limits: limits)
            return (format, y4m, pnm, nil)
        } catch FrameIOError.unknownFormat(let start) {
            guard let media = MediaFormat.sniff(start), media.media != .device else { throw FrameIOError.unknownFormat(start: start) }
            // An MP4's first boxes say whether its index comes first (ffmpeg can read it front to back).
            let head = media == .mp4 ? try source.peek(64 << 10) : start
            let decoder = try FFmpegDecoder(source: source, head: head, format: media, name: name)
            do {
                let (format, y4m, pnm) = try open(decoder.output, limits: limits)
                return (format, y4m, pnm, decoder)
            } catch {
                throw decoder.explain(error)
            }
        }
    }

    deinit { decoder?.stop() }

    private static func open(_ source: ByteSource, limits: FrameLimits) throws -> (InputFormat, Y4MReader?, PNMReader?) {
        switch try InputFormat.sniff(source) {
        case .y4m: return (.y4m, try Y4MReader(source: source, limits: limits), nil)
        case .pnm: return (.pnm, nil, PNMReader(source: source, limits: limits))
        }
    }

    /// The next frame, or nil at the end of the input (and after an error was thrown).
    public func next() throws -> VideoFrame? {
        guard !ended else { return nil }
        do {
            if let y4m {
                var yuv = YUVFrame()   // a buffer of its own: the frame outlives the next read
                if try y4m.read(into: &yuv) {
                    return VideoFrame(yuv: yuv, conversion: y4m.defaultConversion, frameRate: frameRate)
                }
            } else if let pnm {
                var image = RGBImage()
                if try pnm.read(into: &image) {
                    imageIndex += 1
                    return VideoFrame(image: image, index: imageIndex - 1)
                }
            }
            ended = true
            try decoder?.finish()
            return nil
        } catch let error as FrameIOError where error.endsTheRun {
            ended = true
            decoder?.stop()
            throw error
        } catch {
            ended = true
            throw FrameIOError.naming(Self.displayName(path), decoder?.explain(error) ?? error)
        }
    }

    /// Stops reading now: ends and reaps ffmpeg, if any. Idempotent.
    public func close() {
        ended = true
        decoder?.stop()
    }
}
