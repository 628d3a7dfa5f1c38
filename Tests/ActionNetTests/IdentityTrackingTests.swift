import Foundation
import Testing
import TestSupport
@testable import PoseCore
import ActionNet

/// The optimal assignment against brute force, and the tracker's rules on hand-made people:
/// confident poses first, weak ones only carrying a track on, duplicates and fragments out, limb
/// swing, crossings, entering and leaving, and its defined behavior on bad input.
struct OptimalAssignmentTests {
    /// Every assignment of up to 5 × 5 costs (some forbidden), enumerated: the method links as
    /// many allowed pairs as any assignment can, at the least total cost among those.
    @Test func agreesWithBruteForce() {
        var rng = SeededGenerator(seed: 26)
        for _ in 0..<300 {
            let rows = Int(rng.next() % 5) + 1, columns = Int(rng.next() % 5) + 1
            let cost = (0..<rows * columns).map { _ in rng.next() % 4 == 0 ? 9.0 : Double(rng.float(0, 1)) }
            let found = optimalAssignment(rows: rows, columns: columns, cost: cost, forbidden: 5)
            var columnsUsed = Set<Int>()
            var foundCount = 0, foundCost = 0.0
            for (r, c) in found.enumerated() {
                guard let c else { continue }
                #expect(cost[r * columns + c] < 5 && columnsUsed.insert(c).inserted, "a forbidden or doubly used pair")
                foundCount += 1; foundCost += cost[r * columns + c]
            }
            var best = (count: 0, cost: 0.0)
            func search(_ r: Int, _ used: Set<Int>, _ count: Int, _ total: Double) {
                if r == rows {
                    if count > best.count || (count == best.count && total < best.cost) { best = (count, total) }
                    return
                }
                search(r + 1, used, count, total)
                for c in 0..<columns where !used.contains(c) && cost[r * columns + c] < 5 {
                    search(r + 1, used.union([c]), count + 1, total + cost[r * columns + c])
                }
            }
            search(0, [], 0, 0)
            #expect(foundCount == best.count && abs(foundCost - best.cost) < 1e-9, "\(rows)x\(columns): \(foundCount), \(foundCost) vs \(best)")
        }
    }

    /// Greedy best-pair-first takes (0, 0) at 0.1 and strands row 1, whose only allowed column is 0.
    @Test func linksWhatGreedyWouldStrand() {
        let cost = [0.1, 0.2,
                    0.3, 9.0]
        #expect(optimalAssignment(rows: 2, columns: 2, cost: cost, forbidden: 5) == [1, 0])
    }
}

struct IdentityTrackingTests {
    /// A standing person whose hips are at (cx, cy), with arms and legs spread by `spread`
    /// (0: at the sides; 1: a jumping jack's open position, the box three times wider).
    static func person(cx: Double, cy: Double = 300, torso: Double = 60, spread: Double = 0, score: Double = 0.9) -> Pose {
        let t = torso
        let offsets: [(Double, Double)] = [
            (0, -1.35), (0.06, -1.42), (-0.06, -1.42), (0.13, -1.38), (-0.13, -1.38),
            (0.35, -1), (-0.35, -1),
            (0.45 + 0.5 * spread, -0.5 - 0.9 * spread), (-0.45 - 0.5 * spread, -0.5 - 0.9 * spread),
            (0.5 + 0.6 * spread, -1.8 * spread), (-0.5 - 0.6 * spread, -1.8 * spread),
            (0.2, 0), (-0.2, 0),
            (0.2 + 0.3 * spread, 0.85), (-0.2 - 0.3 * spread, 0.85), (0.2 + 0.6 * spread, 1.7), (-0.2 - 0.6 * spread, 1.7),
        ]
        return Pose(keypoints: offsets.enumerated().map { i, o in
            Keypoint(position: Point(x: cx + o.0 * t, y: cy + o.1 * t), score: score)
        }, score: score)
    }

    /// `pose` with every keypoint moved by (dx, dy) and the given score.
    static func moved(_ pose: Pose, dx: Double = 0, dy: Double = 0, score: Double? = nil) -> Pose {
        Pose(keypoints: pose.keypoints.map {
            Keypoint(position: Point(x: $0.position.x + dx, y: $0.position.y + dy), score: $0.score)
        }, score: score ?? pose.score)
    }

    /// A jumping jack at 30 frames/s: the box triples every 0.4 s while the torso bobs; one id.
    @Test func fastLimbMotionKeepsTheIdentity() throws {
        var tracker = try PoseTracker()
        var ids = Set<Int>()
        for i in 0..<90 {
            let spread = 0.5 - 0.5 * cos(Double(i) * 2 * .pi / 12)
            let tracked = tracker.update(poses: [Self.person(cx: 320, cy: 300 - 8 * spread, spread: spread)], time: Double(i) / 30)
            #expect(tracked.count == 1)
            ids.formUnion(tracked.map(\.trackID))
        }
        #expect(ids == [1])
    }

