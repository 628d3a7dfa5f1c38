import Foundation

/// How alike a tracked person and a new pose are, in 0...1: the tracker's matching score.
///
/// Two measures, the larger counts:
/// - **Head and torso keypoints** (nose, eyes, ears, shoulders, hips). A jumping jack swings the
///   arms and legs out and triples the box around a person while the torso stays where it was,
///   so a box overlap drops exactly when the motion is fastest; these keypoints do not move.
///   Each one confident in both poses adds `exp(−d² / 2σ²)`, σ half the person's size
///   (``bodyScale(_:keypointScore:)``), as COCO's OKS does with its per-part sigmas. The sum is
///   divided by the shared keypoints, but by at least `minimumEvidence`: one keypoint that
///   happens to coincide is weak evidence, and a track that shares one keypoint with a pose must
///   not outscore one that shares five. Poses sharing no confident stable keypoint are compared
///   on all their keypoints the same way.
/// - **Half the overlap (IoU) of the boxes around all keypoints.** A person seen badly (lying
///   on the floor, blurred) gets keypoints that jump between frames, while the body they are
///   spread over stays put.
public enum PoseSimilarity {
    /// The parts that arm and leg motion does not move (COCO-17; a set without them, a hand,
    /// is compared on all its keypoints).
    static let stableParts: [BodyPart] = [.nose, .leftEye, .rightEye, .leftEar, .rightEar,
                                           .leftShoulder, .rightShoulder, .leftHip, .rightHip]
    /// σ as a fraction of ``bodyScale(_:keypointScore:)``.
    static let tolerance = 0.5
    /// How much σ grows, in torso sizes per second the person has been unseen: where a hidden
    /// person is now is ever less certain (a Kalman filter's growing covariance, in one number).
    static let toleranceGrowth = 1.0
    /// The keypoint measure divides by at least this many shared keypoints.
    static let minimumEvidence = 3
    /// The weight of the box overlap.
    static let boxWeight = 0.5

    /// Similarity of `tracked` moved by `shift` (its predicted motion) to `pose`; `scale` is the
    /// tracked person's size in pixels, `unseen` the seconds since `tracked` was seen.
    public static func similarity(of tracked: Pose, shiftedBy shift: Point, scale: Double, unseen: Double = 0, to pose: Pose,
                                  keypointScore: Double) -> Double {
        similarity(of: tracked, box: tracked.boundingBox(minimumScore: 0), shiftedBy: shift, scale: scale, unseen: unseen,
                   to: pose, box: pose.boundingBox(minimumScore: 0), keypointScore: keypointScore)
    }

    /// ``similarity(of:shiftedBy:scale:unseen:to:keypointScore:)`` with the boxes around all
    /// keypoints of `tracked` and `pose` computed once by the caller (the tracker compares every
    /// track with every pose).
    static func similarity(of tracked: Pose, box trackedBox: BoundingBox, shiftedBy shift: Point, scale: Double, unseen: Double,
                           to pose: Pose, box poseBox: BoundingBox, keypointScore: Double) -> Double {
        let sigma = (tolerance + toleranceGrowth * max(unseen, 0)) * max(scale, 1)
        guard tracked.keypointSet == pose.keypointSet else { return 0 }   // a hand is never a body
        func mean(stableOnly: Bool) -> Double? {
            var total = 0.0, shared = 0
            forEachSharedKeypoint(of: tracked, pose, stableOnly: stableOnly, keypointScore: keypointScore) { a, b in
                let dx = a.x + shift.x - b.x, dy = a.y + shift.y - b.y
                total += exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
                shared += 1
            }
            return shared > 0 ? total / Double(max(shared, minimumEvidence)) : nil
        }
        let keypoints = mean(stableOnly: true) ?? mean(stableOnly: false) ?? 0
        var box = trackedBox
        box.minX += shift.x; box.maxX += shift.x; box.minY += shift.y; box.maxY += shift.y
        return max(keypoints, boxWeight * intersectionOverUnion(box, poseBox))
    }

