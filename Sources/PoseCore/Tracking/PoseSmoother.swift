/// Smooths tracked poses over time: a ``OneEuroFilter`` per identity, keypoint and axis, for
/// poses of any ``KeypointSet`` (a track whose set changes starts its filters again).
///
/// The speed coefficient is scaled to the person's size: speeds are measured in box diagonals
/// per second (the diagonal of the box around the confident keypoints, itself smoothed), so a
/// person near the camera and one far away get the same smoothing for the same body motion.
/// Time comes from the stream's time stamps, so dropped frames and variable frame rates are
/// smoothed over the real interval.
///
/// Defaults (measured, docs/cli.md "Smoothing"): still keypoints are smoothed at 0.5 Hz; the cutoff
/// rises by 8 Hz per diagonal/s of speed, which keeps the added lag under one frame at 30 fps
/// for exercise-speed motion.
public struct PoseSmoother: Sendable {
    /// Cutoff (Hz) for a still keypoint.
    public var minimumCutoff: Double = 0.5
    /// Cutoff increase (Hz) per box diagonal per second of keypoint speed.
    public var speedCoefficient: Double = 8
    /// Cutoff (Hz) of the speed estimate.
    public var derivativeCutoff: Double = 1
    /// Keypoints below this score do not shape the size estimate.
    public var sizeKeypointScore: Double = 0.3

    struct PersonFilters {
        var x: [OneEuroFilter]
        var y: [OneEuroFilter]
        var diagonal: Double
        var lastTime: Double
    }
    private var people: [Int: PersonFilters] = [:]
    /// The keypoint score the boxes of the tracked poses given to it were measured at
    /// (``TrackedPose/box``; ``PoseStream`` sets its tracker's): when it is
    /// ``sizeKeypointScore``, the size estimate takes that box instead of measuring it again.
    var trackedBoxKeypointScore: Double?

    public init() {}

    /// Smooths one frame's tracked poses (keypoint positions; scores pass unchanged) and
    /// forgets the people not in `liveTrackIDs` (the tracker's, so memory stays bounded).
    public mutating func smooth(_ tracked: [TrackedPose], time: Double, liveTrackIDs: [Int]) -> [TrackedPose] {
        let live = Set(liveTrackIDs)
        people = people.filter { live.contains($0.key) }
        return tracked.map { smooth($0, time: time) }
    }

    /// Smooths one person's pose at `time`.
    public mutating func smooth(_ tracked: TrackedPose, time: Double) -> TrackedPose {
        let box = trackedBoxKeypointScore == sizeKeypointScore ? tracked.box : tracked.pose.boundingBox(minimumScore: sizeKeypointScore)
        let diagonal = max((box.width * box.width + box.height * box.height).squareRoot(), 1)
        let count = tracked.pose.keypoints.count
        var person = people[tracked.trackID].flatMap { $0.x.count == count ? $0 : nil } ?? PersonFilters(
            x: Array(repeating: filter(), count: count),
            y: Array(repeating: filter(), count: count),
            diagonal: diagonal, lastTime: time)
        // The size changes slowly; a one-frame box jump (a missed ankle) must not swing the
        // speed scale, so it follows the measured diagonal with the still-keypoint cutoff.
        let dt = time - person.lastTime
        if dt > 0 {
            person.diagonal += OneEuroFilter.smoothingFactor(cutoff: minimumCutoff, dt: dt) * (diagonal - person.diagonal)
        }
        person.lastTime = time
        let coefficient = speedCoefficient / person.diagonal
        var result = tracked
        for k in 0..<count {
            person.x[k].speedCoefficient = coefficient
            person.y[k].speedCoefficient = coefficient
            let p = tracked.pose.keypoints[k].position
            result.pose.keypoints[k].position = Point(x: person.x[k].filter(p.x, time: time),
                                                      y: person.y[k].filter(p.y, time: time))
        }
        result.box = result.pose.boundingBox(minimumScore: sizeKeypointScore)
        people[tracked.trackID] = person
        return result
    }

    private func filter() -> OneEuroFilter {
        OneEuroFilter(minimumCutoff: minimumCutoff, speedCoefficient: 0, derivativeCutoff: derivativeCutoff)
    }
}