    /// A weak pose never starts a person; it does carry on a person seen in the last 0.2 s, but
    /// not one lost for longer (that takes a confident pose).
    @Test func weakPosesOnlyCarryOnATrack() throws {
        var tracker = try PoseTracker()
        let someone = Self.person(cx: 200)
        #expect(tracker.update(poses: [Self.moved(someone, score: 0.1)], time: 0).isEmpty)
        #expect(tracker.update(poses: [someone], time: 0.033).map(\.trackID) == [1])
        #expect(tracker.update(poses: [Self.moved(someone, dx: 2, score: 0.1)], time: 0.067).map(\.trackID) == [1])
        #expect(tracker.update(poses: [], time: 0.1).isEmpty)
        #expect(tracker.update(poses: [Self.moved(someone, dx: 3, score: 0.1)], time: 0.2).map(\.trackID) == [1], "unseen 0.133 s")
        #expect(tracker.update(poses: [], time: 0.3).isEmpty)
        #expect(tracker.update(poses: [Self.moved(someone, dx: 4, score: 0.1)], time: 0.45).isEmpty, "unseen 0.25 s: a weak pose does not bring it back")
        #expect(tracker.update(poses: [Self.moved(someone, dx: 4)], time: 0.5).map(\.trackID) == [1], "a confident one does")
    }

    /// A ghost (most keypoints on the person's, a low score) and a fragment (a few keypoints inside
    /// the person's box) are not people; someone beside the person is.
    @Test func duplicatesAndFragmentsAreNotPeople() throws {
        var tracker = try PoseTracker()
        let person = Self.person(cx: 300)
        var ghost = Self.moved(person, score: 0.3)
        for k in [9, 10, 15, 16] { ghost.keypoints[k].position.x += 40 }   // 13 of 17 keypoints shared
        var fragment = Self.moved(person, dx: 5, dy: 40, score: 0.3)        // keypoints spread over the same body
        for k in fragment.keypoints.indices where ![0, 1, 2, 5, 6, 11].contains(k) { fragment.keypoints[k].score = 0.1 }
        for k in [0, 1, 2, 5, 6, 11] { fragment.keypoints[k].position.x += 3 }
        let neighbor = Self.person(cx: 500, score: 0.5)
        let tracked = tracker.update(poses: [person, ghost, fragment, neighbor], time: 0)
        #expect(tracked.map(\.pose) == [person, neighbor])
        #expect(tracked.map(\.trackID) == [1, 2])
        var keepsGhosts = PoseTracker.Configuration()
        keepsGhosts.duplicateKeypoints = nil
        var faithful = try PoseTracker(configuration: keepsGhosts)
        #expect(faithful.update(poses: [person, ghost], time: 0).count == 2, "nil keeps duplicates")
    }

    /// Two people walk through each other (the same place at frame 30): each keeps their id,
    /// told apart by where they were heading; one of them is hidden for 5 frames at the crossing.
    @Test func peoplePassingEachOtherKeepTheirIdentities() throws {
        var tracker = try PoseTracker()
        var idsOfA = Set<Int>(), idsOfB = Set<Int>()
        for i in 0...60 {
            let a = Self.person(cx: 140 + 6 * Double(i)), b = Self.person(cx: 500 - 6 * Double(i), score: 0.8)
            let hidden = (28..<33).contains(i)
            let poses = hidden ? [a] : (i % 2 == 0 ? [a, b] : [b, a])
            for tp in tracker.update(poses: poses, time: Double(i) / 30) {
                if tp.pose == a { idsOfA.insert(tp.trackID) } else { idsOfB.insert(tp.trackID) }
            }
        }
        #expect(idsOfA == [1] && idsOfB == [2])
    }

    /// Someone who leaves for longer than the maximum age comes back as someone new; ids are never
    /// reused, and at most `maximumTracks` are remembered.
    @Test func peopleLeavingAndEnteringAndTheTrackLimit() throws {
        var configuration = PoseTracker.Configuration()
        configuration.maximumAge = 0.5
        configuration.maximumTracks = 3
        var tracker = try PoseTracker(configuration: configuration)
        #expect(tracker.update(poses: [Self.person(cx: 100)], time: 0).map(\.trackID) == [1])
        #expect(tracker.update(poses: [Self.person(cx: 100)], time: 0.4).map(\.trackID) == [1], "0.4 s unseen < 0.5 s")
        #expect(tracker.update(poses: [Self.person(cx: 100)], time: 1.0).map(\.trackID) == [2], "0.6 s unseen > 0.5 s")
        let crowd = (0..<6).map { Self.person(cx: 60 + 100 * Double($0)) }
        let ids = tracker.update(poses: crowd, time: 1.1).map(\.trackID)
        #expect(Set(ids).count == 6 && tracker.liveTrackIDs.count == 3)
    }

