import PoseNet

/// A pose with the identity of the person it belongs to.
public struct TrackedPose: Sendable {
    /// Stable identifier of the person across frames (1, 2, 3, ... in order of first appearance).
    public var trackID: Int
    public var pose: Pose
    /// Box around the pose's confident keypoints (image pixels).
    public var box: BoundingBox
}

/// Links each frame's poses to the people seen in earlier frames (greedy box-IoU matching).
///
/// Every pose is matched to the live track whose last box overlaps it most (IoU ≥
/// ``minimumIoU``), best pairs first; unmatched poses start new tracks. A track survives
/// ``maximumGap`` seconds without a match, so a person missed for a few frames keeps their ID,
/// while a sudden cut (nothing overlaps) starts fresh IDs.
public struct PoseTracker: Sendable {
    /// Smallest box IoU that links a pose to a track.
    public var minimumIoU: Double = 0.2
    /// Seconds a track may go unmatched before it is dropped.
    public var maximumGap: Double = 0.5
    /// Poses scoring below this are ignored (decoder noise).
    public var minimumPoseScore: Double = 0.15
    /// Keypoints below this score do not shape the box.
    public var boxKeypointScore: Double = 0.3

    struct Track { var id: Int; var box: BoundingBox; var lastSeen: Double }
    private var tracks: [Track] = []
    private var nextID = 1

    public init() {}

    /// Assigns track IDs to one frame's poses (in the order given, low-score poses dropped).
    public mutating func update(poses: [Pose], time: Double) -> [TrackedPose] {
        tracks.removeAll { time - $0.lastSeen > maximumGap || time < $0.lastSeen }
        let kept = poses.filter { $0.score >= minimumPoseScore }
        let boxes = kept.map { $0.boundingBox(minimumScore: boxKeypointScore) }
        var pairs: [(iou: Double, track: Int, pose: Int)] = []
        for (t, track) in tracks.enumerated() {
            for (p, box) in boxes.enumerated() {
                let iou = Self.intersectionOverUnion(track.box, box)
                if iou >= minimumIoU { pairs.append((iou, t, p)) }
            }
        }
        pairs.sort { $0.iou > $1.iou }
        var trackOfPose = [Int?](repeating: nil, count: kept.count)
        var trackTaken = [Bool](repeating: false, count: tracks.count)
        for pair in pairs where !trackTaken[pair.track] && trackOfPose[pair.pose] == nil {
            trackTaken[pair.track] = true
            trackOfPose[pair.pose] = pair.track
        }
        var result: [TrackedPose] = []
        for p in kept.indices {
            let id: Int
            if let t = trackOfPose[p] {
                tracks[t].box = boxes[p]
                tracks[t].lastSeen = time
                id = tracks[t].id
            } else {
                id = nextID
                nextID += 1
                tracks.append(Track(id: id, box: boxes[p], lastSeen: time))
            }
            result.append(TrackedPose(trackID: id, pose: kept[p], box: boxes[p]))
        }
        return result
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

/// Picks the person to analyse: the largest box (Apple's rule), with hysteresis.
///
/// The current choice is kept until another person's box has been at least ``switchRatio``
/// times larger for ``switchDuration`` seconds, or until the current person has been absent for
/// ``lostAfter`` seconds; so two people of similar size do not make the choice flicker.
public struct ProminentPersonSelector: Sendable {
    public var switchRatio: Double = 1.3
    public var switchDuration: Double = 0.5
    public var lostAfter: Double = 0.25

    private var current: Int?
    private var currentLastSeen = -Double.infinity
    private var challenger: Int?
    private var challengerSince = 0.0

    public init() {}

    /// The current prominent track ID (nil until someone is seen).
    public var currentTrackID: Int? { current }

    /// Chooses among one frame's tracked poses; returns the prominent one, or nil when the
    /// prominent person is not in this frame.
    public mutating func select(_ candidates: [TrackedPose], time: Double) -> TrackedPose? {
        guard let largest = candidates.max(by: { $0.box.area < $1.box.area }) else {
            if time - currentLastSeen > lostAfter { current = nil }
            challenger = nil
            return nil
        }
        guard let cur = current, let mine = candidates.first(where: { $0.trackID == cur }) else {
            // No current person, or they are missing: wait `lostAfter` before switching.
            if current == nil || time - currentLastSeen > lostAfter {
                current = largest.trackID
                currentLastSeen = time
                challenger = nil
                return largest
            }
            return nil
        }
        currentLastSeen = time
        if largest.trackID != cur && largest.box.area > switchRatio * mine.box.area {
            if challenger != largest.trackID { challenger = largest.trackID; challengerSince = time }
            if time - challengerSince >= switchDuration {
                current = largest.trackID
                challenger = nil
                return largest
            }
        } else {
            challenger = nil
        }
        return mine
    }
}
