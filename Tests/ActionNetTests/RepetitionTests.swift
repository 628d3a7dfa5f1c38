import Foundation
import Testing
import PoseCore
@testable import ActionNet
@testable import ActionTraining

/// Repetition counters on awkward poses, and the posture cues each repetition carries, checked
/// against the stick figure's own 3-D geometry.
struct RepetitionTests {
    @Test func aFewFramesWithTheAnklesTooLowDoNotStopTheCount() {
        // PoseNet sometimes puts the ankles far below the feet for a frame; such outliers must not
        // become the standing reference, or the person never looks back up between squats.
        let frames = SyntheticExercise.standard(.squats, cameraYaw: 0).frames(reps: 4).enumerated().map { i, f -> ResampledFrame in
            guard i % 15 == 0, var pose = f.pose else { return f }
            let torso = pose.midpoint(.leftHip, .rightHip).squaredDistance(to: pose.midpoint(.leftShoulder, .rightShoulder)).squareRoot()
            for a in [BodyPart.leftAnkle, .rightAnkle] { pose.keypoints[a.rawValue].position.y += 0.8 * torso }
            var g = f
            g.pose = pose
            return g
        }
        #expect(SyntheticExercise.turningPoints(frames, .squats).count == 4)
    }

    @Test(arguments: [0.0, 1.45, 0.6])
    func squatsFromAnySide(cameraYaw: Double) {
        for reps in [1, 3, 5] {
            let frames = SyntheticExercise.standard(.squats, cameraYaw: cameraYaw).frames(reps: reps)
            #expect(SyntheticExercise.turningPoints(frames, .squats).count == reps, "\(reps) reps, yaw \(cameraYaw)")
        }
    }

    @Test(arguments: [1.5, 0.0])
    func burpeesFromAnySide(cameraYaw: Double) {
        let frames = SyntheticExercise.burpee(period: 3.5, cameraYaw: cameraYaw).frames(reps: 3)
        #expect(SyntheticExercise.turningPoints(frames, .burpees).count == 3, "yaw \(cameraYaw)")
    }

    /// World joints of the figure the synthetic frames are rendered from (torso length 1, y up).
    func joints(_ pose: FigurePose) -> [StickFigure.Vec] {
        var rng = SeededRandom(seed: 4)
        return StickFigure(random: &rng).joints(pose)
    }

    func y(_ j: [StickFigure.Vec], _ p: BodyPart) -> Double { j[p.rawValue].y }

    @Test(arguments: [true, false])
    func squatCueDepthKneeAngleAndHips(deep: Bool) throws {
        var shallow = FigurePose(); shallow.hipFlex = (1.0, 1.0); shallow.knee = (1.4, 1.4)
        let bottom = deep ? SyntheticExercise.squatBottom : shallow, hipsBelowKnees = deep
        // Side view without camera pitch: the knee's angle in the picture is its true angle.
        var ex = SyntheticExercise.sinusoid(.squats, to: bottom, period: 2.2, cameraYaw: Double.pi / 2)
        ex.fps = 30
        let found = SyntheticExercise.turningPoints(ex.frames(reps: 2), .squats)
        #expect(found.count == 2)
        let rep = try #require(found.first)
        guard case .depth(let depth, let knee, let below) = rep.cue else { Issue.record("not a depth cue: \(rep.cue)"); return }
        let standing = joints(FigurePose()), low = joints(bottom)
        let trueKnee = 180 - bottom.knee.0 * 180 / Double.pi
        let trueDepth = 1 - (y(low, .leftHip) - y(low, .leftAnkle)) / (y(standing, .leftHip) - y(standing, .leftAnkle))
        #expect(abs(try #require(knee) - trueKnee) < 8, "knee \(String(describing: knee)), true \(trueKnee)")
        #expect(abs(try #require(depth) - trueDepth) < 0.06, "depth \(String(describing: depth)), true \(trueDepth)")
        #expect(below == hipsBelowKnees)
        #expect((y(low, .leftHip) < y(low, .leftKnee)) == hipsBelowKnees)  // the fixture is what it claims
    }

    @Test func jumpingJackCueArmAngleAndFeetApart() throws {
        let ex = SyntheticExercise.standard(.jumpingJacks, cameraYaw: 0)
        let rep = try #require(SyntheticExercise.turningPoints(ex.frames(reps: 2), .jumpingJacks).first)
        guard case .amplitude(let arm, let feet) = rep.cue else { Issue.record("not an amplitude cue: \(rep.cue)"); return }
        let open = joints(SyntheticExercise.jackOpen)
        let trueFeet = abs(open[BodyPart.leftAnkle.rawValue].x - open[BodyPart.rightAnkle.rawValue].x)
            / abs(open[BodyPart.leftShoulder.rawValue].x - open[BodyPart.rightShoulder.rawValue].x)
        #expect(abs(try #require(arm) - SyntheticExercise.jackOpen.shoulderAbduction.0 * 180 / Double.pi) < 12, "arm \(String(describing: arm))")
        #expect(abs(try #require(feet) - trueFeet) < 0.15 * trueFeet, "feet \(String(describing: feet)), true \(trueFeet)")
    }

    @Test(arguments: [false, true])
    func burpeeCueChestAndJump(chestDown: Bool) throws {
        let plank = chestDown ? SyntheticExercise.chestDownPlank : SyntheticExercise.straightArmPlank
        let ex = SyntheticExercise.burpee(period: 3.5, cameraYaw: 1.5, plank: plank)
        let found = SyntheticExercise.turningPoints(ex.frames(reps: 3), .burpees)
        #expect(found.count == 3)
        let p = joints(plank)
        let plankChest = y(p, .leftShoulder) - y(p, .leftWrist)
        #expect((plankChest < RepetitionCue.chestToFloorHeight) == chestDown)  // the fixture is what it claims
        for rep in found {
            guard case .burpee(let chest, let toFloor, let jump) = rep.cue else { Issue.record("not a burpee cue: \(rep.cue)"); return }
            // The lowest chest of the floor phase: the plank's, or lower on the way down to it.
            let c = try #require(chest)
            #expect(c < plankChest + 0.15 && c > (chestDown ? -0.3 : 0.6), "chest \(c), plank \(plankChest)")
            #expect(toFloor == chestDown)
            #expect(abs(try #require(jump) - 0.3) < 0.1, "jump \(String(describing: jump)), true 0.3")
        }
    }

    @Test func cueFieldsInTheRepEvent() {
        func line(_ cue: RepetitionCue) -> String {
            ActionEvent.repetition(RepetitionEvent(action: .squats, count: 2, frame: 61, time: 2.0333, cue: cue)).jsonLine
        }
        let head = "{\"type\": \"rep\", \"label\": \"squats\", \"count\": 2, \"frame\": 61, \"time\": 2.033, "
        #expect(line(.depth(depth: 0.4123, kneeAngle: 88.6, hipsBelowKnees: true)) == head + "\"depth\": 0.41, \"knee_angle\": 89, \"hips_below_knees\": true}")
        #expect(line(.depth(depth: 0.2, kneeAngle: nil, hipsBelowKnees: nil)) == head + "\"depth\": 0.2, \"knee_angle\": null, \"hips_below_knees\": null}")
        #expect(line(.amplitude(armAngle: 161.2, feetApart: 1.456)) == head + "\"arm_angle\": 161, \"feet_apart\": 1.46}")
        #expect(line(.burpee(chestHeight: 0.21, chestToFloor: true, jumpHeight: nil)) == head + "\"chest_height\": 0.21, \"chest_to_floor\": true, \"jump_height\": null}")
    }
}
