import PoseCore

/// Whose hand a hand is in one frame: a person (by their place in the frame's poses, or on video their
/// ``/PoseCore/Pose/id``) and which of their hands, their own side.
public struct HandOwner: Sendable, Hashable {
    /// The person: an index into the frame's poses, or a pose id (``HandTracks``).
    public var person: Int
    /// The person's own hand.
    public var side: HandChirality

    public init(person: Int, side: HandChirality) {
        self.person = person
        self.side = side
    }
}

/// A hand as one frame's pipeline found it, before its id and side are decided over its track
/// (``HandTracks``): the hand (pixels, the hand model's side and score for this frame), the body seed it
/// was found through, and which hand of the previous frame it continues.
public struct FoundHand: Sendable, Equatable {
    /// The hand: its ``/PoseCore/Hand/handedness`` is the hand model's for this frame (``/PoseCore/Hand/handednessScore`` its
    /// probability), not yet the person's side.
    public var hand: Hand
    /// The wrist it was found through (`--hand-sources body`): the pose (index in the frame's poses as the
    /// body model found them) and the side; nil for a hand from the palm detector or from tracking.
    public var seed: HandOwner?
    /// A key shared with the hand of the previous frame whose landmarks gave the region this hand was read
    /// in (MediaPipe's tracking); a new key for a hand found anew. Keys are the stream's own.
    public var regionKey: Int

    public init(hand: Hand, seed: HandOwner? = nil, regionKey: Int) {
        self.hand = hand
        self.seed = seed
        self.regionKey = regionKey
    }
}

/// Which person each hand of one frame belongs to, and which hands are the same hand twice
/// (docs/hands.md, "A hand belongs to a person").
///
/// - A hand found through a body wrist (``FoundHand/seed``) belongs to that wrist's person and side.
/// - Any other hand (the palm detector's, or tracked) belongs to the person whose wrist and forearm it
///   continues: its wrist lies within ``maximumWristDistance`` forearm lengths of the body's wrist (a wrist
///   the body model scores at least ``minimumWristScore``, with an elbow scoring at least
///   ``minimumElbowScore``), and its palm points away from the elbow, not back along the forearm (the
///   angle between elbow → wrist and wrist → the hand's middle knuckle has a cosine of at least
///   ``minimumForearmCosine``). Nearest first; each hand and each wrist once, so a person has at most one
///   hand per side (seeded hands first: the body model's own word).
/// - On a mirrored input the body model's sides are the mirror's: the person's own side is the other.
public struct HandOwnership: Sendable, Equatable {
    /// A hand's wrist lies within this many forearm lengths of the body's (the body seeding's reach).
    public var maximumWristDistance = 0.5
    /// The body wrist's score (BlazePose: visibility) a palm hand may be joined to.
    public var minimumWristScore = 0.3
    /// The elbow's score: the forearm gives the scale and the direction.
    public var minimumElbowScore = 0.3
    /// The hand continues the forearm: cos(elbow → wrist, wrist → middle knuckle) at least this
    /// (−0.5: the hand bends back at most 120° from the forearm's line).
    public var minimumForearmCosine = -0.5

    public init() {}

    /// One body wrist that may hold a hand.
    struct Wrist {
        var owner: HandOwner
        var wrist: Point
        var forearm: Double
        var direction: Point
    }

    /// The wrists of `poses` that may hold hands, with the owner's side (flipped on a `mirrored` input).
    func wrists(of poses: [Pose], mirrored: Bool) -> [Wrist] {
        var wrists: [Wrist] = []
        for (p, pose) in poses.enumerated() {
            for side in HandChirality.allCases {
                guard let wrist = pose.keypoint(named: side.rawValue + "Wrist"), let elbow = pose.keypoint(named: side.rawValue + "Elbow"),
                      Self.confidence(wrist) >= minimumWristScore, Self.confidence(elbow) >= minimumElbowScore else { continue }
                let dx = wrist.position.x - elbow.position.x, dy = wrist.position.y - elbow.position.y
                let forearm = (dx * dx + dy * dy).squareRoot()
                guard forearm.isFinite, forearm > 0 else { continue }
                wrists.append(Wrist(owner: HandOwner(person: p, side: mirrored ? side.opposite : side), wrist: wrist.position,
                                    forearm: forearm, direction: Point(x: dx / forearm, y: dy / forearm)))
            }
        }
        return wrists
    }

