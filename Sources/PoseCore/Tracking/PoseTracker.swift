import Foundation

/// A pose with the identity of the person it belongs to.
public struct TrackedPose: Sendable, Equatable {
    /// Stable identifier of the person across frames (1, 2, 3, ... in order of first appearance;
    /// never reused within one tracker).
    public var trackID: Int
    public var pose: Pose
    /// Box around the pose's confident keypoints (image pixels).
    public var box: BoundingBox
    /// The pose's place in the poses given to ``PoseTracker/update(poses:time:)``.
    public var sourceIndex: Int?

    public init(trackID: Int, pose: Pose, box: BoundingBox) {
        self.trackID = trackID; self.pose = pose; self.box = box
    }
}

/// Gives each person a stable identity across the frames of one stream: the `"id"` of
/// `posekit pose`, the person `posekit actions` follows, ``PoseStream``'s tracks.
///
/// Each frame goes through four steps:
/// 1. **Duplicates out.** A pose that shares ``Configuration/duplicateKeypoints`` keypoints
///    with a better pose of the same frame is a weaker copy of that person (``DuplicatePoses``).
/// 2. **Confident poses first.** Poses scoring at least ``Configuration/confidentPoseScore``
///    are linked to the live tracks by an optimal assignment (`optimalAssignment(rows:columns:cost:forbidden:)`)
///    on ``PoseSimilarity``: keypoints of the head and torso, which a swinging arm or leg does
///    not move, compared with where the track's person is predicted to be now.
/// 3. **Weak poses second.** The tracks left over that were seen in the last 0.2 s are
///    linked to the weaker poses the same way, so a person half hidden or blurred for a few frames
///    keeps their identity (ByteTrack's idea).
/// 4. **New people.** A confident pose with ``Configuration/minimumKeypoints`` confident keypoints
///    that no track took starts a new track, unless it lies inside a person already placed in the
///    frame (a partial second assembly of that body). A weak pose never starts one: it is
///    dropped, and so are the faint false poses multi-person decoding finds on furniture.
///
/// A track lives ``Configuration/maximumAge`` seconds unmatched (a short miss or a person
/// walking behind another keeps the identity); at most ``Configuration/maximumTracks`` live at
/// once (the longest unseen goes first), so memory stays bounded on endless streams. IDs are
/// never reused; time going backwards (a new stream) drops every track.
public struct PoseTracker: Sendable {
    /// The tracker's settings; the defaults are `posekit`'s and the library's
    /// (TF.js pose-detection's tracker config names the same knobs `maxTracks`, `maxAge`, `minSimilarity`).
    public struct Configuration: Sendable, Equatable {
        /// Most tracks alive at once (TF.js `maxTracks`).
        public var maximumTracks = 20
        /// Seconds a track lives without a matching pose (TF.js `maxAge`, 1 s).
        public var maximumAge = 1.0
        /// Smallest ``PoseSimilarity`` that links a pose to a track (TF.js `minSimilarity` 0.15).
        public var minimumSimilarity = 0.15
        /// Poses scoring at least this are linked first and may start a track.
        public var confidentPoseScore = 0.2
        /// Poses scoring below this, or with a non-finite score or keypoint, are ignored.
        public var minimumPoseScore = 0.05
        /// Confident keypoints a pose needs to start a track. TF.js compares poses from 4 on
        /// (`minNumberOfKeypoints`); 5 keeps a body split into two partial poses from starting a second person.
        public var minimumKeypoints = 5
        /// A keypoint is confident from this score on (TF.js `keypointConfidenceThreshold` 0.3).
        public var keypointScore = 0.3
        /// Keypoints within ``duplicateRadius`` of a better pose's that make a pose its duplicate;
        /// nil keeps duplicates.
        public var duplicateKeypoints: Int? = 4
        /// The duplicate radius, as a fraction of the better pose's box diagonal.
        public var duplicateRadius = 0.1

        public init() {}

        /// Throws ``PoseDataError/invalidConfiguration(_:)`` naming the first invalid setting.
        public func validate() throws {
            func fail(_ s: String) -> PoseDataError { .invalidConfiguration(s) }
            guard (1...1000).contains(maximumTracks) else { throw fail("maximum tracks \(maximumTracks) not in 1...1000") }
            guard maximumAge.isFinite, maximumAge > 0, maximumAge <= 3600 else {
                throw fail("maximum track age \(maximumAge) s not in (0, 3600]: a track must outlive its own frame")
            }
            for (name, value) in [("minimum similarity", minimumSimilarity), ("confident pose score", confidentPoseScore),
                                  ("minimum pose score", minimumPoseScore), ("keypoint score", keypointScore)]
            where !(0...1).contains(value) {
                throw fail("\(name) \(value) not in 0...1")
            }
            guard minimumPoseScore <= confidentPoseScore else {
                throw fail("minimum pose score \(minimumPoseScore) above the confident pose score \(confidentPoseScore)")
            }
            guard (0...BodyPart.count).contains(minimumKeypoints) else { throw fail("minimum keypoints \(minimumKeypoints) not in 0...17") }
            if let duplicateKeypoints, !(1...BodyPart.count).contains(duplicateKeypoints) {
                throw fail("duplicate keypoints \(duplicateKeypoints) not in 1...17")
            }
            guard duplicateRadius.isFinite, duplicateRadius >= 0 else { throw fail("duplicate radius \(duplicateRadius) not ≥ 0") }
        }
    }

