import Testing
@testable import PoseNet
import PoseCore

/// A person as 17 keypoints on a 3-wide grid filling a `width × 2·width` box with its top-left
/// corner at (x, y): enough shape for box IoU and keypoint similarity.
func gridPerson(x: Double, y: Double, width: Double = 60, score: Double = 0.9) -> Pose {
    let keypoints = (0..<BodyPart.count).map { i in
        Keypoint(
                 position: Point(x: x + Double(i % 3) * width / 2, y: y + Double(i / 3) * width / 2.5), score: score)
    }
    return Pose(keypoints: keypoints, score: score)
}

struct PoseTrackerTests {
    /// Two people of the same size walk towards each other and pass through nearly the same boxes
    /// at the crossing frame; each keeps their ID, told apart by heading.
    @Test func peopleCrossingPathsKeepTheirIDs() throws {
        var tracker = try PoseTracker()
        var idsOfLeftWalker = Set<Int>(), idsOfRightWalker = Set<Int>()
        for i in 0...60 {
            let t = Double(i) / 30
            // Moving right, and moving left; the boxes overlap 3/4 at i = 30 (their keypoints are
            // 30 px apart vertically: the same keypoints in the same place would be one person).
            let leftWalker = gridPerson(x: 100 + 6 * Double(i), y: 200)
            let rightWalker = gridPerson(x: 460 - 6 * Double(i), y: 230)
            let poses = i % 2 == 0 ? [leftWalker, rightWalker] : [rightWalker, leftWalker]
            let tracked = tracker.update(poses: poses, time: t)
            #expect(tracked.count == 2)
            for (pose, tp) in zip(poses, tracked) {
                #expect(tp.pose == pose, "results keep the order of the poses given")
                if pose == leftWalker && pose != rightWalker { idsOfLeftWalker.insert(tp.trackID) }
                if pose == rightWalker && pose != leftWalker { idsOfRightWalker.insert(tp.trackID) }
            }
        }
        #expect(idsOfLeftWalker.count == 1 && idsOfRightWalker.count == 1)
        #expect(idsOfLeftWalker != idsOfRightWalker)
    }

    /// 20 people in one frame (a 5 × 4 crowd), each drifting a little, in a different order every
    /// frame: 20 distinct IDs, each stable.
    @Test func twentyPeopleKeepTwentyStableIDs() throws {
        var tracker = try PoseTracker()
        var idOfPerson = [Int: Set<Int>]()
        for i in 0..<30 {
            var crowd = (0..<20).map { n in
                (n, gridPerson(x: 10 + Double(n % 5) * 120 + Double(i), y: 10 + Double(n / 5) * 140 - 0.5 * Double(i)))
            }
            crowd = i % 3 == 0 ? crowd.reversed() : (i % 3 == 1 ? crowd.sorted { ($0.0 * 7) % 20 < ($1.0 * 7) % 20 } : crowd)
            for ((n, _), tp) in zip(crowd, tracker.update(poses: crowd.map(\.1), time: Double(i) / 30)) {
                idOfPerson[n, default: []].insert(tp.trackID)
            }
        }
        #expect(idOfPerson.values.allSatisfy { $0.count == 1 })
        #expect(Set(idOfPerson.values.flatMap { $0 }) == Set(1...20))
    }

    /// Someone leaves and later someone enters at the same place: a new ID, never a reused one.
    /// A short miss (under `maximumAge`) keeps the ID.
    @Test func peopleLeavingAndEnteringGetFreshIDsAndShortMissesKeepThem() throws {
        var tracker = try PoseTracker()
        var seen: [Int] = []
        for i in 0..<90 {
            let t = Double(i) / 30
            // Present 0..<20, missed 20..<25 (0.17 s), present 25..<40, gone 40..<70 (1 s), back from 70.
            let present = (0..<20).contains(i) || (25..<40).contains(i) || i >= 70
            let tracked = tracker.update(poses: present ? [gridPerson(x: 300, y: 100)] : [], time: t)
            seen += tracked.map(\.trackID)
        }
        #expect(Array(Set(seen)).sorted() == [1, 2])
        #expect(seen.prefix(35).allSatisfy { $0 == 1 } && seen.suffix(20).allSatisfy { $0 == 2 })
    }

    /// A scene cut moves everyone elsewhere: nobody overlaps a live track, so all IDs are new;
    /// time going backwards (a new stream, a seek) also starts over, with fresh IDs.
    @Test func aCutOrTimeGoingBackStartsFreshIDs() throws {
        var tracker = try PoseTracker()
        let before = tracker.update(poses: [gridPerson(x: 50, y: 50), gridPerson(x: 300, y: 50)], time: 0)
        let after = tracker.update(poses: [gridPerson(x: 160, y: 300), gridPerson(x: 450, y: 300)], time: 1.0 / 30)
        #expect(Set(before.map(\.trackID)).isDisjoint(with: after.map(\.trackID)))
        let rewound = tracker.update(poses: [gridPerson(x: 160, y: 300)], time: 0)
        #expect(rewound[0].trackID == 5)
    }
}
