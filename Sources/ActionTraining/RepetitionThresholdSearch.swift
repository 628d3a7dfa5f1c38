@_spi(Training) import ActionNet
import Foundation
import PoseCore

/// Chooses the repetition counters' thresholds (``RepetitionThresholds``) on a set of labeled
/// clips, and reports them leave-one-clip-out: the protocol of docs/actions.md ("How the
/// thresholds are chosen"), run by `posekit train-actions --choose-thresholds` and
/// `scripts/rep-protocol.sh`. Deterministic: no random choice anywhere (the classifiers it is
/// given are trained with a seed).
///
/// For each exercise with real clips (squats, lunges, jumping jacks), on the clips it may look at:
/// 1. **The zone.** Every value of the exercise's grid (``zoneGrids``) counts the clips through the
///    whole pipeline (the given classifier's windows decide which exercise is going on) with the
///    posture rules off; the error is the sum over clips of |counted − labeled| repetitions of that
///    exercise (labels.json's count on a clip of it, 0 on every other clip). The zone is the middle
///    of the longest run of consecutive grid values with the least error (lower middle of an even
///    run, the first of equally long runs). Clips without a labeled repetition of the exercise
///    cannot place its zone (every value counts them right): then the given zone stays.
/// 2. **The posture rule.** With that zone and the rules off, the rule's reading of every turning
///    point the counter finds. The rule is there to stop what the rest of the pipeline would count
///    wrongly, and a threshold set higher than that needs rejects real repetitions of people and
///    views the clips do not show (the issue this protocol answers). So the threshold moves only
///    for the pipeline's own mistakes: turning points the pipeline counts for the exercise on clips
///    of other movements (*counted counter-examples*). With any, it is the least whole degree above
///    the highest of them (the middle of the gap when that would reach the lowest repetition
///    counted on the exercise's own clips); with none, the given threshold stays.
///    For information the choice also reports every counter-example, counted or not (the counter's
///    turning points on clips of other movements but the exercise whose posture reads alike,
///    ``lookalike(_:)``: squats and lunges both bend the knees at the bottom).
/// Burpees keep the given thresholds (no shared clip shows a burpee; they are set on stick figures).
public enum RepetitionThresholdSearch {
    /// The exercises whose thresholds are chosen on clips.
    public static let searched: [ActionClass] = [.jumpingJacks, .lunges, .squats]

    /// The zone values tried, per exercise (nine each, every exercise's i-th value in one run):
    /// squats' and lunges' hip drop (fraction of the standing hip height), jumping jacks' openness.
    public static let zoneGrids: [ActionClass: [Double]] = [
        .squats: (0..<9).map { 0.14 + 0.02 * Double($0) },
        .lunges: (0..<9).map { 0.09 + 0.015 * Double($0) },
        .jumpingJacks: (0..<9).map { 0.54 + 0.02 * Double($0) },
    ]

    /// The exercise whose posture cue reads like `exercise`'s at the turning point, so is no
    /// counter-example for its rule: squats ↔ lunges (both bend the knees).
    public static func lookalike(_ exercise: ActionClass) -> ActionClass? {
        switch exercise {
        case .squats: return .lunges
        case .lunges: return .squats
        default: return nil
        }
    }

    /// One clip run through the pipeline with given thresholds.
    public struct ClipRun: Sendable {
        public var clip: String
        /// Repetitions counted, and turning points rejected by a posture rule, per exercise.
        public var counts: [ActionClass: Int]
        public var rejected: [ActionClass: Int]
        /// Every turning point found, with its reading and verdict.
        var turningPoints: [TurningPointRecord]
    }