    /// Calls `body` with the positions in `a` and `b` of each keypoint confident in both: the
    /// ``stableParts`` the set has (through its COCO-17 map), or every keypoint. The poses share
    /// one set.
    @inline(__always)
    static func forEachSharedKeypoint(of a: Pose, _ b: Pose, stableOnly: Bool, keypointScore: Double,
                                      _ body: (Point, Point) -> Void) {
        func visit(_ k: Int) {
            let p = a.keypoints[k], q = b.keypoints[k]
            if p.score >= keypointScore && q.score >= keypointScore { body(p.position, q.position) }
        }
        if stableOnly {
            for part in stableParts { if let k = a.keypointSet.index(of: part) { visit(k) } }
        } else {
            for k in a.keypoints.indices { visit(k) }
        }
    }

    /// Box intersection over union, 0 for empty or disjoint boxes.
    static func intersectionOverUnion(_ a: BoundingBox, _ b: BoundingBox) -> Double {
        let w = min(a.maxX, b.maxX) - max(a.minX, b.minX)
        let h = min(a.maxY, b.maxY) - max(a.minY, b.minY)
        guard w > 0, h > 0 else { return 0 }
        let intersection = w * h
        let union = max(a.area, 0) + max(b.area, 0) - intersection
        return union > 0 ? intersection / union : 0
    }

    /// The person's size in pixels: the distance from the shoulders' midpoint to the hips'
    /// midpoint (or one side's shoulder-to-hip), or 1.5 × the shoulder width, but at least a
    /// quarter of the diagonal of the box around all keypoints. The torso is what limb motion
    /// does not change; the floor keeps the size sane for a body seen end-on or lying down, whose
    /// torso is foreshortened, and for a pose with one or two confident keypoints.
    public static func bodyScale(_ pose: Pose, keypointScore: Double) -> Double {
        bodyScale(pose, box: pose.boundingBox(minimumScore: 0), keypointScore: keypointScore)
    }

    /// ``bodyScale(_:keypointScore:)`` with the box around all keypoints computed by the caller.
    static func bodyScale(_ pose: Pose, box: BoundingBox, keypointScore: Double) -> Double {
        max(torsoLength(pose, keypointScore: keypointScore) ?? 0, (box.width * box.width + box.height * box.height).squareRoot() / 4, 1)
    }

    /// Shoulders to hips, or 1.5 × the shoulder width; nil without such confident keypoints.
    static func torsoLength(_ pose: Pose, keypointScore: Double) -> Double? {
        func at(_ part: BodyPart) -> Point? {
            guard let k = pose.keypoint(part), k.score >= keypointScore else { return nil }
            return k.position
        }
        func distance(_ a: Point, _ b: Point) -> Double { a.squaredDistance(to: b).squareRoot() }
        func midpoint(_ a: Point?, _ b: Point?) -> Point? {
            switch (a, b) {
            case let (a?, b?): return Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
            case let (a?, nil), let (nil, a?): return a
            default: return nil
            }
        }
        let shoulders = midpoint(at(.leftShoulder), at(.rightShoulder)), hips = midpoint(at(.leftHip), at(.rightHip))
        if let shoulders, let hips, distance(shoulders, hips) >= 1 { return distance(shoulders, hips) }
        if let l = at(.leftShoulder), let r = at(.rightShoulder), distance(l, r) >= 1 { return 1.5 * distance(l, r) }
        return nil
    }

    /// How far the person moved from `old` to `new`: the mean displacement of the stable
    /// keypoints confident in both (of all shared confident keypoints when no stable one is);
    /// nil when they share none. Each keypoint is compared with itself, so a hip that appears or
    /// vanishes between the frames does not read as motion.
    public static func displacement(from old: Pose, to new: Pose, keypointScore: Double) -> Point? {
        guard old.keypointSet == new.keypointSet else { return nil }
        func mean(stableOnly: Bool) -> Point? {
            var x = 0.0, y = 0.0, count = 0.0
            forEachSharedKeypoint(of: old, new, stableOnly: stableOnly, keypointScore: keypointScore) { a, b in
                x += b.x - a.x
                y += b.y - a.y
                count += 1
            }
            return count > 0 ? Point(x: x / count, y: y / count) : nil
        }
        return mean(stableOnly: true) ?? mean(stableOnly: false)
    }
}
