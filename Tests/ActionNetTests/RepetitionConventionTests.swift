import Foundation
import Testing
import PoseCore
@testable import ActionNet
@testable import ActionTraining

/// The repetition convention (docs/actions.md "Repetitions"): a repetition counts at its turning point,
/// only if the turning point is reached within the input, and carries the turning point's time.
/// Stick figures with known turning points, cut at chosen moments.
struct RepetitionConventionTests {
    static let exercises: [ActionClass] = [.squats, .lunges, .jumpingJacks, .burpees]

    /// Frames of the smoothing lag and of the two frames a zone must hold: the reported turning
    /// point may sit this far from the true one.
    static let frameTolerance = 2

    @Test(arguments: exercises)
    func eachRepetitionIsReportedAtItsTurningPoint(action: ActionClass) {
        let ex = SyntheticExercise.standard(action)
        let frames = ex.frames(reps: 4)
        let found = SyntheticExercise.turningPoints(frames, action)
        #expect(found.count == 4, "\(action): \(found.map(\.time))")
        for (k, rep) in found.enumerated() {
            let expected = Int(((ex.turningTime(k) - frames[0].time) * ex.fps).rounded())
            #expect(abs(rep.slot - expected) <= Self.frameTolerance, "\(action) rep \(k): slot \(rep.slot), turning point at \(expected)")
            #expect(abs(rep.time - frames[rep.slot].time) < 1e-9 && rep.sourceFrame == frames[rep.slot].sourceFrame)
        }
    }

    @Test(arguments: exercises)
    func aRepetitionInItsTurningPostureWhenTheInputStartsIsNotCounted(action: ActionClass) {
        let ex = SyntheticExercise.standard(action)
        // The input begins just after (and just before) the first turning point.
        for offset in [0.1, -0.04] {
            let start = ex.turningTime(0) + offset * ex.period
            let found = SyntheticExercise.turningPoints(ex.frames(reps: 3, from: start, to: 3 * ex.period + 0.6), action)
            #expect(found.count == 2, "\(action), start \(offset) from the turning point: \(found.map(\.time))")
            #expect(found.first.map { abs($0.time - ex.turningTime(1)) < 0.1 } == true)
        }
    }

    @Test(arguments: exercises)
    func aRepetitionJoinedOnTheWayToItsTurningPointCounts(action: ActionClass) {
        let ex = SyntheticExercise.standard(action)
        // The input begins part way to the first turning point, before its extreme zone.
        let start = ex.turningTime(0) - 0.4 * ex.period
        let found = SyntheticExercise.turningPoints(ex.frames(reps: 3, from: start, to: 3 * ex.period + 0.6), action)
        #expect(found.count == 3, "\(action): \(found.map(\.time))")
    }

    @Test(arguments: exercises)
    func aRepetitionCutBeforeItsTurningPointIsNotCounted(action: ActionClass) {
        let ex = SyntheticExercise.standard(action)
        for before in [0.1, 0.25] {
            let end = ex.turningTime(2) - before * ex.period
            let found = SyntheticExercise.turningPoints(ex.frames(reps: 3, from: -0.6, to: end), action)
            #expect(found.count == 2, "\(action), cut \(before) of a repetition before the turning point: \(found.map(\.time))")
        }
    }

