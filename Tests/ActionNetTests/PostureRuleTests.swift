import Foundation
import Testing
import PoseCore
@testable import ActionNet
@testable import ActionTraining

/// Each counter's posture rule (``PostureRule``): a turning point its counter finds counts only
/// when the body looks like the exercise there. Hand-made legs for the knee cues; stick figures,
/// doing the exercise or only moving the counter's signal, for each counter's verdict.
struct PostureRuleTests {
    // MARK: The knee cues on hand-made legs (picture coordinates, y down, shin 100 px)

    @Test func legPostureReadsBendsAcrossAndTowardTheCamera() {
        let hip = Point(x: 0, y: 0)
        let straight = LegPosture(hip: hip, knee: Point(x: 0, y: 100), ankle: Point(x: 0, y: 200))
        #expect(straight.flexion < 1 && straight.thighRaise < 1)
        // A squat's bottom from the side: thigh forward and level, shin down.
        let side = LegPosture(hip: hip, knee: Point(x: 100, y: 5), ankle: Point(x: 90, y: 105))
        #expect(abs(side.flexion - 93) < 2 && abs(side.thighRaise - 87) < 2, "\(side)")
        // The same from the front: the thigh points at the camera, a straight-looking angle.
        let front = LegPosture(hip: hip, knee: Point(x: 0, y: 30), ankle: Point(x: 0, y: 130))
        #expect(abs(front.flexion - acos(0.3) * 180 / .pi) < 0.5 && abs(front.thighRaise - front.flexion) < 1e-9, "\(front)")
        // A walk's swinging leg: the knee bent 65°, the thigh nearly hanging.
        let swing = LegPosture(hip: hip, knee: Point(x: 15, y: 99), ankle: Point(x: -68, y: 154))
        #expect(abs(swing.flexion - 65) < 1 && swing.thighRaise < 10, "\(swing)")
    }

    /// A pose standing on `right` (hip, knee, ankle offsets from the right hip, torso lengths) and
    /// `left` likewise, otherwise ``Fixtures/standingPose()``.
    func pose(left: [(Double, Double)], right: [(Double, Double)]) -> Pose {
        var p = Fixtures.standingPose(cx: 320, cy: 240, torso: 60)
        for (leg, parts) in [(left, [BodyPart.leftKnee, .leftAnkle]), (right, [.rightKnee, .rightAnkle])] {
            let hip = p[parts[0] == .leftKnee ? .leftHip : .rightHip].position
            for (offset, part) in zip(leg, parts) {
                p.keypoints[part.rawValue].position = Point(x: hip.x + 60 * offset.0, y: hip.y + 60 * offset.1)
            }
        }
        return p
    }

    @Test func kneesBentReadsTheStraighterKneeAndKneeForwardTheFrontOne() throws {
        var reader = BodySignalReader()
        // Walking: one leg swinging through (knee bent under a hanging thigh), one straight.
        let walk = reader.read(pose(left: [(0.13, 0.84), (-0.58, 1.31)], right: [(0, 0.85), (0, 1.7)]), slot: 0)
        #expect(try #require(walk.kneesBent) < 20)
        #expect(try #require(walk.kneeForward) < 20)
        // A lunge's bottom from the side: front thigh level and shin down, back thigh down and shin back.
        var lungeReader = BodySignalReader()
        let lunge = lungeReader.read(pose(left: [(0.85, 0.05), (0.75, 0.9)], right: [(-0.3, 0.8), (-1.1, 1.1)]), slot: 0)
        #expect(try #require(lunge.kneeForward) > 80)
        // A squat's bottom from the front: both thighs point at the camera.
        var squatReader = BodySignalReader()
        let squat = squatReader.read(pose(left: [(0.03, 0.25), (0.03, 1.1)], right: [(-0.03, 0.25), (-0.03, 1.1)]), slot: 0)
        #expect(try #require(squat.kneesBent) > 70)
        #expect(try #require(squat.kneeAngle) > 170, "the picture's angle alone would call it straight")
    }

    @Test func aCueNeverMeasuredRejectsNothing() {
        let rule = PostureRule(name: "knees_bent", cue: \.kneesBent, minimum: 60)
        #expect(rule.accepts(nil) && rule.accepts(60) && !rule.accepts(59.9))
    }

