import Foundation
import Detectors
import PoseCore
import Testing

/// Hands on video, frame by frame, against state worked out by hand (docs/hands.md, "Hands on video"): real
/// people (labelled COCO-17 bodies of `media/images`) holding a real hand (the labelled 21 points of
/// `media/hands` FreiHAND 00017620, turned and scaled to continue each forearm), moved by script; the
/// rules of `HandOwnership`, `FalseHandRule` and `HandTracks` as `HandDetector` and `BodyAndHandsModel` run them (PoseKit).
@Suite struct HandTracksTests {
    /// A labelled person of `media/images` (annotation `id`), moved by `dx` pixels.
    static func person(_ annotation: Int, dx: Double = 0, id: Int? = nil) throws -> Pose {
        let url = sharedFolder().appendingPathComponent("media/images/ground_truth.json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let annotations = try #require(json["annotations"] as? [[String: Any]])
        let values = try #require(annotations.first { $0["id"] as? Int == annotation }?["keypoints"] as? [NSNumber]).map(\.doubleValue)
        let keypoints = (0..<17).map { Keypoint(position: Point(x: values[3 * $0] + dx, y: values[3 * $0 + 1]), score: values[3 * $0 + 2] == 2 ? 0.9 : 0) }
        return Pose(keypoints: keypoints, score: 0.8, id: id)
    }

    /// The 21 labelled points of FreiHAND 00017620 (`media/hands`, palm 62.7 px).
    static func labelledHand() throws -> [Point] {
        let url = sharedFolder().appendingPathComponent("media/hands/ground_truth.json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let annotations = try #require(json["annotations"] as? [[String: Any]])
        let values = try #require(annotations.first { $0["image_id"] as? Int == 1 }?["keypoints"] as? [NSNumber]).map(\.doubleValue)
        return (0..<21).map { Point(x: values[3 * $0], y: values[3 * $0 + 1]) }
    }

    /// The labelled hand (FreiHAND 00017620), its wrist at `wrist`, wrist → middle knuckle along `direction`,
    /// its palm `size` pixels; the hand model's side and probability as given.
    static func hand(at wrist: Point, direction: Point, size: Double, side: HandChirality = .left, score: Double = 0.9,
                     presence: Double = 0.8) throws -> Hand {
        let points = try labelledHand()
        let labelled = Pose(keypointSet: .hand21, points: points, scores: Array(repeating: 1, count: 21))
        let palm = try #require(HandGestureProcessor.handSize(of: labelled))
        let (w, m) = (points[0], points[9])
        let from = atan2(m.y - w.y, m.x - w.x), to = atan2(direction.y, direction.x)
        let (c, s, k) = (cos(to - from), sin(to - from), size / palm)
        let moved = points.map { p in
            Point(x: wrist.x + k * (c * (p.x - w.x) - s * (p.y - w.y)), y: wrist.y + k * (s * (p.x - w.x) + c * (p.y - w.y)))
        }
        return Hand(pose: Pose(keypointSet: .hand21, points: moved, scores: Array(repeating: presence, count: 21)),
                    handedness: side, handednessScore: score)
    }

    /// `pose`'s hand on `side`, continuing the forearm, its palm 0.45 forearm.
    static func heldHand(_ pose: Pose, _ side: HandChirality, modelSide: HandChirality = .left, score: Double = 0.9) throws -> Hand {
        let wrist = try #require(pose.keypoint(named: side.rawValue + "Wrist")).position
        let elbow = try #require(pose.keypoint(named: side.rawValue + "Elbow")).position
        let forearm = (wrist.squaredDistance(to: elbow)).squareRoot()
        return try hand(at: wrist, direction: Point(x: wrist.x - elbow.x, y: wrist.y - elbow.y), size: 0.45 * forearm,
                        side: modelSide, score: score)
    }

    /// One frame as the detector runs it: owners among `poses` (indices), ids from the poses' ids.
    static func frame(_ found: [FoundHand], poses: [Pose], tracks: inout HandTracks, time: Double) -> [Hand] {
        let owners = HandOwnership().owners(of: found, in: poses).map { owner in
            owner.flatMap { o in poses[o.person].id.map { HandOwner(person: $0, side: o.side) } }
        }
        return tracks.update(found, owners: owners, people: Set(poses.compactMap(\.id)), time: time)
    }

    @Test func aHandLostForAFewFramesComesBackWithItsID() throws {
        let body = try Self.person(46, id: 7)
        var tracks = HandTracks(), ids: [Int?] = []
        for i in 0..<40 {
            // Found frames 0–9 (region key 1), lost 10–14, found anew 15–39 (region key 2, a new region).
            let found = i < 10 || i >= 15 ? [FoundHand(hand: try Self.heldHand(body, .right), regionKey: i < 10 ? 1 : 2)] : []
            ids += Self.frame(found, poses: [body], tracks: &tracks, time: Double(i) / 30).map(\.id)
        }
        #expect(Set(ids) == [1], "one id over the gap: \(Set(ids))")
        // Lost longer than `memory` (1 s): a new id.
        var later = tracks
        let back = Self.frame([FoundHand(hand: try Self.heldHand(body, .right), regionKey: 3)], poses: [body], tracks: &later, time: 40.0 / 30 + 1.5)
        #expect(back.map(\.id) == [2])
    }

    @Test func aHeldHandHasItsPersonsSideAndIDWhateverTheModelSays() throws {
        let body = try Self.person(46, id: 3)
        var tracks = HandTracks()
        for i in 0..<30 {
            // The hand model says left, then right, every other frame, sure each time.
            let modelSide: HandChirality = i % 2 == 0 ? .left : .right
            let hands = Self.frame([FoundHand(hand: try Self.heldHand(body, .right, modelSide: modelSide, score: 0.8), regionKey: 1)],
                                   poses: [body], tracks: &tracks, time: Double(i) / 30)
            #expect(hands.map(\.handedness) == [.right] && hands.map(\.person) == [3] && hands.map(\.id) == [1])
            // The model's probability of the person's side, averaged over the track: 0.2 and 0.8 alternately.
            let expected = (0...i).map { $0 % 2 == 0 ? 0.2 : 0.8 }.reduce(0, +) / Double(i + 1)
            #expect(abs(hands[0].handednessScore - expected) < 1e-9)
        }
    }

    @Test func aHandWithoutAPersonKeepsItsSideAndChangesIDWhenTheLabelTurns() throws {
        var tracks = HandTracks(), seen: [(id: Int, side: HandChirality)] = []
        let hand = try Self.hand(at: Point(x: 100, y: 100), direction: Point(x: 0, y: -1), size: 40)
        for i in 0..<30 {
            // Left (0.9) for 10 frames, then the model says right (0.9) from frame 10 on.
            var h = hand
            h.handedness = i < 10 ? .left : .right
            let out = Self.frame([FoundHand(hand: h, regionKey: 1)], poses: [], tracks: &tracks, time: Double(i) / 30)
            seen.append((out[0].id!, out[0].handedness))
            #expect(out[0].person == nil)
        }
        // Each id has one side; the label's turn ends the first track when its mean falls under 0.3:
        // after 10 × 0.9 + n × 0.1 over 10 + n frames < 0.3, n = 30 → not within 30 frames... worked out:
        // mean after frame 10 + n = (9 + 0.1 n) / (10 + n) < 0.3 ⇔ n > 30: the track keeps "left" here.
        for id in Set(seen.map(\.id)) { #expect(Set(seen.filter { $0.id == id }.map(\.side)).count == 1) }
        #expect(Set(seen.map(\.id)) == [1])
        // A label that turns early: left once, then right: the track turns after 5 frames (mean 0.26 < 0.3).
        var early = HandTracks(), ids: [Int] = [], sides: [HandChirality] = []
        for i in 0..<8 {
            var h = hand
            h.handedness = i == 0 ? .left : .right
            let out = Self.frame([FoundHand(hand: h, regionKey: 1)], poses: [], tracks: &early, time: Double(i) / 30)
            ids.append(out[0].id!); sides.append(out[0].handedness)
        }
        // Frames 0–3: track 1 (left; means 0.9, 0.5, 0.37, 0.3), frame 4: mean 0.26 < 0.3 after 5 frames → track 2 (right).
        #expect(ids == [1, 1, 1, 1, 2, 2, 2, 2])
        #expect(sides == [.left, .left, .left, .left, .right, .right, .right, .right])
    }

    @Test func twoPeopleCrossingKeepTheirHands() throws {
        var tracks = HandTracks(), personOfID: [Int: Set<Int?>] = [:]
        for i in 0..<30 {
            // Person 1 walks right, person 2 left, crossing at frame 15 (their wrists never within half a forearm).
            let a = try Self.person(46, dx: Double(i) * 20 - 300, id: 1), b = try Self.person(46, dx: 310 - Double(i) * 20, id: 2)
            let poses = [a, b]
            let found = [FoundHand(hand: try Self.heldHand(a, .right), regionKey: 1), FoundHand(hand: try Self.heldHand(b, .left), regionKey: 2)]
            for hand in Self.frame(found, poses: poses, tracks: &tracks, time: Double(i) / 30) { personOfID[hand.id!, default: []].insert(hand.person) }
        }
        #expect(personOfID == [1: [1], 2: [2]])
    }

    @Test func aHandAcrossTheOtherPersonsBodyIsStillItsOwnersHand() throws {
        // Person 2 stands with their right wrist on person 1's chest (a forearm reaching over).
        let one = try Self.person(46, id: 1)
        var two = try Self.person(46, dx: 200, id: 2)
        let chest = Point(x: (one[.leftShoulder].position.x + one[.rightShoulder].position.x) / 2, y: one[.leftShoulder].position.y + 40)
        let elbow = two[.rightElbow].position
        two.keypoints[BodyPart.rightWrist.rawValue].position = chest
        let forearm = chest.squaredDistance(to: elbow).squareRoot()
        let reaching = try Self.hand(at: chest, direction: Point(x: chest.x - elbow.x, y: chest.y - elbow.y), size: 0.45 * forearm)
        let found = [FoundHand(hand: reaching, regionKey: 1), FoundHand(hand: try Self.heldHand(one, .right), regionKey: 2)]
        let poses = [one, two]
        let owners = HandOwnership().owners(of: found, in: poses)
        #expect(owners == [HandOwner(person: 1, side: .right), HandOwner(person: 0, side: .right)])
        #expect(!FalseHandRule().isFalse(reaching, owner: owners[0], poses: poses))
        // The same hand with no arm to hold it (person 2 not found): a hand on person 1's clothing.
        #expect(FalseHandRule().isFalse(reaching, owner: nil, poses: [one]))
        // … unless the hand model is sure of it.
        var sure = reaching
        sure.pose.score = FalseHandRule().trustedPresence
        #expect(FalseHandRule().trustedPresence > 1 || !FalseHandRule().isFalse(sure, owner: nil, poses: [one]))
    }

    @Test func framesWithoutPeopleFollowTheRegions() throws {
        var tracks = HandTracks(), ids: [[Int]] = []
        let left = try Self.hand(at: Point(x: 100, y: 100), direction: Point(x: 0, y: -1), size: 40, side: .left)
        let right = try Self.hand(at: Point(x: 300, y: 100), direction: Point(x: 0, y: -1), size: 40, side: .right)
        let elsewhere = try Self.hand(at: Point(x: 500, y: 100), direction: Point(x: 0, y: -1), size: 40, side: .right)
        for i in 0..<10 {
            let found = [FoundHand(hand: left, regionKey: 5), FoundHand(hand: i < 8 ? right : elsewhere, regionKey: i < 5 ? 6 : i < 8 ? 9 : 11)]
            ids.append(Self.frame(found, poses: [], tracks: &tracks, time: Double(i) / 30).map { $0.id! })
        }
        // The right hand found anew (region key 9) on frame 5 where it was on frame 4 (the palm detector's region
        // replaced the tracked one) is the same hand; found anew 200 px away (key 11) on frame 8 it is a new hand.
        #expect(ids == Array(repeating: [1, 2], count: 8) + Array(repeating: [1, 3], count: 2))
    }

    @Test func degenerateHandsAndBodiesAreNoHands() throws {
        let body = try Self.person(46, id: 1)
        let wrist = body[.rightWrist].position
        let dot = Hand(pose: Pose(keypointSet: .hand21, points: Array(repeating: wrist, count: 21), scores: Array(repeating: 0.9, count: 21)),
                       handedness: .right, handednessScore: 0.9)
        var pixel = dot
        pixel.pose.keypoints[9].position.x += 1
        let nan = Hand(pose: Pose(keypointSet: .hand21, points: Array(repeating: Point(x: .nan, y: .nan), count: 21),
                                  scores: Array(repeating: 0.9, count: 21)), handedness: .left, handednessScore: .nan)
        let rule = FalseHandRule()
        for hand in [dot, pixel, nan] {
            let owner = HandOwnership().owners(of: [FoundHand(hand: hand, regionKey: 1)], in: [body])[0]
            #expect(rule.isFalse(hand, owner: owner, poses: [body]) && rule.isFalse(hand, owner: nil, poses: []))
        }
        // A body with NaN points holds nothing and boxes nothing.
        var broken = body
        for k in broken.keypoints.indices { broken.keypoints[k].position = Point(x: .nan, y: .nan) }
        let held = try Self.heldHand(body, .right)
        #expect(HandOwnership().owners(of: [FoundHand(hand: held, regionKey: 1)], in: [broken]) == [nil])
        #expect(!rule.isFalse(held, owner: nil, poses: [broken]))
        // NaN times are ignored; the tracks still give no id twice.
        var tracks = HandTracks()
        let out = tracks.update([FoundHand(hand: held, regionKey: 1)], owners: [nil], people: [], time: .nan)
        #expect(out.count == 1 && out[0].id == nil)
    }

    @Test func anIDIsNeverGivenToTwoHandsOfOneFrame() throws {
        // Seeded random frames: 0–4 hands, random region keys (some repeated), random owners among 3 people,
        // people appearing and leaving; every frame's ids are distinct and a hand's side never changes within its id.
        var generator = SplitMix(state: 46)
        var tracks = HandTracks(), sideOfID: [Int: HandChirality] = [:]
        let base = try Self.hand(at: Point(x: 100, y: 100), direction: Point(x: 0, y: -1), size: 40)
        for i in 0..<600 {
            let count = Int.random(in: 0...4, using: &generator)
            var found: [FoundHand] = [], owners: [HandOwner?] = []
            for _ in 0..<count {
                var hand = base
                hand.handedness = Bool.random(using: &generator) ? .left : .right
                hand.handednessScore = Double.random(in: 0.5...1, using: &generator)
                found.append(FoundHand(hand: hand, regionKey: Int.random(in: 1...6, using: &generator)))
                owners.append(Bool.random(using: &generator) ? HandOwner(person: Int.random(in: 1...3, using: &generator),
                                                                        side: Bool.random(using: &generator) ? .left : .right) : nil)
            }
            let out = tracks.update(found, owners: owners, people: Set(owners.compactMap { $0?.person }), time: Double(i) / 30)
            let ids = out.compactMap(\.id)
            #expect(ids.count == out.count && Set(ids).count == ids.count, "frame \(i): \(ids)")
            for hand in out {
                if let side = sideOfID[hand.id!] { #expect(side == hand.handedness, "id \(hand.id!) flipped on frame \(i)") }
                sideOfID[hand.id!] = hand.handedness
            }
        }
    }
}

/// A seeded generator (SplitMix64) for the random frames above.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
