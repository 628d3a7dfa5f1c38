import Foundation

/// A pose with the identity of the person it belongs to.
public struct TrackedPose: Sendable {
    /// Stable identifier of the person across frames (1, 2, 3, ... in order of first appearance;
    /// never reused within one tracker).
    public var trackID: Int
    public var pose: Pose
    /// Box around the pose's confident keypoints (image pixels).
    public var box: BoundingBox

    public init(trackID: Int, pose: Pose, box: BoundingBox) {
        self.trackID = trackID; self.pose = pose; self.box = box
    }
}

/// Gives each person a stable identity across the frames of one stream; used by `posekit pose`
/// (the `"id"` of each pose) and by the action engine (which person to analyze).
///
/// Each track remembers its person's last box, keypoints and velocity. A new frame's poses are
/// compared with every live track's *predicted* position (last position moved on by its
/// velocity, so two people crossing paths are told apart by where they were heading) using
/// the mean of two similarities in 0...1: box IoU and an OKS-like keypoint similarity. The best
/// pairs are linked first (greedy, each track and pose used once) down to ``minimumSimilarity``;
/// poses left over start new tracks with fresh IDs.
///
/// A track survives ``maximumGap`` seconds unmatched (a person missed for a few frames, or
/// hidden by someone walking past, keeps their ID). A scene cut, where nothing lands near a
/// live track, gives everyone new IDs. IDs are never reused; time going backwards starts over
/// with fresh IDs.
public struct PoseTracker: Sendable {
    /// Smallest similarity (mean of box IoU and keypoint similarity) that links a pose to a track.
    public var minimumSimilarity: Double = 0.2
    /// Seconds a track may go unmatched before it is dropped.
    public var maximumGap: Double = 0.5
    /// Poses scoring below this are ignored (decoder noise); 0 tracks every pose.
    public var minimumPoseScore: Double = 0.15
    /// Keypoints below this score do not shape the box or the keypoint similarity.
    public var boxKeypointScore: Double = 0.3
    /// Keypoint similarity falls to e^-1/2 at this fraction of the box diagonal.
    public var keypointTolerance: Double = 0.1
    /// The velocity prediction extrapolates at most this many seconds (beyond it the track waits
    /// where it was last heading; a long extrapolation of a noisy velocity only misleads).
    public var maximumPrediction: Double = 0.2

    struct Track {
        var id: Int
        var box: BoundingBox
        var pose: Pose
        /// Box-center velocity, pixels per second.
        var velocityX = 0.0, velocityY = 0.0
        var lastSeen: Double
        var matches = 1
    }
    private var tracks: [Track] = []
    private var nextID = 1

    public init() {}

    /// IDs of the tracks alive after the last ``update(poses:time:)``.
    public var liveTrackIDs: [Int] { tracks.map(\.id) }

    /// Assigns track IDs to one frame's poses (in the order given, low-score poses dropped).
    public mutating func update(poses: [Pose], time: Double) -> [TrackedPose] {
        tracks.removeAll { time - $0.lastSeen > maximumGap || time < $0.lastSeen }
        let kept = poses.filter { $0.score >= minimumPoseScore }
        let boxes = kept.map { $0.boundingBox(minimumScore: boxKeypointScore) }
        var pairs: [(similarity: Double, track: Int, pose: Int)] = []
        for (t, track) in tracks.enumerated() {
            let lead = min(time - track.lastSeen, maximumPrediction)
            let dx = track.velocityX * lead, dy = track.velocityY * lead
            let predicted = BoundingBox(minX: track.box.minX + dx, minY: track.box.minY + dy,
                                        maxX: track.box.maxX + dx, maxY: track.box.maxY + dy)
            for (p, box) in boxes.enumerated() {
                let similarity = 0.5 * Self.intersectionOverUnion(predicted, box)
                    + 0.5 * keypointSimilarity(track.pose, shiftedBy: (dx, dy), scale: predicted, kept[p])
                if similarity >= minimumSimilarity { pairs.append((similarity, t, p)) }
            }
        }
        pairs.sort { $0.similarity > $1.similarity }
        var trackOfPose = [Int?](repeating: nil, count: kept.count)
        var trackTaken = [Bool](repeating: false, count: tracks.count)
        for pair in pairs where !trackTaken[pair.track] && trackOfPose[pair.pose] == nil {
            trackTaken[pair.track] = true
            trackOfPose[pair.pose] = pair.track
        }
        var result: [TrackedPose] = []
        result.reserveCapacity(kept.count)
        for p in kept.indices {
            let id: Int
            if let t = trackOfPose[p] {
                tracks[t].follow(to: boxes[p], pose: kept[p], time: time)
                id = tracks[t].id
            } else {
                id = nextID
                nextID += 1
                tracks.append(Track(id: id, box: boxes[p], pose: kept[p], lastSeen: time))
            }
            result.append(TrackedPose(trackID: id, pose: kept[p], box: boxes[p]))
        }
        return result
    }

    /// Mean over keypoints confident in both poses of `exp(-d² / 2σ²)`, σ = ``keypointTolerance``
    /// × the box diagonal; 0 when they share no confident keypoint.
    func keypointSimilarity(_ old: Pose, shiftedBy shift: (Double, Double), scale box: BoundingBox, _ new: Pose) -> Double {
        let sigma = keypointTolerance * max((box.width * box.width + box.height * box.height).squareRoot(), 1)
        var total = 0.0, count = 0
        for (a, b) in zip(old.keypoints, new.keypoints) where a.score >= boxKeypointScore && b.score >= boxKeypointScore {
            let dx = a.position.x + shift.0 - b.position.x, dy = a.position.y + shift.1 - b.position.y
            total += exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
            count += 1
        }
        return count > 0 ? total / Double(count) : 0
    }

    /// Box intersection over union, 0 for empty or disjoint boxes.
    public static func intersectionOverUnion(_ a: BoundingBox, _ b: BoundingBox) -> Double {
        let w = min(a.maxX, b.maxX) - max(a.minX, b.minX)
        let h = min(a.maxY, b.maxY) - max(a.minY, b.minY)
        guard w > 0, h > 0 else { return 0 }
        let inter = w * h
        let union = max(a.area, 0) + max(b.area, 0) - inter
        return union > 0 ? inter / union : 0
    }
}

extension PoseTracker.Track {
    /// Moves the track to its newly matched pose and updates the velocity estimate.
    mutating func follow(to newBox: BoundingBox, pose newPose: Pose, time: Double) {
        let dt = time - lastSeen
        if dt > 0 {
            let vx = ((newBox.minX + newBox.maxX) - (box.minX + box.maxX)) / (2 * dt)
            let vy = ((newBox.minY + newBox.maxY) - (box.minY + box.maxY)) / (2 * dt)
            // The first step sets the velocity; later ones average (box centers jitter).
            let weight = matches == 1 ? 1.0 : 0.5
            velocityX += weight * (vx - velocityX)
            velocityY += weight * (vy - velocityY)
        }
        box = newBox
        pose = newPose
        lastSeen = time
        matches += 1
    }
}