    struct Track {
        var id: Int
        var pose: Pose
        /// The box around all keypoints of ``pose`` (``PoseSimilarity``'s box term), kept with it.
        var box: BoundingBox
        /// Size of the person's torso (``PoseSimilarity/bodyScale(_:keypointScore:)``), smoothed.
        var scale: Double
        /// Velocity of the head and torso, pixels per second.
        var velocity = Point(x: 0, y: 0)
        var lastSeen: Double
        var matches = 1
    }

    public let configuration: Configuration
    private var tracks: [Track] = []
    private var nextID = 1
    private var lastTime: Double?
    /// Seconds a track may have gone unseen and still be carried on by a weak pose (a few frames).
    static let weakPoseReach = 0.2
    /// The velocity prediction extrapolates at most this many seconds: beyond it a noisy velocity
    /// misleads more than it helps (a squatting person hidden for half a second has turned round).
    static let maximumPrediction = 0.2

    /// A tracker with `configuration`; throws ``PoseDataError/invalidConfiguration(_:)`` for an invalid one.
    public init(configuration: Configuration = Configuration()) throws {
        try configuration.validate()
        self.configuration = configuration
    }

    /// IDs of the tracks alive after the last ``update(poses:time:)``.
    public var liveTrackIDs: [Int] { tracks.map(\.id) }

    /// Gives one frame's poses their identities. Returns the poses that belong to a person, in
    /// the order given: duplicates, ignored poses and weak poses no track took are left out.
    /// A non-finite `time` is ignored (no poses); an earlier time than the last drops every track.
    public mutating func update(poses: [Pose], time: Double) -> [TrackedPose] {
        guard time.isFinite else { return [] }
        if let lastTime, time < lastTime { tracks.removeAll() }
        lastTime = time
        tracks.removeAll { time - $0.lastSeen > configuration.maximumAge }

        let order = poses.indices.filter { isUsable(poses[$0]) }
            .sorted { poses[$0].score > poses[$1].score || (poses[$0].score == poses[$1].score && $0 < $1) }
            .prefix(PoseJSONLinesDecoder.maximumPosesPerFrame)   // the most a frame may hold; the rest are ignored
        let kept = DuplicatePoses.keeping(from: order.map { poses[$0] }, sharing: configuration.duplicateKeypoints,
                                          radius: configuration.duplicateRadius, keypointScore: configuration.keypointScore)
        let candidates = kept.map { order[order.startIndex + $0.index] }
        let confident = candidates.filter { poses[$0].score >= configuration.confidentPoseScore }
        let weak = candidates.filter { poses[$0].score < configuration.confidentPoseScore }
        // Each candidate's two boxes, computed once: around its confident keypoints (the duplicate
        // rule measured it; the fragment test and the result use it) and around all its keypoints
        // (similarity to every track, and the body scale of the track it joins or starts).
        var boxes: [Int: BoundingBox] = [:], fullBoxes: [Int: BoundingBox] = [:]
        for (p, candidate) in zip(candidates, kept) {
            boxes[p] = candidate.box
            fullBoxes[p] = poses[p].boundingBox(minimumScore: 0)
        }

        var trackOfPose: [Int: Int] = [:]
        let allTracks = Array(tracks.indices)
        link(confident, among: poses, boxes: fullBoxes, to: allTracks, time: time, into: &trackOfPose)
        // Weak poses only carry on a track seen just before: a person lost for a while comes
        // back with a confident pose, never with a faint one that may be anything.
        let carriedOn = allTracks.filter { t in
            !trackOfPose.values.contains(t) && time - tracks[t].lastSeen <= Self.weakPoseReach
        }
        link(weak, among: poses, boxes: fullBoxes, to: carriedOn, time: time, into: &trackOfPose)

        var idOfPose: [Int: Int] = [:]
        for (p, t) in trackOfPose {
            tracks[t].follow(poses[p], box: fullBoxes[p]!, time: time, keypointScore: configuration.keypointScore)
            idOfPose[p] = tracks[t].id
        }
        // Best first, so a fragment is compared with the people already placed in this frame.
        for p in confident where trackOfPose[p] == nil && confidentKeypoints(poses[p]) >= configuration.minimumKeypoints {
            // Only a pose of the same set can be a piece of another: a hand in front of a body is a hand.
            let isFragment = idOfPose.keys.contains { other in
                poses[other].keypointSet == poses[p].keypointSet && Self.fractionInside(boxes[p]!, boxes[other]!) >= Self.fragmentOverlap
            }
            if !isFragment { idOfPose[p] = startTrack(poses[p], box: fullBoxes[p]!, time: time) }
        }
        return poses.indices.compactMap { p in
            idOfPose[p].map {
                var tracked = TrackedPose(trackID: $0, pose: poses[p], box: boxes[p]!)
                tracked.sourceIndex = p
                return tracked
            }
        }
    }

