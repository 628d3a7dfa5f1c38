import Dispatch
import Foundation

/// The frames of a Y4M video as an `AsyncSequence`, read on demand from a file, a FIFO,
/// standard input or a `FileHandle` (a pipe from a child process such as ffmpeg).
///
///     for try await frame in Y4MFrameSequence(path: "clip.y4m") {
///         print(frame.index, frame.width, frame.height)
///     }
///
/// **Back-pressure.** Nothing is read until the consumer asks for the next frame, and then
/// exactly one frame is read: a slow consumer holds the producer back (a pipe's writer blocks)
/// instead of filling memory. Beyond the frame asked for, at most the byte buffer of the reader
/// (1 MiB) is read ahead.
///
/// **Threads.** The blocking reads run on the sequence's own serial dispatch queue, never on the
/// Swift concurrency pool, so a stream that pauses (a live camera, a slow pipe) never holds up
/// other tasks. A task cancelled while waiting gets `CancellationError` before the next read.
///
/// Each `makeAsyncIterator()` opens the input again (a path is read from the start; a
/// `FileHandle` goes on from where it is). Errors are ``FrameIOError``s naming the frame index
/// reached; every frame before it has been delivered.
public struct Y4MFrameSequence: AsyncSequence, Sendable {
    public typealias Element = VideoFrame

    private let openSource: @Sendable () throws -> ByteSource
    private let limits: FrameLimits

    /// The frames of the Y4M file, FIFO or device at `path` (`"-"` is standard input).
    public init(path: String, limits: FrameLimits = .default) {
        self.openSource = { try ByteSource(path: path) }
        self.limits = limits
    }

    /// The frames read from `fileHandle` (a file or the read end of a `Pipe`). The handle must
    /// stay open while the sequence is read; it is not closed at the end.
    public init(fileHandle: FileHandle, limits: FrameLimits = .default) {
        let descriptor = fileHandle.fileDescriptor
        self.openSource = { [fileHandle] in
            withExtendedLifetime(fileHandle) { ByteSource(fileDescriptor: descriptor, closeOnDeinit: false) }
        }
        self.limits = limits
    }

    public func makeAsyncIterator() -> Iterator { Iterator(reader: FrameReaderState(openSource: openSource, limits: limits)) }

    /// Reads one frame per ``next()``.
    public struct Iterator: AsyncIteratorProtocol {
        let reader: FrameReaderState

        /// The next frame, or nil at the end of the stream (and after an error was thrown).
        public mutating func next() async throws -> VideoFrame? {
            try Task.checkCancellation()
            let reader = self.reader
            return try await withCheckedThrowingContinuation { continuation in
                reader.queue.async { continuation.resume(with: Result { try reader.readFrame() }) }
            }
        }
    }
}

/// The reading state of one ``Y4MFrameSequence/Iterator``. Its mutable state is touched only on
/// `queue` (serial), which is what makes the `@unchecked Sendable` sound.
final class FrameReaderState: @unchecked Sendable {
    let queue = DispatchQueue(label: "posekit.y4m-frames")
    private let openSource: @Sendable () throws -> ByteSource
    private let limits: FrameLimits
    private var reader: Y4MReader?
    private var ended = false

    init(openSource: @escaping @Sendable () throws -> ByteSource, limits: FrameLimits) {
        self.openSource = openSource
        self.limits = limits
    }

    /// Reads one frame (opening the input and its stream header first); call on `queue` only.
    func readFrame() throws -> VideoFrame? {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !ended else { return nil }
        do {
            if reader == nil { reader = try Y4MReader(source: try openSource(), limits: limits) }
            var frame = YUVFrame()
            guard try reader!.read(into: &frame) else {
                ended = true
                reader = nil
                return nil
            }
            return VideoFrame(yuv: frame, conversion: reader!.defaultConversion)
        } catch {
            ended = true
            reader = nil
            throw error
        }
    }
}
