/// The one front end of every video stream: identities (``PoseTracker``) and, with smoothing on,
/// One-Euro-filtered keypoints (``PoseSmoother``). `posekit pose`, `posekit actions`, the
/// library's `PoseDetector.poses(from:)` (PoseNet) and action training all run frames through
/// it, with the same settings, so a person has the same identity wherever it is computed.
/// One instance per input stream: IDs start at 1 in each.
public struct PoseStream: Sendable {
    /// Frame rate assumed when a stream has none (a Y4M without `F` or with `F0:0`, pose lines
    /// without `"time"`, an action model that does not say): the usual camera rate. The one
    /// fallback of PoseKit: tracking, smoothing, resampling, the overlay video's header
    /// (FrameIO's `Ratio.fallbackFrameRate`) and the command's help all read it here.
    public static let fallbackFrameRate = 30.0

    /// What the stream does with each frame's poses.
    public struct Configuration: Sendable, Equatable {
        /// How identities are given (duplicates, confident and weak poses, track lifetime).
        public var tracking: PoseTracker.Configuration
        /// Smooth keypoints over time (`posekit pose`'s default; `actions` works on raw keypoints,
        /// since smoothing delays turning points).
        public var smoothing: Bool

        public init(tracking: PoseTracker.Configuration = PoseTracker.Configuration(), smoothing: Bool = true) {
            self.tracking = tracking
            self.smoothing = smoothing
        }
    }

    private var tracker: PoseTracker
    private var smoother: PoseSmoother?

    /// A stream with `configuration`; throws ``PoseDataError/invalidConfiguration(_:)`` for an invalid one.
    public init(configuration: Configuration) throws {
        tracker = try PoseTracker(configuration: configuration.tracking)
        if configuration.smoothing {
            smoother = PoseSmoother()
            smoother!.trackedBoxKeypointScore = configuration.tracking.keypointScore   // the tracker's boxes size the people
        }
    }

    /// A stream with the default tracking.
    public init(smoothing: Bool) {
        // The default configuration is valid (PoseTrackerTests checks it).
        self = try! PoseStream(configuration: Configuration(smoothing: smoothing))
    }

    /// The time used for tracking and smoothing: the frame's time stamp, or the frame index at
    /// `frameRate` (``fallbackFrameRate`` unless told, as `posekit actions --fps` does) when the
    /// stream has no frame rate.
    public static func trackingTime(frameIndex: Int, time: Double?, frameRate: Double = fallbackFrameRate) -> Double {
        time ?? Double(frameIndex) / frameRate
    }

    /// One frame's poses (best first) → the poses that are people, in the same order, each with
    /// its identity (``TrackedPose/trackID``, also its pose's ``Pose/id``); duplicates and weak
    /// poses no person's track takes are left out (``PoseTracker``).
    public mutating func process(_ poses: [Pose], frameIndex: Int, time: Double?) -> [TrackedPose] {
        let t = Self.trackingTime(frameIndex: frameIndex, time: time)
        var tracked = tracker.update(poses: poses, time: t)
        if smoother != nil { tracked = smoother!.smooth(tracked, time: t, liveTrackIDs: tracker.liveTrackIDs) }
        for i in tracked.indices { tracked[i].pose.id = tracked[i].trackID }
        return tracked
    }
}