    /// Links `candidates` (indices into `poses`, with their `boxes` around all keypoints) to
    /// `trackIndices` by optimal assignment on similarity.
    private func link(_ candidates: [Int], among poses: [Pose], boxes: [Int: BoundingBox], to trackIndices: [Int], time: Double,
                      into trackOfPose: inout [Int: Int]) {
        guard !candidates.isEmpty, !trackIndices.isEmpty else { return }
        var cost = [Double](repeating: 1, count: trackIndices.count * candidates.count)
        for (row, t) in trackIndices.enumerated() {
            let track = tracks[t]
            let unseen = time - track.lastSeen
            let lead = min(unseen, Self.maximumPrediction)
            let shift = Point(x: track.velocity.x * lead, y: track.velocity.y * lead)
            for (column, p) in candidates.enumerated() {
                let similarity = PoseSimilarity.similarity(of: track.pose, box: track.box, shiftedBy: shift, scale: track.scale,
                                                           unseen: unseen, to: poses[p], box: boxes[p]!,
                                                           keypointScore: configuration.keypointScore)
                cost[row * candidates.count + column] = similarity >= configuration.minimumSimilarity ? 1 - similarity : 2
            }
        }
        let assignment = optimalAssignment(rows: trackIndices.count, columns: candidates.count, cost: cost, forbidden: 1.5)
        for (row, column) in assignment.enumerated() {
            if let column { trackOfPose[candidates[column]] = trackIndices[row] }
        }
    }

    private mutating func startTrack(_ pose: Pose, box: BoundingBox, time: Double) -> Int {
        if tracks.count >= configuration.maximumTracks, let oldest = tracks.indices.min(by: { tracks[$0].lastSeen < tracks[$1].lastSeen }) {
            tracks.remove(at: oldest)
        }
        let id = nextID
        nextID += 1
        tracks.append(Track(id: id, pose: pose, box: box,
                            scale: PoseSimilarity.bodyScale(pose, box: box, keypointScore: configuration.keypointScore), lastSeen: time))
        return id
    }

    /// A pose whose box lies this much inside the box of a person of the same frame is a second,
    /// partial assembly of that person's body (a head found at the knees), not a new person.
    static let fragmentOverlap = 0.7

    /// The fraction of `inner`'s area that lies inside `outer` (0 for an empty `inner`).
    static func fractionInside(_ inner: BoundingBox, _ outer: BoundingBox) -> Double {
        let w = min(inner.maxX, outer.maxX) - max(inner.minX, outer.minX)
        let h = min(inner.maxY, outer.maxY) - max(inner.minY, outer.minY)
        guard w > 0, h > 0, inner.area > 0 else { return 0 }
        return w * h / inner.area
    }

    private func isUsable(_ pose: Pose) -> Bool {
        pose.score.isFinite && pose.score >= configuration.minimumPoseScore
            && pose.keypoints.allSatisfy { $0.position.x.isFinite && $0.position.y.isFinite && $0.score.isFinite }
    }

    private func confidentKeypoints(_ pose: Pose) -> Int {
        pose.keypoints.reduce(0) { $0 + ($1.score >= configuration.keypointScore ? 1 : 0) }
    }
}

extension PoseTracker.Track {
    /// Moves the track to its newly matched pose (`box`: around all its keypoints) and updates the
    /// velocity and size estimates.
    mutating func follow(_ newPose: Pose, box newBox: BoundingBox, time: Double, keypointScore: Double) {
        let dt = time - lastSeen
        if dt > 0, let moved = PoseSimilarity.displacement(from: pose, to: newPose, keypointScore: keypointScore) {
            let measured = Point(x: moved.x / dt, y: moved.y / dt)
            // The first step sets the velocity; later ones average (keypoints jitter).
            let weight = matches == 1 ? 1.0 : 0.5
            velocity.x += weight * (measured.x - velocity.x)
            velocity.y += weight * (measured.y - velocity.y)
        }
        scale += 0.5 * (PoseSimilarity.bodyScale(newPose, box: newBox, keypointScore: keypointScore) - scale)
        pose = newPose
        box = newBox
        lastSeen = time
        matches += 1
    }
}
