import Testing
import PoseCore
@testable import ActionNet

struct WindowingTests {
    func resample(rate: Double, frames n: Int, fps: Double = 30, pose: (Int) -> Pose? = { _ in Fixtures.standingPose() }) -> [ResampledFrame] {
        var r = try! FrameResampler(fps: fps)
        var out: [ResampledFrame] = []
        for i in 0..<n {
            let p = pose(i).map { TrackedPose(trackID: 1, pose: $0, box: $0.boundingBox()) }
            out += r.push(frame: i, time: 10 + Double(i) / rate, pose: p)
        }
        return out
    }

    @Test(arguments: [24000.0 / 1001, 25, 29.29, 30])
    func resamplingByTimestampPicksTheNearestFrame(rate: Double) {
        let n = 240
        let slots = resample(rate: rate, frames: n)
        let duration = Double(n - 1) / rate
        #expect(slots.count == Int((duration * 30 + 1e-9).rounded(.down)) + 1)
        for s in slots {
            #expect(s.slot == slots.first!.slot + (s.slot - slots.first!.slot))
            let nearest = Int(((s.time - 10) * rate).rounded())
            #expect(abs(s.sourceFrame - nearest) <= 1)
            #expect(abs(Double(s.sourceFrame) / rate - (s.time - 10)) <= 0.5 / rate + 1e-9)
            #expect(s.pose != nil)
        }
        // Model frames are exactly 1/30 s apart from the first input time.
        #expect(abs(slots[7].time - (10 + 7.0 / 30)) < 1e-9)
    }

    @Test func aGapInTheInputBecomesEmptySlots() {
        // 30 fps with frames 30..<45 missing (half a second): those slots are empty.
        var r = try! FrameResampler(fps: 30)
        var out: [ResampledFrame] = []
        for i in 0..<90 where !(30..<45).contains(i) {
            let p = Fixtures.standingPose()
            out += r.push(frame: i, time: Double(i) / 30, pose: TrackedPose(trackID: 1, pose: p, box: p.boundingBox()))
        }
        #expect(out.count == 90)
        let empty = out.filter { $0.pose == nil }.map(\.slot)
        // Slots within maximumHold (0.1 s = 3 frames) of a real frame are held; the middle is empty.
        #expect(empty == Array(33...41))
    }

    @Test func framesGoingBackInTimeAreIgnored() {
        var r = try! FrameResampler(fps: 30)
        #expect(r.push(frame: 0, time: 1.0, pose: nil).count == 1)
        #expect(r.push(frame: 1, time: 0.5, pose: nil).isEmpty)
        #expect(r.push(frame: 2, time: 1.0, pose: nil).isEmpty)
        #expect(r.push(frame: 3, time: 1.1, pose: nil).count == 3)
    }