    @Test(arguments: exercises)
    func aRepetitionCutJustAfterItsTurningPointCounts(action: ActionClass) {
        let ex = SyntheticExercise.standard(action)
        // Two frames (67 ms) after the turning point, and a tenth of a repetition after it (but
        // never more than 0.12 s): too few frames for the return to confirm it.
        for after in [2 / ex.fps, min(0.1 * ex.period, 0.12)] {
            let end = ex.turningTime(2) + after
            let found = SyntheticExercise.turningPoints(ex.frames(reps: 3, from: -0.6, to: end), action)
            #expect(found.count == 3, "\(action), cut \(after) after the turning point: \(found.map(\.time))")
            if let last = found.last { #expect(abs(last.time - ex.turningTime(2)) <= Double(Self.frameTolerance) / ex.fps) }
        }
    }

    @Test(arguments: [ActionClass.squats, .lunges, .jumpingJacks])
    func slowRepetitionsWithLongHoldsCountOnceEach(action: ActionClass) {
        var ex = SyntheticExercise.standard(action)
        let extreme = ex.motion(ex.turningPhase)
        // 7 s per repetition: 1.5 s down, a 3 s hold at the turning posture, 1.5 s up, 1 s standing;
        // with keypoint jitter, so the hold is not perfectly still.
        ex.period = 7
        ex.motion = { MotionGenerator.keyframes([(0, FigurePose()), (0.21, extreme), (0.64, extreme), (0.86, FigurePose()), (1, FigurePose())], $0) }
        ex.jitter = 0.006
        let found = SyntheticExercise.turningPoints(ex.frames(reps: 3), action)
        #expect(found.count == 3, "\(action): \(found.map(\.time))")
        for (k, rep) in found.enumerated() {
            #expect(rep.time >= Double(k) * 7 + 1.2 && rep.time <= Double(k) * 7 + 4.6, "\(action) rep \(k) at \(rep.time): not in its hold")
        }
    }

    /// The fastest tempo each counter accepts (its `fastestPeriod`): every repetition still counts.
    @Test(arguments: [(ActionClass.squats, 0.9), (.lunges, 1.0), (.jumpingJacks, 0.6), (.burpees, 2.0)])
    func fastRepetitionsAtTheTopTempoAllCount(action: ActionClass, period: Double) {
        var ex = SyntheticExercise.standard(action)
        ex.period = period
        ex.jitter = 0.004
        let found = SyntheticExercise.turningPoints(ex.frames(reps: 8), action)
        #expect(found.count == 8, "\(action) every \(period) s: \(found.map(\.time))")
    }

    @Test func standingStillCountsNothing() {
        var ex = SyntheticExercise.sinusoid(.squats, to: FigurePose(), period: 2, cameraYaw: 0.3)
        ex.jitter = 0.01
        let frames = ex.frames(reps: 5)
        for a in Self.exercises { #expect(SyntheticExercise.turningPoints(frames, a).isEmpty, "\(a)") }
    }

    /// The detector alone on a hand-written excursion: confirmation by the return, the end of
    /// input, and a bounce inside the minimum interval.
    @Test func theDetectorOnAHandWrittenSignal() {
        func run(_ xs: [Double]) -> [Int] {
            var d = TurningPointDetector<Int>(.init(turnBack: 0.1, fastestPeriod: 1))
            var out: [Int] = []
            for (i, x) in xs.enumerated() {
                if let t = d.update(slot: i, sourceFrame: i, time: Double(i) / 30, excursion: x, extreme: x > 0.5, neutral: x < 0.2, cue: { i }) {
                    out.append(t.slot)
                    #expect(t.cue == t.slot)
                }
            }
            if let t = d.finish() { out.append(t.slot) }
            return out
        }
        let up: [Double] = [0, 0, 0.3, 0.6, 0.8, 0.9], down: [Double] = [0.85, 0.6, 0.3, 0.1, 0, 0, 0]
        #expect(run(up + down) == [5])                          // confirmed by the return
        #expect(run(up + [0.9, 0.9, 0.89]) == [5])              // at the turning point when the input ends
        #expect(run(up) == [])                                  // still on the way there when it ends
        #expect(run([0.9, 0.8, 0.5, 0.1, 0, 0, 0] + up + down) == [12])  // started past a turning point
        #expect(run([0.6, 0.8, 0.95, 0.7] + down + up + down) == [16])   // started in the zone: not that one
        #expect(run([0.3, 0.3, 0.4, 0.7, 0.9, 0.95, 0.7] + down) == [5])  // joined before the zone: counted
        // A second peak 0.3 s after the first (faster than 0.6 of the fastest period): one repetition.
        #expect(run(up + down + [0.3, 0.6, 0.9, 0.9] + down).count == 1)
    }
}
