import PoseCore

/// Which person each hand belongs to (`posekit pose --hands`): the person whose wrist is nearest.
///
/// The rule: a hand's wrist (its keypoint 0) is measured against every body wrist (COCO-17's
/// `leftWrist` and `rightWrist`, through each pose's keypoint set) that scores at least
/// `minimumWristScore`. A pair within the hand's size (the longer side of its box) is a
/// candidate; candidates are taken nearest first, each hand and each body wrist at most once, so
/// a person has at most two hands, one per wrist. The body wrist's side is not compared with the
/// hand's handedness (either may be wrong where the other is right). Hands no wrist takes are
/// left over (a hand whose arm the body model did not find).
public enum HandAssignment {
    /// `hands[i]` given to `poses`: per pose (in `poses`' order) its hands, best first, and the
    /// hands no person took.
    public static func assign(_ hands: [Hand], to poses: [Pose], minimumWristScore: Double = 0.3) -> (perPose: [[Hand]], unassigned: [Hand]) {
        var candidates: [(distance: Double, hand: Int, pose: Int, wrist: BodyPart)] = []
        for (h, hand) in hands.enumerated() {
            let box = hand.pose.boundingBox
            let size = max(box.width, box.height)
            let wrist = hand.wrist.position
            for (p, pose) in poses.enumerated() {
                for part in [BodyPart.leftWrist, .rightWrist] {
                    guard let bodyWrist = pose.keypoint(part), bodyWrist.score >= minimumWristScore else { continue }
                    let distance = bodyWrist.position.squaredDistance(to: wrist).squareRoot()
                    if distance <= size { candidates.append((distance, h, p, part)) }
                }
            }
        }
        // Nearest first; ties in the order of the hands, then the poses (deterministic).
        candidates.sort { ($0.distance, $0.hand, $0.pose) < ($1.distance, $1.hand, $1.pose) }
        var owner = [Int?](repeating: nil, count: hands.count)
        var takenWrists = Set<Int>()
        for candidate in candidates where owner[candidate.hand] == nil {
            let wristKey = candidate.pose * 2 + (candidate.wrist == .leftWrist ? 0 : 1)
            guard !takenWrists.contains(wristKey) else { continue }
            takenWrists.insert(wristKey)
            owner[candidate.hand] = candidate.pose
        }
        var perPose = [[Hand]](repeating: [], count: poses.count)
        var unassigned: [Hand] = []
        for (h, hand) in hands.enumerated() {
            if let p = owner[h] { perPose[p].append(hand) } else { unassigned.append(hand) }
        }
        for p in perPose.indices { perPose[p].sort { $0.score > $1.score } }
        return (perPose, unassigned)
    }
}
