import PoseCore

/// Which person each hand belongs to, for hands and poses you have in hand (`BodyAndHandsModel` gives its
/// hands' holders itself: ``PosesWithHands/holders``).
///
/// A hand that names its person (``/PoseCore/Hand/person``, on video) goes to the pose with that `id`. Any other hand
/// goes to the person whose wrist and forearm it continues (``HandOwnership``: its wrist within half a
/// forearm of a body wrist scoring at least `minimumWristScore`, its palm pointing on from the forearm;
/// nearest first, each wrist once, so a person has at most one hand per side). Hands no person takes are
/// left over (a hand whose arm the body model did not find).
public enum HandAssignment {
    /// `hands[i]` given to `poses`: per pose (in `poses`' order) its hands, best first, and the
    /// hands no person took.
    public static func assign(_ hands: [Hand], to poses: [Pose], minimumWristScore: Double = 0.3) -> (perPose: [[Hand]], unassigned: [Hand]) {
        var ownership = HandOwnership()
        ownership.minimumWristScore = minimumWristScore
        var holder = [Int?](repeating: nil, count: hands.count)
        var unnamed: [Int] = []
        for (h, hand) in hands.enumerated() {
            if let person = hand.person, let p = poses.firstIndex(where: { $0.id == person }) { holder[h] = p } else { unnamed.append(h) }
        }
        let owners = ownership.owners(of: unnamed.map { FoundHand(hand: hands[$0], regionKey: $0) }, in: poses)
        for (h, owner) in zip(unnamed, owners) { holder[h] = owner?.person }
        var perPose = [[Hand]](repeating: [], count: poses.count)
        var unassigned: [Hand] = []
        for (h, hand) in hands.enumerated() {
            if let p = holder[h] { perPose[p].append(hand) } else { unassigned.append(hand) }
        }
        for p in perPose.indices { perPose[p].sort { $0.score > $1.score } }
        return (perPose, unassigned)
    }
}