    /// Bad input gets the documented rule: non-finite poses are ignored; time going backwards
    /// starts over with fresh ids; a non-finite time gives nothing; 200 people in a frame are
    /// tracked; a track asked to live 0 s is refused.
    @Test func badInputHasDefinedBehavior() throws {
        var tracker = try PoseTracker()
        var broken = Self.person(cx: 100)
        broken.keypoints[3].position.x = .nan
        var infinite = Self.person(cx: 300)
        infinite.score = .infinity
        #expect(tracker.update(poses: [broken, infinite, Self.person(cx: 500)], time: 0).map(\.trackID) == [1])
        #expect(tracker.update(poses: [Self.person(cx: 500)], time: .nan).isEmpty)
        #expect(tracker.update(poses: [Self.person(cx: 500)], time: -1).map(\.trackID) == [2], "time went back: a new stream")

        let crowd = (0..<200).map { Self.person(cx: Double($0 % 20) * 90, cy: 200 + Double($0 / 20) * 250, torso: 30) }
        var crowdTracker = try PoseTracker()
        let first = crowdTracker.update(poses: crowd, time: 0)
        #expect(first.count == 200 && Set(first.map(\.trackID)).count == 200)
        #expect(crowdTracker.liveTrackIDs.count == PoseTracker.Configuration().maximumTracks)

        var zeroAge = PoseTracker.Configuration()
        zeroAge.maximumAge = 0
        #expect(throws: PoseDataError.self) { try PoseTracker(configuration: zeroAge) }
        var noTracks = PoseTracker.Configuration()
        noTracks.maximumTracks = 0
        #expect(throws: PoseDataError.self) { try PoseTracker(configuration: noTracks) }
    }

    /// Frames without a time are timed at the one fallback rate, so a stream without time stamps
    /// still keeps its identities.
    @Test func framesWithoutATimeUseTheFallbackRate() {
        var stream = PoseStream(smoothing: false)
        let ids = (0..<30).flatMap { i in stream.process([Self.person(cx: 200 + Double(i))], frameIndex: i, time: nil).map(\.trackID) }
        #expect(ids == Array(repeating: 1, count: 30))
        #expect(PoseStream.trackingTime(frameIndex: 45, time: nil) == 45 / PoseStream.fallbackFrameRate)
    }
}

/// `actions --poses` follows the ids `posekit pose` wrote: the JSON Lines reader keeps them, and
/// the action front end uses them instead of tracking again.
struct GivenIdentityTests {
    @Test func theIDsOfPoseOutputAreReadAndFollowed() throws {
        let pose = IdentityTrackingTests.person(cx: 200)
        var text = JSONText()
        var identified = pose
        identified.id = 42
        PoseJSONLinesEncoder.append(source: "x", frame: 0, width: 640, height: 480, time: 0, poses: [identified], to: &text)
        let line = String(decoding: text.bytes, as: UTF8.self)
        var decoder = PoseJSONLinesDecoder()
        let frame = try #require(try decoder.decode(line: line))
        #expect(frame.poses.map(\.id) == [42])
        var frontEnd = try ProminentPersonStream(fps: 30)
        #expect(frontEnd.push(frameIndex: 0, time: 0, poses: frame.poses).prominent?.trackID == 42)
        var tracking = try ProminentPersonStream(fps: 30)
        #expect(tracking.push(frameIndex: 0, time: 0, poses: [pose]).prominent?.trackID == 1, "no ids: tracked here")

        let twice = line.replacingOccurrences(of: "\"poses\": [", with: "\"poses\": [{\"id\": 42, \"score\": 0.5, \"keypoints\": \(Self.keypointsJSON(pose))}, ")
        var strict = PoseJSONLinesDecoder()
        #expect(throws: PoseDataError.self) { try strict.decode(line: twice) }
    }

    static func keypointsJSON(_ pose: Pose) -> String {
        "[" + zip(pose.keypointSet.names, pose.keypoints).map { "{\"part\": \"\($0)\", \"x\": \($1.position.x), \"y\": \($1.position.y), \"score\": \($1.score)}" }
            .joined(separator: ", ") + "]"
    }
}
