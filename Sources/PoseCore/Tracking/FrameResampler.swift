import Foundation

/// One frame at the model's frame rate: the nearest input frame's prominent pose, or none.
public struct ResampledFrame: Sendable {
    /// Index at the model rate, counted from the stream's first frame.
    public var slot: Int
    /// Model-rate time: first input time + slot / fps.
    public var time: Double
    /// The input frame this slot was taken from (the nearest in time).
    public var sourceFrame: Int
    /// The prominent person's pose, or nil when there was none near this time (zero-filled).
    public var pose: Pose?
    /// The prominent person's track ID when `pose` is set.
    public var trackID: Int?

    /// A frame of a window you make yourself (ActionNet's `ActionRecognizer.classify(_:imageWidth:imageHeight:)`): slot `k` of a
    /// window at the model's rate, with the person's pose at that time (nil when nobody was seen).
    public init(slot: Int, time: Double, sourceFrame: Int, pose: Pose?, trackID: Int? = nil) {
        self.slot = slot; self.time = time; self.sourceFrame = sourceFrame; self.pose = pose; self.trackID = trackID
    }
}

/// Resamples a stream at any (even variable) frame rate to the model's rate by timestamp.
///
/// Slot `k` sits at `t₀ + k / fps`; it takes the input frame nearest in time if that frame is
/// within ``maximumHold`` seconds, else it is empty. 24000/1001 fps input thus repeats every
/// fourth frame, 29.29 fps input drops about one frame in forty, and a gap (dropped frames, a
/// stall) becomes empty slots, which the window's real-pose fraction then sees.
public struct FrameResampler: Sendable {
    public let fps: Double
    /// Farthest an input frame may be from a slot's time and still fill it.
    public var maximumHold: Double = 0.1
    /// Longest gap filled with empty slots; beyond it the stream skips ahead (bounded output).
    public var maximumFilledGap: Double = 5

    private var origin: Double?
    private var nextSlot = 0
    private var previous: (frame: Int, time: Double, pose: TrackedPose?)?

    public init(fps: Double) throws {
        guard fps.isFinite, fps >= 1, fps <= 1000 else { throw PoseDataError.invalidConfiguration("model fps \(fps) not in 1...1000") }
        self.fps = fps
    }

    /// Feeds one input frame; returns the model-rate slots whose time has now been passed.
    /// Frames whose time does not increase are ignored.
    public mutating func push(frame: Int, time: Double, pose: TrackedPose?) -> [ResampledFrame] {
        guard time.isFinite else { return [] }
        if origin == nil { origin = time }
        if let prev = previous, time <= prev.time { return [] }
        let t0 = origin!
        if let prev = previous, time - prev.time > maximumFilledGap {
            // Skip the middle of a long gap: keep filling only its last `maximumFilledGap` seconds.
            let skipTo = Int(((time - maximumFilledGap - t0) * fps).rounded(.up))
            nextSlot = max(nextSlot, skipTo)
        }
        var out: [ResampledFrame] = []
        while t0 + Double(nextSlot) / fps <= time + 1e-9 {
            let slotTime = t0 + Double(nextSlot) / fps
            var chosen = (frame: frame, time: time, pose: pose)
            if let prev = previous, abs(prev.time - slotTime) < abs(time - slotTime) { chosen = prev }
            let near = abs(chosen.time - slotTime) <= maximumHold + 1e-9
            let p = near ? chosen.pose : nil
            out.append(ResampledFrame(slot: nextSlot, time: slotTime, sourceFrame: chosen.frame, pose: p?.pose, trackID: p?.trackID))
            nextSlot += 1
        }
        previous = (frame, time, pose)
        return out
    }
}
