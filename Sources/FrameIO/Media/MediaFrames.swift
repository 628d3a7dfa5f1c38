import Dispatch
import Foundation

/// The frames of a media input as an `AsyncSequence`: a video or a still image in any format
/// ``MediaReader`` opens (Y4M and PNM directly; MP4, MKV, WebM, JPEG, PNG, ... and V4L2 devices
/// through ffmpeg), read on demand from a file, a FIFO, standard input or a `FileHandle`.
///
///     for try await frame in MediaFrames(path: "clip.mp4") {
///         print(frame.index, frame.time ?? 0, frame.width, frame.height)
///     }
///
/// **Back-pressure.** Nothing is read until the consumer asks for the next frame, and then
/// exactly one frame is read: a slow consumer holds the producer back (a pipe's writer, or
/// ffmpeg, blocks) instead of filling memory.
///
/// **Threads.** The blocking reads run on the sequence's own serial dispatch queue, never on the
/// Swift concurrency pool, so a stream that pauses (a live camera, a slow pipe) never holds up
/// other tasks. A task cancelled while waiting gets `CancellationError` before the next read.
///
/// Each `makeAsyncIterator()` opens the input again (a path is read from the start; a
/// `FileHandle` goes on from where it is). Errors are ``FrameIOError``s naming the input and the
/// frame reached; every frame before them has been delivered. An iterator dropped before the end
/// ends its ffmpeg child, if any.
public struct MediaFrames: AsyncSequence, Sendable {
    /// One decoded frame: a video frame with its index and time, or a still image.
    public typealias Element = VideoFrame

    private let open: @Sendable () throws -> MediaReader

    /// The frames of the file, FIFO or device at `path` (`"-"` is standard input, recognized from
    /// its first bytes as a file is).
    public init(path: String, limits: FrameLimits = .default) {
        open = { try MediaReader(path: path, limits: limits) }
    }

    /// The frames read from `fileHandle` (a file or the read end of a `Pipe`): PNM or Y4M read
    /// directly, other media (JPEG, PNG, MP4, ...) recognized from their first bytes and decoded by ffmpeg.
    /// The handle must stay open while the sequence is read; it is not closed at the end.
    public init(fileHandle: FileHandle, name: String = "input", limits: FrameLimits = .default) {
        let descriptor = fileHandle.fileDescriptor
        open = { [fileHandle] in
            try withExtendedLifetime(fileHandle) {
                try MediaReader(source: ByteSource(fileDescriptor: descriptor, closeOnDeinit: false), name: name, limits: limits)
            }
        }
    }

    /// The frames of media bytes held in memory (PNM or Y4M directly; JPEG, PNG, MP4, ... through ffmpeg).
    public init(bytes: [UInt8], name: String = "input", limits: FrameLimits = .default) {
        open = { try MediaReader(source: ByteSource(bytes: bytes), name: name, limits: limits) }
    }

    /// A new pass over the input: it is opened (ffmpeg started, if needed) on the first `next()`.
    public func makeAsyncIterator() -> Iterator { Iterator(state: MediaFramesState(open: open)) }

    /// Reads one frame per ``next()``.
    public struct Iterator: AsyncIteratorProtocol {
        let state: MediaFramesState

        /// The next frame, or nil at the end of the input (and after an error was thrown).
        public mutating func next() async throws -> VideoFrame? {
            try Task.checkCancellation()
            let state = self.state
            return try await withCheckedThrowingContinuation { continuation in
                state.queue.async { continuation.resume(with: Result { try state.readFrame() }) }
            }
        }
    }
}

/// The reading state of one ``MediaFrames/Iterator``. Its mutable state is touched only on
/// `queue` (serial), which is what makes the `@unchecked Sendable` sound.
final class MediaFramesState: @unchecked Sendable {
    let queue = DispatchQueue(label: "posekit.media-frames")
    private let open: @Sendable () throws -> MediaReader
    private var reader: MediaReader?
    private var ended = false

    init(open: @escaping @Sendable () throws -> MediaReader) { self.open = open }

    deinit { reader?.close() }

    /// Reads one frame (opening the input first); call on `queue` only.
    func readFrame() throws -> VideoFrame? {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !ended else { return nil }
        do {
            if reader == nil { reader = try open() }
            guard let frame = try reader!.next() else {
                ended = true
                reader = nil
                return nil
            }
            return frame
        } catch {
            ended = true
            reader = nil
            throw error
        }
    }
}

/// The frames of a Y4M video: ``MediaFrames``, which reads Y4M and every other format.
@available(*, deprecated, renamed: "MediaFrames")
public typealias Y4MFrameSequence = MediaFrames
