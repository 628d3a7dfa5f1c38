import Foundation

/// The rule that drops a weaker duplicate of a better pose of the same frame.
///
/// Multi-person decoding (TF.js, PersonLab) grows a second pose from a heatmap peak the first
/// pose did not claim, and it walks the skeleton over the same body: most of its keypoints land
/// on the first pose's. TF.js gives it a low score (the claimed keypoints do not count) but
/// reports it, so a video of one person shows two or three "people" in half its frames and the
/// tracker can hand the person's identity to a ghost. Two different people share a keypoint
/// position only where their bodies overlap, rarely four.
///
/// On the shared clips 88 % of these ghosts share 8 or more keypoints with the person, and
/// nearly all of the rest 4 or more (docs/cli.md "Identities").
public enum DuplicatePoses {
    /// `poses` (best first) without those that have `sharing` keypoints within `radius` × the
    /// box diagonal of an earlier kept pose's same keypoints. Returns the indices kept, in order;
    /// `sharing` nil keeps all.
    public static func removing(from poses: [Pose], sharing: Int?, radius: Double, keypointScore: Double) -> [Int] {
        keeping(from: poses, sharing: sharing, radius: radius, keypointScore: keypointScore).map(\.index)
    }

    /// ``removing(from:sharing:radius:keypointScore:)`` with each kept pose's box around its
    /// keypoints scoring at least `keypointScore`, which the rule measures and the tracker reuses
    /// (each box computed once).
    static func keeping(from poses: [Pose], sharing: Int?, radius: Double, keypointScore: Double) -> [(index: Int, box: BoundingBox)] {
        var kept: [(index: Int, box: BoundingBox)] = []
        var keptRadii: [Double] = []
        for (index, pose) in poses.enumerated() {
            if let sharing {
                let isDuplicate = zip(kept, keptRadii).contains { other, r in
                    sharedKeypoints(pose, poses[other.index], within: r) >= sharing
                }
                if isDuplicate { continue }
            }
            let box = pose.boundingBox(minimumScore: keypointScore)
            kept.append((index, box))
            keptRadii.append(radius * (box.width * box.width + box.height * box.height).squareRoot())
        }
        return kept
    }

    /// How many of `a`'s keypoints lie within `radius` pixels of the same keypoint of `b`.
    static func sharedKeypoints(_ a: Pose, _ b: Pose, within radius: Double) -> Int {
        guard a.keypointSet == b.keypointSet else { return 0 }
        let squared = radius * radius
        var shared = 0
        for (p, q) in zip(a.keypoints, b.keypoints) where p.position.squaredDistance(to: q.position) <= squared { shared += 1 }
        return shared
    }
}