    /// What was chosen for one exercise, and on what.
    public struct ExerciseChoice: Sendable {
        public var exercise: ActionClass
        /// The zone's grid values with the least error (the chosen one is their longest run's middle) and that error.
        public var bestZones: [Double]
        public var zoneError: Int
        /// Whether the clips hold no labeled repetition of the exercise, so the zone is the given one, not chosen.
        public var zoneGiven: Bool
        /// The lowest reading of a repetition and the highest of a counter-example (nil: none seen).
        public var lowestRepetition: Double?
        public var highestCounterExample: Double?
        /// How many turning points the pipeline counted for the exercise on clips of other movements.
        public var countedCounterExamples: Int
        /// Every counter-example: its clip, time (s) and reading, highest first.
        public var counterExamples: [(clip: String, time: Double, reading: Double)]
    }

    /// The thresholds chosen on a set of clips and how.
    public struct Choice: Sendable {
        public var thresholds: RepetitionThresholds
        public var exercises: [ExerciseChoice]
        /// Count errors on the clips chosen on, with the chosen thresholds (rules on), per exercise.
        public var errors: [ActionClass: Int]
    }

    /// The labeled repetitions of `exercise` on `clip`: labels.json's count on a clip of it, 0 on any other.
    public static func expected(_ exercise: ActionClass, on clip: LabeledClip) -> Int {
        clip.label == exercise ? (clip.repetitions ?? 0) : 0
    }

    /// Runs `clip` through the whole pipeline (ActionNet's settings: 30 frames/s, windows of 60
    /// every 10) with `classifier` and `thresholds`.
    public static func run(_ clip: LabeledClip, classifier: TemporalConvNet, thresholds: RepetitionThresholds) throws -> ClipRun {
        var configuration = ActionEngineConfiguration()
        configuration.repetitionThresholds = thresholds
        let engine = try ActionEngine(classifier: classifier, configuration: configuration)
        engine.recordsTurningPoints = true
        var events: [ActionEvent] = []
        for f in clip.frames { events += try engine.process(f) }
        events += try engine.finish()
        guard case .summary(let summary)? = events.last else { throw ActionNetError.badTrainingData("\(clip.name): no summary") }
        return ClipRun(clip: clip.name, counts: summary.reps, rejected: summary.rejectedReps, turningPoints: engine.turningPoints)
    }

    /// Sum over `runs` of |counted − labeled| repetitions of `exercise`.
    static func error(_ exercise: ActionClass, _ runs: [ClipRun], _ clips: [LabeledClip]) -> Int {
        zip(runs, clips).reduce(0) { $0 + abs(($1.0.counts[exercise] ?? 0) - expected(exercise, on: $1.1)) }
    }

    /// The middle of the longest run of consecutive `true`s (lower middle; the first of equal runs).
    static func middleOfLongestRun(_ best: [Bool]) -> Int? {
        var bestStart = -1, bestLength = 0, start = 0
        for i in 0...best.count {
            if i < best.count && best[i] { continue }
            if i - start > bestLength { bestStart = start; bestLength = i - start }
            start = i + 1
        }
        return bestLength > 0 ? bestStart + (bestLength - 1) / 2 : nil
    }

    /// The posture threshold for `counted` counter-examples (readings of turning points the
    /// pipeline counted on clips of other movements) and the exercise's `repetitions`: the least
    /// whole degree above every counted counter-example, or the middle of the gap when that would
    /// reach the lowest repetition; nil (keep the given threshold) when nothing was counted wrongly.
    static func postureThreshold(repetitions: [Double], counted: [Double]) -> Double? {
        guard let high = counted.max() else { return nil }
        let above = (high + 1).rounded(.down)
        if let low = repetitions.min(), above > low { return ((high + low) / 2).rounded() }
        return above
    }

