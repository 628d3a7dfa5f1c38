import Testing
import PoseCore
@testable import ActionNet

struct TrackingTests {
    @Test func twoPeopleKeepTheirIDsThroughMotionAndAGap() throws {
        var tracker = try PoseTracker()
        var idsA = Set<Int>(), idsB = Set<Int>()
        for i in 0..<60 {
            let t = Double(i) / 30
            let a = Fixtures.standingPose(cx: 150 + Double(i), cy: 300, torso: 50)
            let b = Fixtures.standingPose(cx: 480 - Double(i), cy: 300, torso: 40)
            // Person B is missed for frames 20..<27 (0.23 s < maximumAge); order of poses varies.
            var poses = (20..<27).contains(i) ? [a] : [a, b]
            if i % 2 == 1 { poses.reverse() }
            for tp in tracker.update(poses: poses, time: t) {
                if tp.box.minX < 320 && tp.pose == a { idsA.insert(tp.trackID) } else { idsB.insert(tp.trackID) }
            }
        }
        #expect(idsA.count == 1)
        #expect(idsB.count == 1)
        #expect(idsA != idsB)
    }

    @Test func aCutOrALongAbsenceStartsNewIDs() throws {
        var tracker = try PoseTracker()
        let before = tracker.update(poses: [Fixtures.standingPose(cx: 100)], time: 0)
        let cut = tracker.update(poses: [Fixtures.standingPose(cx: 500)], time: 1.0 / 30)  // no overlap: new person
        #expect(before[0].trackID != cut[0].trackID)
        _ = tracker.update(poses: [], time: 0.2)
        let later = tracker.update(poses: [Fixtures.standingPose(cx: 500)], time: 2.0)     // gone for 2 s
        #expect(later[0].trackID != cut[0].trackID)
        #expect(tracker.update(poses: [Fixtures.standingPose(cx: 502)], time: 2.03)[0].trackID == later[0].trackID)
    }

    @Test func lowScorePosesAreIgnored() throws {
        var tracker = try PoseTracker()
        #expect(tracker.update(poses: [Fixtures.standingPose(score: 0.05)], time: 0).isEmpty)
    }

    func scene(_ sizes: (Double, Double)) -> [TrackedPose] {
        let a = Fixtures.standingPose(cx: 150, torso: sizes.0), b = Fixtures.standingPose(cx: 480, torso: sizes.1)
        return [TrackedPose(trackID: 1, pose: a, box: a.boundingBox()), TrackedPose(trackID: 2, pose: b, box: b.boundingBox())]
    }

    @Test func prominentPersonDoesNotFlickerBetweenSimilarSizes() {
        var selector = ProminentPersonSelector()
        var chosen: [Int] = []
        for i in 0..<90 {
            // The two sizes alternate being larger by 5 %.
            let s = i % 2 == 0 ? (50.0, 52.5) : (52.5, 50.0)
            chosen.append(selector.select(scene(s), time: Double(i) / 30)!.trackID)
        }
        #expect(Set(chosen).count == 1)
    }

    @Test func prominentPersonSwitchesAfterAClearAndLastingChange() {
        var selector = ProminentPersonSelector()
        var chosen: [Int] = []
        for i in 0..<120 {
            let s = i < 30 ? (60.0, 40.0) : (40.0, 70.0)   // from frame 30 person 2 is ~3× larger
            chosen.append(selector.select(scene(s), time: Double(i) / 30)!.trackID)
        }
        #expect(chosen[0..<30].allSatisfy { $0 == 1 })
        #expect(chosen[30..<44].allSatisfy { $0 == 1 })   // hysteresis: 0.5 s = 15 frames
        #expect(chosen[46...].allSatisfy { $0 == 2 })
    }

    @Test func prominentPersonWhoLeavesIsReplaced() {
        var selector = ProminentPersonSelector()
        let both = scene((60, 40))
        #expect(selector.select(both, time: 0)?.trackID == 1)
        #expect(selector.select([both[1]], time: 0.1) == nil)          // briefly missing: no switch yet
        #expect(selector.select([both[1]], time: 0.4)?.trackID == 2)   // gone: the other person
    }
}