    /// A body keypoint's confidence: BlazePose's visibility where there is one, else the score; 0 when not finite.
    static func confidence(_ keypoint: Keypoint) -> Double {
        let value = keypoint.visibility ?? keypoint.score
        return value.isFinite && keypoint.position.x.isFinite && keypoint.position.y.isFinite ? value : 0
    }

    /// Each hand's owner in `poses` (the frame's people as found, `HandOwner/person` their index), nil for
    /// a hand no wrist holds.
    public func owners(of hands: [FoundHand], in poses: [Pose], mirrored: Bool = false) -> [HandOwner?] {
        let wrists = wrists(of: poses, mirrored: mirrored)
        var candidates: [(rank: Int, distance: Double, hand: Int, wrist: Int)] = []
        for (h, found) in hands.enumerated() {
            let points = found.hand.pose.keypoints
            guard points.count == KeypointSet.hand21.count else { continue }
            let handWrist = points[0].position, knuckle = points[9].position
            for (w, wrist) in wrists.enumerated() {
                let dx = handWrist.x - wrist.wrist.x, dy = handWrist.y - wrist.wrist.y
                let distance = (dx * dx + dy * dy).squareRoot() / wrist.forearm
                guard distance.isFinite else { continue }
                if let seed = found.seed, seed == wrist.owner {
                    // The body pointed at this hand: its own acceptance rule already held.
                    candidates.append((0, distance, h, w))
                    continue
                }
                guard distance <= maximumWristDistance else { continue }
                let hx = knuckle.x - handWrist.x, hy = knuckle.y - handWrist.y
                let length = (hx * hx + hy * hy).squareRoot()
                guard length.isFinite, length > 0,
                      (hx * wrist.direction.x + hy * wrist.direction.y) / length >= minimumForearmCosine else { continue }
                candidates.append((1, distance, h, w))
            }
        }
        candidates.sort { ($0.rank, $0.distance, $0.hand, $0.wrist) < ($1.rank, $1.distance, $1.hand, $1.wrist) }
        var owners = [HandOwner?](repeating: nil, count: hands.count)
        var taken = Set<Int>()
        for candidate in candidates where owners[candidate.hand] == nil && !taken.contains(candidate.wrist) {
            taken.insert(candidate.wrist)
            owners[candidate.hand] = wrists[candidate.wrist].owner
        }
        return owners
    }

    /// The indices of `hands` to keep once the same hand found twice in one frame is kept once: two hands
    /// whose 21 points lie within `samePointsDistance` hand sizes of each other on average are one; the one with an owner stays, else the better scored.
    public static func withoutDuplicates(_ hands: [FoundHand], owners: [HandOwner?], samePointsDistance: Double = 0.25) -> [Int] {
        let order = hands.indices.sorted { a, b in
            let ownedA = owners[a] != nil, ownedB = owners[b] != nil
            if ownedA != ownedB { return ownedA }
            return hands[a].hand.score != hands[b].hand.score ? hands[a].hand.score > hands[b].hand.score : a < b
        }
        var kept: [Int] = []
        for h in order where !kept.contains(where: { isSameHand(hands[$0].hand, hands[h].hand, within: samePointsDistance) }) {
            kept.append(h)
        }
        return kept.sorted()
    }

    /// Whether two hands are one: their points within `within` hand sizes (the smaller's) of each other on average.
    static func isSameHand(_ a: Hand, _ b: Hand, within: Double) -> Bool {
        let pa = a.pose.keypoints, pb = b.pose.keypoints
        guard pa.count == pb.count, !pa.isEmpty,
              let sizeA = HandGestureProcessor.handSize(of: a.pose), let sizeB = HandGestureProcessor.handSize(of: b.pose) else { return false }
        var total = 0.0
        for (p, q) in zip(pa, pb) { total += p.position.squaredDistance(to: q.position).squareRoot() }
        return total / Double(pa.count) < within * min(sizeA, sizeB)
    }
}