    // MARK: Each counter's verdict on stick figures

    /// Frames of a figure standing still whose ankles PoseNet places too high, rising by `lift`
    /// torso lengths and back once per `period` (what made a walk toward the camera a squat): the
    /// hips' height above the ankles drops as in a squat, the legs stay straight.
    static func anklesPlacedHigh(cameraYaw: Double, period: Double = 2.2, lift: Double = 0.7, reps: Int = 3) -> [ResampledFrame] {
        SyntheticExercise.sinusoid(.squats, to: FigurePose(), period: period, cameraYaw: cameraYaw).frames(reps: reps).map { f in
            guard var pose = f.pose, f.time >= 0, f.time < Double(reps) * period else { return f }
            let torso = pose.midpoint(.leftHip, .rightHip).squaredDistance(to: pose.midpoint(.leftShoulder, .rightShoulder)).squareRoot()
            let k = 0.5 - 0.5 * cos(2 * Double.pi * f.time / period)
            for a in [BodyPart.leftAnkle, .rightAnkle] { pose.keypoints[a.rawValue].position.y -= lift * k * torso }
            var g = f
            g.pose = pose
            return g
        }
    }

    /// The counter finds `reps` turning points in `frames`, and every one looks like the exercise
    /// (`expected` true) or none does.
    func verdicts(_ frames: [ResampledFrame], _ action: ActionClass, reps: Int, expected: Bool, _ what: String) {
        let found = SyntheticExercise.turningPoints(frames, action)
        #expect(found.count == reps, "\(what): the counter must find the turning points for the rule to judge them")
        for rep in found {
            #expect(rep.looksLikeExercise == expected, "\(what) at \(rep.time) s: posture reading \(String(describing: rep.posture))")
        }
    }

    @Test(arguments: [0.0, 0.6, 1.45])
    func squatsNeedBothKneesBent(cameraYaw: Double) {
        verdicts(SyntheticExercise.standard(.squats, cameraYaw: cameraYaw).frames(reps: 3), .squats, reps: 3, expected: true, "squats")
        verdicts(Self.anklesPlacedHigh(cameraYaw: cameraYaw), .squats, reps: 3, expected: false, "straight legs")
    }

    @Test(arguments: [0.0, 0.6, 1.5])
    func lungesNeedAKneeForwardAndBent(cameraYaw: Double) {
        verdicts(SyntheticExercise.standard(.lunges, cameraYaw: cameraYaw).frames(reps: 3), .lunges, reps: 3, expected: true, "lunges")
        verdicts(Self.anklesPlacedHigh(cameraYaw: cameraYaw, period: 2.5), .lunges, reps: 3, expected: false, "straight legs")
    }

    @Test func jumpingJacksNeedTheArmsRaised() {
        verdicts(SyntheticExercise.standard(.jumpingJacks).frames(reps: 3), .jumpingJacks, reps: 3, expected: true, "jumping jacks")
        // Legs as wide, arms out to 70° and 85° only: open enough for the counter's zone.
        for abduction in [1.2, 1.5] {
            var open = FigurePose(); open.shoulderAbduction = (abduction, abduction); open.hipAbduction = (0.5, 0.5)
            let lowArms = SyntheticExercise.sinusoid(.jumpingJacks, to: open, period: 0.9, cameraYaw: 0)
            verdicts(lowArms.frames(reps: 3), .jumpingJacks, reps: 3, expected: false, "arms to \(abduction) rad")
        }
    }

    @Test(arguments: [1.5, 0.0])
    func burpeesNeedTheHipsDown(cameraYaw: Double) {
        verdicts(SyntheticExercise.burpee(period: 3.5, cameraYaw: cameraYaw).frames(reps: 3), .burpees, reps: 3, expected: true, "burpees")
        // Bending over from the hips instead of going down to the floor, then a jump.
        var bow = FigurePose(); bow.torsoPitch = 1.5; bow.shoulderFlex = (0.2, 0.2)
        var jump = FigurePose(); jump.shoulderFlex = (3, 3); jump.jump = 0.3
        let keys: [(Double, FigurePose)] = [(0, FigurePose()), (0.25, bow), (0.5, bow), (0.82, jump), (0.92, FigurePose()), (1, FigurePose())]
        let bows = SyntheticExercise(action: .burpees, period: 3.5, turningPhase: 0.82, motion: { MotionGenerator.keyframes(keys, $0) },
                                     cameraYaw: cameraYaw)
        verdicts(bows.frames(reps: 3), .burpees, reps: 3, expected: false, "bow and jump")
    }

