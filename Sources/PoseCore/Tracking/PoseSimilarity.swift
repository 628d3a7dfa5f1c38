import Foundation

/// How alike a tracked person and a new pose are, in 0...1: the tracker's matching score.
///
/// Only the head and torso count (nose, eyes, ears, shoulders, hips). A jumping jack swings the
/// arms and legs out and triples the box around a person, while the torso stays where it was,
/// so a box overlap or all-keypoint similarity drops exactly when the motion is fastest.
/// Each stable keypoint confident in both poses adds `exp(−d² / 2σ²)` with σ half the person's
/// torso size (``bodyScale(_:keypointScore:)``), as COCO's OKS does with its per-part sigmas;
/// the sum is divided by the stable keypoints confident in the new pose (as TF.js's keypoint
/// tracker divides by the detection's), so a track that shares one keypoint with the pose does
/// not outscore one that shares five. Poses sharing no confident stable keypoint are compared on
/// all their keypoints the same way; sharing none at all, they are 0 alike.
public enum PoseSimilarity {
    /// The parts that arm and leg motion does not move.
    static let stableParts: [BodyPart] = [.nose, .leftEye, .rightEye, .leftEar, .rightEar,
                                           .leftShoulder, .rightShoulder, .leftHip, .rightHip]
    /// σ as a fraction of ``bodyScale(_:keypointScore:)``.
    static let tolerance = 0.5
    /// How much σ grows, in torso sizes per second the person has been unseen: where a hidden
    /// person is now is ever less certain (a Kalman filter's growing covariance, in one number).
    static let toleranceGrowth = 1.0

    /// Similarity of `tracked` moved by `shift` (its predicted motion) to `pose`; `scale` is the
    /// tracked person's torso size in pixels, `unseen` the seconds since `tracked` was seen.
    public static func similarity(of tracked: Pose, shiftedBy shift: Point, scale: Double, unseen: Double = 0, to pose: Pose,
                                  keypointScore: Double) -> Double {
        let sigma = (tolerance + toleranceGrowth * max(unseen, 0)) * max(scale, 1)
        func mean(over parts: [BodyPart]) -> Double? {
            var total = 0.0, confident = 0
            for part in parts where pose[part].score >= keypointScore {
                confident += 1
                let a = tracked[part], b = pose[part]
                guard a.score >= keypointScore else { continue }
                let dx = a.position.x + shift.x - b.position.x, dy = a.position.y + shift.y - b.position.y
                total += exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
            }
            return total > 0 ? total / Double(confident) : nil
        }
        return mean(over: stableParts) ?? mean(over: BodyPart.allCases) ?? 0
    }

    /// The person's size in pixels, from the parts that limb motion does not change: the distance
    /// from the shoulders' midpoint to the hips' midpoint (or one side's shoulder-to-hip), else
    /// the shoulder width, else a third of the box around the confident keypoints.
    public static func bodyScale(_ pose: Pose, keypointScore: Double) -> Double {
        func at(_ part: BodyPart) -> Point? { pose[part].score >= keypointScore ? pose[part].position : nil }
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
        let box = pose.boundingBox(minimumScore: keypointScore)
        return max((box.width * box.width + box.height * box.height).squareRoot() / 3, 1)
    }

    /// How far the person moved from `old` to `new`: the mean displacement of the stable
    /// keypoints confident in both (of all shared confident keypoints when no stable one is);
    /// nil when they share none. Each keypoint is compared with itself, so a hip that appears or
    /// vanishes between the frames does not read as motion.
    public static func displacement(from old: Pose, to new: Pose, keypointScore: Double) -> Point? {
        func mean(over parts: [BodyPart]) -> Point? {
            var x = 0.0, y = 0.0, count = 0.0
            for part in parts where old[part].score >= keypointScore && new[part].score >= keypointScore {
                x += new[part].position.x - old[part].position.x
                y += new[part].position.y - old[part].position.y
                count += 1
            }
            return count > 0 ? Point(x: x / count, y: y / count) : nil
        }
        return mean(over: stableParts) ?? mean(over: BodyPart.allCases)
    }
}