    /// Chooses the thresholds on `clips` (the protocol above), counting with `classifier`;
    /// exercises not searched keep `base`'s.
    public static func choose(on clips: [LabeledClip], classifier: TemporalConvNet,
                              base: RepetitionThresholds = .shipped) throws -> Choice {
        guard !clips.isEmpty else { throw ActionNetError.badTrainingData("no clips to choose thresholds on") }
        let grid = zoneGrids[searched[0]]!.indices
        // 1. Zones, rules off: every exercise's i-th grid value in one run (the counters are independent).
        var errors: [ActionClass: [Int]] = [:]
        for i in grid {
            var t = base.withoutPostureRules
            for e in searched { t.setZone(e, zoneGrids[e]![i]) }
            let runs = try clips.map { try run($0, classifier: classifier, thresholds: t) }
            for e in searched { errors[e, default: []].append(error(e, runs, clips)) }
        }
        var chosen = base
        var zoneChoices: [ActionClass: (best: [Double], error: Int)] = [:]
        for e in searched {
            let least = errors[e]!.min()!
            let i = middleOfLongestRun(errors[e]!.map { $0 == least })!
            // No repetition of the exercise to count: nothing here can place its zone; `base`'s stays.
            if clips.contains(where: { expected(e, on: $0) > 0 }) { chosen.setZone(e, zoneGrids[e]![i]) }
            zoneChoices[e] = (grid.filter { errors[e]![$0] == least }.map { zoneGrids[e]![$0] }, least)
        }
        // 2. Posture rules at those zones, from the readings of every turning point.
        let runs = try clips.map { try run($0, classifier: classifier, thresholds: chosen.withoutPostureRules) }
        var exercises: [ExerciseChoice] = []
        for e in searched {
            var repetitions: [Double] = [], counterExamples: [Double] = [], counted: [Double] = []
            var sources: [(clip: String, time: Double, reading: Double)] = []
            for (r, clip) in zip(runs, clips) {
                for p in r.turningPoints where p.action == e {
                    guard let reading = p.reading else { continue }
                    if clip.label == e {
                        if p.verdict == .counted { repetitions.append(reading) }
                        continue
                    }
                    if p.verdict == .counted { counted.append(reading) }
                    if clip.label != lookalike(e) {
                        counterExamples.append(reading)
                        sources.append((clip.name, p.time, reading))
                    }
                }
            }
            if let t = postureThreshold(repetitions: repetitions, counted: counted) { chosen.setPostureMinimum(e, t) }
            exercises.append(ExerciseChoice(exercise: e, bestZones: zoneChoices[e]!.best, zoneError: zoneChoices[e]!.error,
                                            zoneGiven: !clips.contains { expected(e, on: $0) > 0 }, lowestRepetition: repetitions.min(), highestCounterExample: counterExamples.max(),
                                            countedCounterExamples: counted.count,
                                            counterExamples: sources.sorted { $0.reading > $1.reading }))
        }
        let final = try clips.map { try run($0, classifier: classifier, thresholds: chosen) }
        var finalErrors: [ActionClass: Int] = [:]
        for e in searched { finalErrors[e] = error(e, final, clips) }
        return Choice(thresholds: chosen, exercises: exercises, errors: finalErrors)
    }

    /// One held-out clip: the thresholds chosen without it and what they count on it.
    public struct HeldOut: Sendable {
        public var clip: LabeledClip
        public var choice: Choice
        public var run: ClipRun
    }

    /// The protocol leave-one-clip-out: for each clip, thresholds chosen on the other clips with
    /// `classifier(clip, otherClips)` (the classifier trained without it), then the clip counted with both.
    public static func leaveOneClipOut(_ clips: [LabeledClip], base: RepetitionThresholds = .shipped,
                                       classifier: (_ heldOut: LabeledClip, _ training: [LabeledClip]) throws -> TemporalConvNet) throws -> [HeldOut] {
        try LeaveOneClipOut.folds(clips, name: \.name).map { fold in
            let net = try classifier(fold.heldOut, fold.training)
            let choice = try choose(on: fold.training, classifier: net, base: base)
            let counted = try run(fold.heldOut, classifier: net, thresholds: choice.thresholds)
            return HeldOut(clip: fold.heldOut, choice: choice, run: counted)
        }
    }
}