    @Test func featuresAreZeroFilledAndNormalizedPerWindow() {
        let base = (0..<60).map { i -> ResampledFrame in
            let pose: Pose? = i % 4 == 0 ? nil : Fixtures.standingPose(cx: 100 + Double(i), cy: 300, torso: 50)
            return ResampledFrame(slot: i, time: Double(i) / 30, sourceFrame: i, pose: pose, trackID: pose == nil ? nil : 1)
        }
        let window = PoseWindow(frames: base)
        #expect(window.realPoseFraction == 0.75)
        let f = window.features()
        #expect(f.count == 60 * 51)
        for t in Swift.stride(from: 0, to: 60, by: 4) { #expect(f[(t * 51)..<(t * 51 + 51)].allSatisfy { $0 == 0 }) }
        // Moving the person and making them twice as large changes nothing.
        let moved = PoseWindow(frames: base.map { s in
            var s = s
            s.pose = s.pose.map { Fixtures.mapped($0) { Point(x: 2 * $0.x + 700, y: 2 * $0.y - 90) } }
            return s
        })
        let g = moved.features()
        for i in f.indices { #expect(abs(f[i] - g[i]) < 1e-5) }
        // Hand-checked value: frame 1's left ankle sits at hip + (0.2, 1.7) torsos; the mean hip center
        // over the real frames is at x = 100 + mean(i), so x = (101 − 100 − mean + 0.2·50) / 50.
        let realIndices = (0..<60).filter { $0 % 4 != 0 }
        let meanShift = Double(realIndices.reduce(0, +)) / Double(realIndices.count)
        let ankle = 51 + 3 * BodyPart.leftAnkle.rawValue
        #expect(abs(Double(f[ankle]) - (1 - meanShift + 10) / 50) < 1e-5)
        #expect(abs(Double(f[ankle + 1]) - 1.7) < 1e-5)
        #expect(f[ankle + 2] == 1)
        // A keypoint under the score gate is left out entirely.
        var weak = base
        var pose = weak[1].pose!
        pose.keypoints[BodyPart.leftAnkle.rawValue].score = 0.1
        weak[1].pose = pose
        let h = PoseWindow(frames: weak).features()
        #expect(h[ankle] == 0 && h[ankle + 1] == 0 && h[ankle + 2] == 0)
    }

    @Test func aWindowAndItsMirrorImageGiveTheSameFeatures() {
        // A side view facing +x: the nose is ahead of the ears, and the knees bend forward.
        let side = (0..<60).map { i -> ResampledFrame in
            var pose = Fixtures.standingPose(cx: 200, cy: 300, torso: 50)
            pose.keypoints[BodyPart.nose.rawValue].position.x += 15
            pose.keypoints[BodyPart.leftKnee.rawValue].position.x += Double(i % 10) * 3
            pose.keypoints[BodyPart.rightAnkle.rawValue].score = 0.1   // only one side is found
            return ResampledFrame(slot: i, time: Double(i) / 30, sourceFrame: i, pose: pose, trackID: 1)
        }
        // The same person seen in a mirror: x flipped, left and right exchanged.
        let mirrored = side.map { f -> ResampledFrame in
            var g = f
            g.pose = f.pose.map { pose in
                let kps = (0..<BodyPart.count).map { k -> Keypoint in
                    let src = pose.keypoints[BodyPart(rawValue: k)!.mirrored.rawValue]
                    return Keypoint(position: Point(x: 640 - src.position.x, y: src.position.y), score: src.score)
                }
                return Pose(keypoints: kps, score: pose.score)
            }
            return g
        }
        #expect(!PoseWindow.facesLeft(side.compactMap(\.pose)))
        #expect(PoseWindow.facesLeft(mirrored.compactMap(\.pose)))
        let f = PoseWindow(frames: side).features(), g = PoseWindow(frames: mirrored).features()
        for i in f.indices { #expect(abs(f[i] - g[i]) < 1e-5, "channel \(i % 51) of frame \(i / 51)") }
        // Facing +x is left as it is: the nose keeps a positive x.
        #expect(f[3 * BodyPart.nose.rawValue] > 0.2)
    }

    func frames(count: Int, rate: Double = 30, pose: (Int) -> [Pose]) -> [PoseFrame] {
        (0..<count).map { PoseFrame(frame: $0, time: Double($0) / rate, width: 640, height: 480, poses: pose($0)) }
    }

    @Test func windowsWithTooFewPosesAreNoPerson() {
        // 50% of frames have a pose: every window is no_person with zero probabilities.
        let events = Fixtures.run(Fixtures.engine(), frames(count: 150) { $0 % 2 == 0 ? [Fixtures.standingPose()] : [] })
        let preds = Fixtures.predictions(events)
        #expect(!preds.isEmpty)
        for p in preds { #expect(p.label == .noPerson); #expect(p.probabilities.allSatisfy { $0 == 0 }) }
        // 70% of frames with a pose: classified.
        let events2 = Fixtures.run(Fixtures.engine(), frames(count: 150) { $0 % 10 < 7 ? [Fixtures.standingPose()] : [] })
        #expect(Fixtures.predictions(events2).allSatisfy { $0.label != .noPerson })
    }

    @Test func lowTopProbabilityIsLowConfidence() {
        let all = frames(count: 90) { _ in [Fixtures.standingPose()] }
        let strict = Fixtures.predictions(Fixtures.run(Fixtures.engine(confidence: 1.0), all))
        #expect(!strict.isEmpty)
        for p in strict {
            #expect(p.label == .lowConfidence)
            #expect(p.topClass != nil)
            #expect(abs(p.probabilities.reduce(0, +) - 1) < 1e-5)
        }
        let lax = Fixtures.predictions(Fixtures.run(Fixtures.engine(confidence: 0), all))
        for (p, q) in zip(lax, strict) {
            #expect(p.label == .action(q.topClass!))
            #expect(p.confidence == p.probabilities.max())
        }
    }

    @Test func windowCadenceFollowsLengthAndStride() {
        // 150 frames at 30 fps → 150 slots; windows end at slots 59, 69, ..., 149.
        let preds = Fixtures.predictions(Fixtures.run(Fixtures.engine(), frames(count: 150) { _ in [Fixtures.standingPose()] }))
        #expect(preds.map(\.frameEnd) == Array(Swift.stride(from: 59, through: 149, by: 10)))
        #expect(preds.map(\.frameStart) == Array(Swift.stride(from: 0, through: 90, by: 10)))
        #expect(abs(preds[0].timeEnd - 59.0 / 30) < 1e-9)
    }

    @Test func aStreamShorterThanAWindowGetsOnePaddedWindow() {
        let events = Fixtures.run(Fixtures.engine(), frames(count: 20) { _ in [Fixtures.standingPose()] })
        let preds = Fixtures.predictions(events)
        #expect(preds.count == 1)
        #expect(preds[0].label == .noPerson)       // 20 of 60 frames is under 60 %
        #expect(preds[0].frameEnd == 19)
        let s = Fixtures.summary(events)!
        #expect(s.frames == 20)
        #expect(abs((s.seconds[.noPerson] ?? 0) - 20.0 / 30) < 1e-9)
    }

    @Test func summaryTimeAddsUpToTheStream() {
        let events = Fixtures.run(Fixtures.engine(confidence: 0), frames(count: 155, rate: 25) { _ in [Fixtures.standingPose()] })
        let s = Fixtures.summary(events)!
        #expect(s.frames == 155)
        let slots = Int((154.0 / 25 * 30).rounded(.down)) + 1
        #expect(abs(s.seconds.values.reduce(0, +) - Double(slots) / 30) < 1e-9)
        #expect(s.label != nil)
        #expect(Set(s.reps.keys) == Set(ActionClass.exercises))
    }
}
