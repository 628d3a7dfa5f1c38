import PoseCore

/// A stream's hands over time: each hand's id, person and side decided over its track, not frame by frame
/// (docs/hands.md, "Hands on video").
///
/// - **A hand belongs to a person.** A hand a person holds this frame (``HandOwnership``: found through their
///   wrist, or continuing their wrist and forearm) takes that person's track for that side: its id is the one
///   that (person, side) had, so a hand lost for a few frames comes back with its id; its side is the
///   person's side; its ``/PoseCore/Hand/person`` the person's id.
/// - **Otherwise MediaPipe's tracking.** A hand read in the region the previous frame's hand gave
///   (``FoundHand/regionKey``) is that hand again: same id, and the person it had while that person is still
///   in the frame. A hand found anew starts a new id.
/// - **Sides never flip inside a track.** A person's hand has the person's side. A hand without a person has
///   the side of the hand model's label accumulated over its track (the mean probability of each side); when
///   that mean turns against the side the track was given (under ``sideReversal`` after at least
///   ``sideEvidenceFrames`` frames), or a person of the other side takes the hand, a new track (a new id)
///   starts. ``/PoseCore/Hand/handednessScore`` is the track's mean probability of its side.
/// - An id is never given to two hands of one frame, and never reused in the stream. A track not seen for
///   ``memory`` seconds is forgotten.
public struct HandTracks: Sendable {
    /// Seconds a hand's id is kept while the hand is not found (PoseKit's person tracker keeps a person 1 s).
    public var memory = 1.0
    /// A track's side is reversed (by a new track) when the mean probability of that side falls under this…
    public var sideReversal = 0.3
    /// …after at least this many frames.
    public var sideEvidenceFrames = 5

    struct Track {
        var id: Int
        /// The person (pose id) and side holding the hand, once a person has.
        var owner: HandOwner?
        var side: HandChirality
        /// Sum over the track's frames of the hand model's probability of `side`, and the frames.
        var evidence: Double
        var frames: Int
        var lastSeen: Double
        var regionKey: Int
        /// The hand's wrist and palm size where it was last seen.
        var wrist: Point
        var palm: Double
    }

    private var tracks: [Track] = []
    private var nextID = 1
    private var lastTime: Double?

    public init() {}

    /// How many hands are remembered.
    public var rememberedHands: Int { tracks.count }

    /// One frame's hands at `time` (seconds; a time earlier than the last frame's starts over): `found` in
    /// the pipeline's order, `owners[i]` the person (their pose id) and side holding hand i or nil, `people`
    /// the ids of the people in the frame. Returns the hands with ``/PoseCore/Hand/id``, ``/PoseCore/Hand/person``,
    /// ``/PoseCore/Hand/handedness`` and ``/PoseCore/Hand/handednessScore`` decided over their tracks, in the order of `found`.
    public mutating func update(_ found: [FoundHand], owners: [HandOwner?], people: Set<Int>, time: Double) -> [Hand] {
        precondition(owners.count == found.count, "one owner (or nil) per hand")
        guard time.isFinite else { return found.map(\.hand) }
        if let lastTime, time < lastTime { tracks.removeAll() }
        let previousTime = lastTime
        lastTime = time
        tracks.removeAll { time - $0.lastSeen > memory }
        var used = Set<Int>()     // tracks taken this frame (indices; tracks are only appended in the loop)
        var hands = found.map(\.hand)
        // Held hands first (the person's word decides), then the others by MediaPipe's tracking.
        let order = found.indices.sorted { (owners[$0] == nil ? 1 : 0, $0) < (owners[$1] == nil ? 1 : 0, $1) }
        for h in order {
            let owner = owners[h]
            // MediaPipe's tracking: the region the hand was read in came from this track's last hand; or, when the
            // palm detector's region replaced it (a hand moving fast), the hand lies where a track of its side was
            // on the previous frame and no hand of this frame continued it (its wrist within half a palm).
            let continued = tracks.indices.first {
                !used.contains($0) && tracks[$0].regionKey == found[h].regionKey && tracks[$0].lastSeen == previousTime
            } ?? tracks.indices.first { t in
                !used.contains(t) && tracks[t].lastSeen == previousTime && tracks[t].side == hands[h].handedness
                    && !found.contains { $0.regionKey == tracks[t].regionKey }
                    && hands[h].wrist.position.squaredDistance(to: tracks[t].wrist).squareRoot() < 0.5 * tracks[t].palm
            }
            var chosen: Int?
            if let owner {
                if let held = tracks.indices.first(where: { !used.contains($0) && tracks[$0].owner == owner }) {
                    chosen = held
                } else if let continued, tracks[continued].owner == nil, tracks[continued].side == owner.side {
                    chosen = continued      // a hand followed without a person, whose arm is now seen
                    tracks[continued].owner = owner
                }
            } else {
                chosen = continued
            }
            if let t = chosen {
                tracks[t].evidence += Self.probability(of: tracks[t].side, in: hands[h])
                tracks[t].frames += 1
                // A hand without a person whose label has turned against its side: a new track.
                if tracks[t].owner == nil, tracks[t].frames >= sideEvidenceFrames,
                   tracks[t].evidence / Double(tracks[t].frames) < sideReversal {
                    tracks[t].lastSeen = -.infinity
                    chosen = nil
                }
            }
            let t: Int
            if let chosen {
                t = chosen
            } else {
                let side = owner?.side ?? hands[h].handedness
                tracks.append(Track(id: nextID, owner: owner, side: side, evidence: Self.probability(of: side, in: hands[h]),
                                    frames: 1, lastSeen: time, regionKey: found[h].regionKey, wrist: hands[h].wrist.position, palm: 0))
                nextID += 1
                t = tracks.count - 1
            }
            used.insert(t)
            tracks[t].lastSeen = time
            tracks[t].regionKey = found[h].regionKey
            tracks[t].wrist = hands[h].wrist.position
            tracks[t].palm = HandGestureProcessor.handSize(of: hands[h].pose) ?? 0
            hands[h].id = tracks[t].id
            hands[h].handedness = tracks[t].side
            hands[h].handednessScore = tracks[t].evidence / Double(tracks[t].frames)
            // A track keeps its person while that person is in the frame.
            let person = owner?.person ?? tracks[t].owner?.person
            hands[h].person = person.flatMap { people.contains($0) ? $0 : nil }
        }
        tracks.removeAll { $0.lastSeen == -.infinity }
        return hands
    }

    /// One frame's hands on their own (a still image): a hand a person holds has that person's side, and
    /// ``/PoseCore/Hand/handednessScore`` the hand model's probability of it (under 0.5 where the body and the hand model
    /// disagree); the others keep the hand model's side. No ids, no ``/PoseCore/Hand/person``.
    public static func sided(_ found: [FoundHand], owners: [HandOwner?]) -> [Hand] {
        zip(found, owners).map { found, owner in
            var hand = found.hand
            if let side = owner?.side {
                hand.handednessScore = probability(of: side, in: hand)
                hand.handedness = side
            }
            return hand
        }
    }

    /// The hand model's probability that `hand` is the person's `side` hand (its ``/PoseCore/Hand/handednessScore`` is
    /// that of its own ``/PoseCore/Hand/handedness``).
    static func probability(of side: HandChirality, in hand: Hand) -> Double {
        let score = hand.handednessScore.isFinite ? min(max(hand.handednessScore, 0), 1) : 0.5
        return hand.handedness == side ? score : 1 - score
    }
}
