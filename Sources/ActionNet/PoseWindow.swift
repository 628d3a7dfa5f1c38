import PoseCore

/// A run of ``length`` model-rate frames the classifier labels as a whole.
public struct PoseWindow: Sendable {
    /// The frames, oldest first; empty slots pad a window made from a too-short stream.
    public var frames: [ResampledFrame]
    /// Model frames per window.
    public var length: Int { frames.count }

    public init(frames: [ResampledFrame]) { self.frames = frames }

    /// Fraction of frames that hold a pose.
    public var realPoseFraction: Double {
        frames.isEmpty ? 0 : Double(frames.lazy.filter { $0.pose != nil }.count) / Double(frames.count)
    }

    /// The track most frames belong to.
    public var dominantTrackID: Int? {
        var counts: [Int: Int] = [:]
        for f in frames { if let id = f.trackID { counts[id, default: 0] += 1 } }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }

    /// Keypoints scoring lower are treated as not found (all three channels 0).
    public static let keypointGate = 0.2

    /// Channels per frame: 17 keypoints × (x, y, found). A window's poses are read through their
    /// set's COCO-17 map (``/PoseCore/Pose/subscript(_:)``): any body set, never a hand.
    public static let channels = BodyPart.count * 3

    /// The classifier input, layout **TC** (`[length, 51]`, channel fastest; channel `3k` = x,
    /// `3k+1` = y, `3k+2` = 1 when keypoint `k` scored at least ``keypointGate``, else
    /// all three are 0).
    ///
    /// Coordinates are normalized per window: translated so the mean hip center is the origin and
    /// divided by the median torso length (shoulder center to hip center; the median box height
    /// / 3 when the torso is not visible), then clamped to ±4. So the features do not depend on
    /// where the person stands or how far they are, but keep their motion within the window
    /// (a jump moves every point up). Empty frames are all zeros.
    ///
    /// The window is also mirrored, when needed, so the person faces +x (`facesLeft(_:)`): a
    /// squat seen from the left and from the right are then the same input, which halves what
    /// the classifier must learn from one side-view clip. Mirroring flips x and swaps left and
    /// right keypoints, so the result is a real mirror image.
    public func features() -> [Float] {
        var out = [Float](repeating: 0, count: frames.count * Self.channels)
        let poses = frames.compactMap { $0.pose }
        guard let frame = Self.normalization(poses) else { return out }
        let flip = Self.facesLeft(poses) ? -1.0 : 1.0
        for (t, f) in frames.enumerated() {
            guard let pose = f.pose else { continue }
            for part in BodyPart.allCases {
                let kp = pose[part]   // through the pose's COCO-17 map
                // Scores are gated, not passed on: PoseNet's score levels differ from video to
                // video (and from the synthetic data), whether a part was found does not.
                guard kp.score >= Self.keypointGate else { continue }
                let base = t * Self.channels + 3 * (flip < 0 ? part.mirrored : part).rawValue
                out[base] = Float(max(-4, min(4, flip * (kp.position.x - frame.center.x) / frame.scale)))
                out[base + 1] = Float(max(-4, min(4, (kp.position.y - frame.center.y) / frame.scale)))
                out[base + 2] = 1
            }
        }
        return out
    }

    /// Whether the person looks towards −x over these poses: the nose is ahead of the ears (of
    /// the shoulders when no ear is found) in the direction the face points. In a frontal view
    /// the sum is near zero and either answer is harmless (mirroring keeps the figure valid).
    static func facesLeft(_ poses: [Pose]) -> Bool {
        var sum = 0.0
        for p in poses where p[.nose].score >= keypointGate {
            let ears = [p[.leftEar], p[.rightEar]].filter { $0.score >= keypointGate }
            if !ears.isEmpty {
                sum += p[.nose].position.x - ears.map(\.position.x).reduce(0, +) / Double(ears.count)
            } else if p[.leftShoulder].score >= keypointGate || p[.rightShoulder].score >= keypointGate {
                let sh = [p[.leftShoulder], p[.rightShoulder]].filter { $0.score >= keypointGate }
                sum += p[.nose].position.x - sh.map(\.position.x).reduce(0, +) / Double(sh.count)
            }
        }
        return sum < 0
    }

    /// Center (mean hip center) and scale (median torso length) of a set of poses.
    static func normalization(_ poses: [Pose]) -> (center: Point, scale: Double)? {
        guard !poses.isEmpty else { return nil }
        var cx = 0.0, cy = 0.0
        var torsos: [Double] = [], heights: [Double] = []
        for p in poses {
            let hip = p.midpoint(.leftHip, .rightHip)
            cx += hip.x; cy += hip.y
            let sh = p.midpoint(.leftShoulder, .rightShoulder)
            let torsoScore = min(p[.leftHip].score + p[.rightHip].score, p[.leftShoulder].score + p[.rightShoulder].score) / 2
            if torsoScore >= 0.2 { torsos.append(hip.squaredDistance(to: sh).squareRoot()) }
            heights.append(p.boundingBox(minimumScore: 0.3).height)
        }
        let center = Point(x: cx / Double(poses.count), y: cy / Double(poses.count))
        var scale = torsos.count * 2 >= poses.count ? Median.of(torsos) : Median.of(heights) / 3
        if !(scale > 1e-6) { scale = max(Median.of(heights) / 3, 1e-6) }
        return (center, scale)
    }
}

extension Pose {
    /// Midpoint of two keypoints' positions.
    func midpoint(_ a: BodyPart, _ b: BodyPart) -> Point {
        let p = self[a].position, q = self[b].position
        return Point(x: (p.x + q.x) / 2, y: (p.y + q.y) / 2)
    }
}
