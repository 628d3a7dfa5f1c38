import FrameIO
import PoseCore

/// Where annotated frames go: a `MediaWriter` (`--overlay`), or a viewer's own sink.
public protocol AnnotatedFrameSink: AnyObject {
    /// Writes `image`, the annotated `frame`.
    func write(_ image: RGBImage, of frame: VideoFrame) throws
}

extension MediaWriter: AnnotatedFrameSink {}

/// The one per-frame write loop of every frame command (`pose`, `pose --hands`, `hands`,
/// `actions`; `view` runs it with its own sinks): each processed frame's JSON lines become one
/// record of `json`, its drawing a frame of `overlay`, then progress is counted and a stop signal
/// checked. While the stream waits for its next frame, the lines written so far go out.
///
///     try await FrameLoop(json: sink, overlay: writer, flushed: [sink], progress: reporter).run(iterator) { frame, text in
///         PoseJSONLinesEncoder.append(..., to: &text)         // the frame's lines
///     } draw: { frame, image in
///         PoseOverlay().draw(frame.poses, on: &image)           // only with an overlay
///     }
public struct FrameLoop {
    /// Where each frame's JSON lines go (one record per frame, also when it has none); nil: none.
    public var json: ByteSink?
    /// Where annotated frames go; nil: none (`draw` is then never called).
    public var overlay: (any AnnotatedFrameSink)?
    /// What is flushed while the stream waits (the JSON Lines and the overlay's bytes).
    public var flushed: [ByteSink] = []
    /// Counts frames and dropped frames; nil: no progress.
    public var progress: ProgressReporter?

    /// A loop writing into `json` and `overlay`, flushing `flushed` while the stream waits and
    /// counting frames in `progress`.
    public init(json: ByteSink?, overlay: (any AnnotatedFrameSink)?, flushed: [ByteSink] = [], progress: ProgressReporter?) {
        self.json = json
        self.overlay = overlay
        self.flushed = flushed
        self.progress = progress
    }

    /// Runs `frames` to its end. `lines` appends a frame's JSON lines to the text (and may throw
    /// to end the stream); `draw` draws the frame's overlay on its image.
    public func run<Frames: FrameIterator, Output>(
        _ frames: Frames, lines: (ProcessedFrame<Output>, inout JSONText) throws -> Void,
        draw: (ProcessedFrame<Output>, inout RGBImage) -> Void = { _, _ in }
    ) async throws where Frames.Element == ProcessedFrame<Output> {
        var frames = frames
        let flushed = self.flushed
        // A failure to flush resurfaces on the next write.
        frames.whenWaiting = { for sink in flushed { try? sink.flush() } }
        var text = JSONText()
        while let frame = try await frames.next() {
            text.reset()
            try lines(frame, &text)
            if let json {
                if !text.bytes.isEmpty { try text.bytes.withUnsafeBytes { try json.write($0) } }
                try json.endRecord()
            }
            if let overlay {
                var image = frame.frame.rgb()
                draw(frame, &image)
                try overlay.write(image, of: frame.frame)
            }
            progress?.frameDone(dropped: frame.droppedBefore)
            try InputCancellation.check()
        }
    }
}

/// A stream's iterator that can flush while it waits (`whenWaiting`): the pose stream's, the
/// tracked stream's (body and hands) and the model-agnostic one's (hands).
public protocol FrameIterator: AsyncIteratorProtocol {
    /// Called while the stream waits for its next frame (the lines written so far go out).
    var whenWaiting: (() -> Void)? { get set }
}

extension PoseFrameSequence.Iterator: FrameIterator {}
extension TrackedFrameSequence.Iterator: FrameIterator {}
extension FrameSequence.Iterator: FrameIterator {}
