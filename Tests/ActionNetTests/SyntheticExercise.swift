import Foundation
import PoseCore
@testable import ActionNet
@testable import ActionTraining

/// A stick figure repeating one exercise with a known turning point, rendered into model-rate
/// frames over any stretch of time: for tests of the repetition convention.
struct SyntheticExercise {
    let action: ActionClass
    /// Seconds per repetition.
    var period: Double
    /// Where in a repetition (0..<1) its turning point is.
    var turningPhase: Double
    /// The body at each phase of a repetition.
    var motion: (Double) -> FigurePose
    var cameraYaw: Double
    /// PoseNet-like keypoint jitter (σ per person height); 0 renders exact keypoints.
    var jitter = 0.0
    var fps = 30.0

    /// Standing → `extreme` → standing over one repetition, (1 − cos)/2, so the turning point is mid-repetition.
    static func sinusoid(_ action: ActionClass, to extreme: FigurePose, period: Double, cameraYaw: Double) -> SyntheticExercise {
        SyntheticExercise(action: action, period: period, turningPhase: 0.5,
                          motion: { FigurePose.blend(FigurePose(), extreme, 0.5 - 0.5 * cos(2 * Double.pi * $0)) }, cameraYaw: cameraYaw)
    }

    static var squatBottom: FigurePose {
        var p = FigurePose(); p.hipFlex = (1.6, 1.6); p.knee = (2.0, 2.0); p.torsoPitch = 0.5; return p
    }
    static var lungeBottom: FigurePose {
        var p = FigurePose(); p.hipFlex = (1.4, -0.4); p.knee = (1.5, 1.7); return p
    }
    static var jackOpen: FigurePose {
        var p = FigurePose(); p.shoulderAbduction = (2.8, 2.8); p.hipAbduction = (0.4, 0.4); return p
    }

    static var straightArmPlank: FigurePose {
        var p = FigurePose(); p.rootPitch = 1.4; p.shoulderFlex = (1.57, 1.57); return p
    }
    /// The bottom of a push-up: elbows bent, chest down by the hands.
    static var chestDownPlank: FigurePose {
        var p = straightArmPlank; p.elbow = (2.3, 2.3); return p
    }

    /// Burpee: crouch, plank, crouch, jump (the turning point, phase 0.82), stand.
    static func burpee(period: Double, cameraYaw: Double, plank: FigurePose = straightArmPlank) -> SyntheticExercise {
        var crouch = FigurePose(); crouch.hipFlex = (1.9, 1.9); crouch.knee = (2.1, 2.1); crouch.torsoPitch = 1.0; crouch.shoulderFlex = (1.5, 1.5)
        var jump = FigurePose(); jump.shoulderFlex = (3, 3); jump.jump = 0.3
        let keys: [(Double, FigurePose)] = [(0, FigurePose()), (0.17, crouch), (0.32, plank), (0.52, plank), (0.66, crouch),
                                            (0.82, jump), (0.92, FigurePose()), (1, FigurePose())]
        return SyntheticExercise(action: .burpees, period: period, turningPhase: 0.82,
                                 motion: { MotionGenerator.keyframes(keys, $0) }, cameraYaw: cameraYaw)
    }

    /// The usual form of each exercise at an ordinary tempo, seen from `cameraYaw`.
    static func standard(_ action: ActionClass, cameraYaw: Double? = nil) -> SyntheticExercise {
        switch action {
        case .squats: return sinusoid(.squats, to: squatBottom, period: 2.2, cameraYaw: cameraYaw ?? 1.45)
        case .lunges: return sinusoid(.lunges, to: lungeBottom, period: 2.5, cameraYaw: cameraYaw ?? 1.5)
        case .jumpingJacks: return sinusoid(.jumpingJacks, to: jackOpen, period: 0.9, cameraYaw: cameraYaw ?? 0)
        case .burpees: return burpee(period: 3.5, cameraYaw: cameraYaw ?? 1.5)
        case .other: fatalError("not an exercise")
        }
    }

    /// Frames from time `start` to `end` (seconds; repetition k runs over [k·period, (k+1)·period),
    /// the person stands before 0 and after `reps` repetitions). Slot i is at time `start + i / fps`.
    func frames(reps: Int, from start: Double, to end: Double, seed: UInt64 = 4) -> [ResampledFrame] {
        var rng = SeededRandom(seed: seed)
        var figure = StickFigure(random: &rng)
        figure.cameraYaw = cameraYaw; figure.cameraPitch = 0.1; figure.cameraHeight = 1.5
        figure.jitter = jitter; figure.dropout = 0; figure.frameMiss = 0; figure.swapRate = 0
        figure.scoreScale = 1; figure.collapseRate = 0; figure.footScore = 1; figure.lyingLegScore = 1; figure.lowBodyLoss = 0
        let count = Int(((end - start) * fps).rounded(.down)) + 1
        return (0..<count).map { i in
            let t = start + Double(i) / fps
            var pose = FigurePose()
            if t >= 0 && t < Double(reps) * period {
                let phase = t / period - (t / period).rounded(.down)
                pose = motion(phase)
            }
            return ResampledFrame(slot: i, time: t, sourceFrame: i, pose: figure.render(pose, rng: &rng), trackID: 1)
        }
    }

    /// Frames of `reps` whole repetitions with `leadIn` seconds of standing on both sides.
    func frames(reps: Int, leadIn: Double = 0.6) -> [ResampledFrame] {
        frames(reps: reps, from: -leadIn, to: Double(reps) * period + leadIn)
    }

    /// Time of repetition k's turning point.
    func turningTime(_ k: Int) -> Double { (Double(k) + turningPhase) * period }

    /// Every turning point the counter reports for this exercise, the end of input included.
    static func turningPoints(_ frames: [ResampledFrame], _ action: ActionClass) -> [RepetitionCandidate] {
        var counter = RepetitionCounter()
        let found = frames.flatMap { counter.update($0) } + counter.finish()
        return found.filter { $0.action == action }
    }
}
