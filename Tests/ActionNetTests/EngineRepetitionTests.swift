import Foundation
import Testing
import PoseCore
@testable import ActionNet

/// Repetitions through the whole engine (tracking, resampling, windows), with a classifier that
/// always names the exercise, so only the counting and its end-of-input handling are under test.
struct EngineRepetitionTests {
    /// A classifier whose every window comes out as `action` (all weights 0, that class's bias high).
    static func constantNet(_ action: ActionClass) -> TemporalConvNet {
        let net = Fixtures.randomNet()
        var values = [Float](repeating: 0, count: net.parameterCount)
        values[net.parameterCount - ActionClass.count + action.rawValue] = 10
        net.parameterValues = values
        return net
    }

    /// Input frames at `fps` (not the model's 30) from a synthetic exercise.
    static func input(_ ex: SyntheticExercise, reps: Int, from start: Double, to end: Double) -> [PoseFrame] {
        ex.frames(reps: reps, from: start, to: end).map { f in
            PoseFrame(frame: f.slot, time: f.time - start, poses: f.pose.map { [$0] } ?? [])
        }
    }

    static func reps(_ events: [ActionEvent]) -> [RepetitionEvent] {
        events.compactMap { if case .repetition(let r) = $0 { return r } else { return nil } }
    }

    @Test(arguments: [25.0, 30.0])
    func repEventsCarryTheTurningPointsFrameAndTimeAndItsCue(fps: Double) throws {
        var ex = SyntheticExercise.standard(.squats)
        ex.fps = fps
        let start = -0.6
        let events = Fixtures.run(Fixtures.engine(Self.constantNet(.squats)), Self.input(ex, reps: 3, from: start, to: 3 * ex.period + 0.6))
        let reps = Self.reps(events)
        #expect(reps.map(\.count) == [1, 2, 3])
        for (k, r) in reps.enumerated() {
            let turning = ex.turningTime(k) - start
            #expect(abs(r.time - turning) <= 2.5 / 30, "rep \(k + 1) at \(r.time) s, turning point at \(turning) s")
            #expect(abs(Double(r.frame) - turning * fps) <= 2.5 * fps / 30, "rep \(k + 1) frame \(r.frame)")
            guard case .depth(let depth, _, _) = r.cue else { Issue.record("squat rep without a depth cue"); continue }
            #expect((depth ?? 0) > 0.25)
        }
        #expect(Fixtures.summary(events)?.reps[.squats] == 3)
    }

    /// The end of the input decides the last repetition: cut just after its turning point it
    /// counts, cut just before it does not, whether or not the end falls on a window boundary.
    @Test(arguments: [ActionClass.squats, .jumpingJacks])
    func theLastRepetitionAtTheEndOfTheInput(action: ActionClass) {
        let ex = SyntheticExercise.standard(action)
        for extra in 0..<10 {  // shifts the end across a window stride (10 model frames)
            let shift = Double(extra) / 30
            let after = Self.input(ex, reps: 4, from: -0.6 - shift, to: ex.turningTime(3) + 2 / 30)
            let before = Self.input(ex, reps: 4, from: -0.6 - shift, to: ex.turningTime(3) - 0.15 * ex.period)
            let counted = Fixtures.summary(Fixtures.run(Fixtures.engine(Self.constantNet(action)), after))?.reps[action]
            let notYet = Fixtures.summary(Fixtures.run(Fixtures.engine(Self.constantNet(action)), before))?.reps[action]
            #expect(counted == 4, "\(action), end 2 frames after the 4th turning point, start shifted \(extra)")
            #expect(notYet == 3, "\(action), end before the 4th turning point, start shifted \(extra)")
        }
    }

    /// PoseNet misses the person for 0.6 s on the way down, and tracks live 0.5 s (the tracker then
    /// starts a new ID at the same place): the same person's repetition still counts, a new
    /// person's does not carry on.
    @Test func aSplitTrackKeepsItsRepetitions() {
        let ex = SyntheticExercise.standard(.squats)
        let gap = (ex.turningTime(1) - 0.5)...(ex.turningTime(1) + 0.1)
        let frames = Self.input(ex, reps: 4, from: -0.6, to: 4 * ex.period + 0.6).map { f -> PoseFrame in
            var g = f
            if gap.contains(f.time - 0.6) { g.poses = [] }
            return g
        }
        let events = Fixtures.run(Fixtures.engine(Self.constantNet(.squats), trackAge: 0.5), frames)
        #expect(Fixtures.summary(events)?.reps[.squats] == 4)
        let tracks = Set(Fixtures.predictions(events).compactMap(\.trackID))
        #expect(tracks.count == 2, "the gap must split the track for this test to mean anything: \(tracks)")
        // Someone else, elsewhere in the picture, after the same gap: their first half-repetition is not counted.
        let moved = frames.map { f -> PoseFrame in
            guard f.time - 0.6 > gap.upperBound else { return f }
            var g = f
            g.poses = f.poses.map { p in Fixtures.mapped(p) { Point(x: $0.x + 1000, y: $0.y) } }
            return g
        }
        let other = Fixtures.summary(Fixtures.run(Fixtures.engine(Self.constantNet(.squats), trackAge: 0.5), moved))?.reps[.squats]
        #expect(other == 3, "\(String(describing: other))")
    }

    @Test func theOverlayStatusShowsTheLastRepetitionsCue() throws {
        let ex = SyntheticExercise.standard(.jumpingJacks)
        let engine = Fixtures.engine(Self.constantNet(.jumpingJacks))
        var last: RepetitionEvent?
        for f in Self.input(ex, reps: 5, from: -0.6, to: 5 * ex.period + 0.6) {
            for case .repetition(let r) in try engine.process(f) { last = r }
            if let shown = engine.status.lastRepetition { #expect(shown.count <= last?.count ?? 0) }
        }
        #expect(last?.count == 5 && engine.status.lastRepetition == last)
        #expect(engine.status.repetitions == 5)
        if case .amplitude(let arm, _)? = engine.status.lastRepetition?.cue { #expect((arm ?? 0) > 140) } else { Issue.record("no amplitude cue") }
    }
}