    /// Knees PoseNet does not see (scores under the gate): the squats still count.
    @Test func squatsWithUnseenKneesStillCount() {
        let frames = SyntheticExercise.standard(.squats).frames(reps: 3).map { f -> ResampledFrame in
            guard var pose = f.pose else { return f }
            for k in [BodyPart.leftKnee, .rightKnee] { pose.keypoints[k.rawValue].score = 0.05 }
            var g = f
            g.pose = pose
            return g
        }
        let found = SyntheticExercise.turningPoints(frames, .squats)
        #expect(found.count == 3 && found.allSatisfy { $0.posture == nil && $0.looksLikeExercise })
    }

    // MARK: Through the engine

    /// A rejected turning point in a window of its exercise: no `rep` event, no count, one more
    /// in the summary's `rejected_reps`.
    @Test func aRejectedTurningPointIsTalliedNotCounted() throws {
        let frames = Self.anklesPlacedHigh(cameraYaw: 1.45).map { f in
            PoseFrame(frame: f.slot, time: f.time + 0.6, poses: f.pose.map { [$0] } ?? [])
        }
        let events = Fixtures.run(Fixtures.engine(EngineRepetitionTests.constantNet(.squats)), frames)
        #expect(EngineRepetitionTests.reps(events).isEmpty)
        let summary = try #require(Fixtures.summary(events))
        #expect(summary.reps[.squats] == 0 && summary.rejectedReps[.squats] == 3, "\(summary.reps) \(summary.rejectedReps)")
        #expect(ActionEvent.summary(summary).jsonLine.hasSuffix(
            "\"reps\": {\"jumping_jacks\": 0, \"lunges\": 0, \"burpees\": 0, \"squats\": 0}, "
            + "\"rejected_reps\": {\"jumping_jacks\": 0, \"lunges\": 0, \"burpees\": 0, \"squats\": 3}}"))
    }

    /// The thresholds come from the pipeline's configuration (`repetitionThresholds`): the same
    /// three squats count with the shipped thresholds, and judged by a `knees_bent` threshold no
    /// knee reaches each one is rejected visibly, a `rejected_rep` event carrying its reading and
    /// that threshold, tallied in the summary, never a `rep`.
    @Test func thresholdsComeFromTheConfigurationAndRejectionsStayVisible() throws {
        let ex = SyntheticExercise.standard(.squats, cameraYaw: 1.45)
        let input = EngineRepetitionTests.input(ex, reps: 3, from: -0.6, to: 3 * ex.period + 0.6)
        var configuration = ActionEngineConfiguration()
        let shipped = Fixtures.run(try ActionEngine(classifier: EngineRepetitionTests.constantNet(.squats), configuration: configuration), input)
        #expect(Fixtures.summary(shipped)?.reps[.squats] == 3 && Fixtures.summary(shipped)?.rejectedReps[.squats] == 0)
        configuration.repetitionThresholds.kneesBent = 175
        let strict = Fixtures.run(try ActionEngine(classifier: EngineRepetitionTests.constantNet(.squats), configuration: configuration), input)
        #expect(EngineRepetitionTests.reps(strict).isEmpty)
        let rejected = strict.compactMap { if case .rejectedRepetition(let r) = $0 { return r } else { return nil } }
        #expect(rejected.count == 3)
        for r in rejected {
            #expect(r.rule == "knees_bent" && r.threshold == 175 && r.reading < 175 && r.reading > 60, "\(r)")
            #expect(ActionEvent.rejectedRepetition(r).jsonLine.contains("\"rule\": \"knees_bent\", \"reading\": \(Int(r.reading.rounded())), \"threshold\": 175"))
        }
        #expect(Fixtures.summary(strict)?.reps[.squats] == 0 && Fixtures.summary(strict)?.rejectedReps[.squats] == 3)
    }
}
