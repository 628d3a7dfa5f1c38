import PoseCore

/// The front end of action recognition, one per stream: every person's identity (``/PoseCore/PoseStream``,
/// the same tracking `posekit pose` does, without smoothing), the prominent person
/// (``/PoseCore/ProminentPersonSelector``), and that person's poses at the model's frame rate
/// (``/PoseCore/FrameResampler``). ``ActionEngine`` and action training both read frames through it.
public struct ProminentPersonStream: Sendable {
    private var stream: PoseStream
    private let keypointScore: Double
    private var selector = ProminentPersonSelector()
    private var resampler: FrameResampler

    /// A front end resampling to `fps` frames per second and tracking with `tracking`; throws
    /// ``/PoseCore/PoseDataError/invalidConfiguration(_:)`` for an invalid frame rate or tracking setting.
    public init(fps: Double, tracking: PoseTracker.Configuration = PoseTracker.Configuration()) throws {
        stream = try PoseStream(configuration: PoseStream.Configuration(tracking: tracking, smoothing: false))
        keypointScore = tracking.keypointScore
        resampler = try FrameResampler(fps: fps)
    }

    /// Consumes one frame: its index, its time in seconds and every pose found. Poses that were
    /// tracked already (each has its ``/PoseCore/Pose/id``, as in `posekit pose` output) keep their
    /// identities; otherwise they are tracked here. Returns the prominent person in this frame
    /// and the model-rate slots that are now complete.
    public mutating func push(frameIndex: Int, time: Double, poses: [Pose])
        -> (prominent: TrackedPose?, slots: [ResampledFrame]) {
        let tracked: [TrackedPose]
        if !poses.isEmpty, poses.allSatisfy({ $0.id != nil }) {
            tracked = poses.map { TrackedPose(trackID: $0.id!, pose: $0, box: $0.boundingBox(minimumScore: keypointScore)) }
        } else {
            tracked = stream.process(poses, frameIndex: frameIndex, time: time)
        }
        let prominent = selector.select(tracked, time: time)
        return (prominent, resampler.push(frame: frameIndex, time: time, pose: prominent))
    }
}
