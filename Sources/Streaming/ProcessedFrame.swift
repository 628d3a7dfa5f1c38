import FrameIO

/// One frame of a stream with what a ``FrameModel`` found in it: what ``FrameSequence``
/// delivers (poses streams make ``DetectedFrame``s of these, hands streams deliver them as they are).
public struct ProcessedFrame<Output: Sendable>: Sendable {
    /// The frame as it was read (draw on ``/FrameIO/VideoFrame/rgb()`` for an overlay).
    public var frame: VideoFrame
    /// What the model found in the frame, in its pixels.
    public var output: Output
    /// Frames dropped before this one because they arrived while the previous was being
    /// processed (only when late frames are dropped; otherwise 0).
    public var droppedBefore: Int

    /// A frame and what was found in it (for a model or a test of your own; streams make these).
    public init(frame: VideoFrame, output: Output, droppedBefore: Int = 0) {
        self.frame = frame
        self.output = output
        self.droppedBefore = droppedBefore
    }

    /// Zero-based index of the frame in its stream.
    public var index: Int { frame.index }
    /// Seconds from the first frame; nil for still images and streams without a frame rate.
    public var time: Double? { frame.time }
    /// Width of the frame in pixels.
    public var width: Int { frame.width }
    /// Height of the frame in pixels.
    public var height: Int { frame.height }
}
