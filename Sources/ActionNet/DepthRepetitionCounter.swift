import PoseCore
/// Squats and lunges: the hips drop and the knees bend; the turning point is the deepest point
/// (the hips' lowest height above the ankles, in torso lengths). The zones read the hip drop as a
/// fraction of the person's standing hip height; in a side view the knee angle confirms a
/// shallower drop, from the front the hip drop alone carries it. (The standing height follows the
/// last 5 s, so the drop fraction drifts within a repetition and does not locate its bottom.)
/// The bottom counts only if the knees show it (``posture``): both bent for a squat, one forward
/// and bent for a lunge.
struct DepthRepetitionCounter {
    let action: ActionClass
    /// Extreme zone: `depth > extremeDepth`, or `depth > kneeDepth` with a knee angle under `extremeKnee`.
    let extremeDepth: Double, kneeDepth: Double, extremeKnee: Double
    /// Back up: `depth < neutralDepth` and (when given) a knee angle over `neutralKnee`.
    let neutralDepth: Double, neutralKnee: Double?
    /// What the bottom must look like (``PostureRule/kneesBent(_:)``, ``PostureRule/kneeForward(_:)``).
    let posture: PostureRule
    private var detector: TurningPointDetector<RepetitionCue>

    /// Squats: at the top the legs are straight again. Fastest bodyweight squats: about 0.9 s each.
    /// The zone's depth and the posture rule: `thresholds` (``RepetitionThresholds/squatDepth``).
    static func squats(_ thresholds: RepetitionThresholds) -> DepthRepetitionCounter {
        DepthRepetitionCounter(action: .squats, extremeDepth: thresholds.squatDepth, kneeDepth: 0.12, extremeKnee: 100,
                               neutralDepth: 0.08, neutralKnee: 150, posture: .kneesBent(thresholds), turnBack: 0.1, fastestPeriod: 0.9)
    }

    /// Lunges: "back up" is read from the hips alone, since between lunges the smaller knee angle
    /// is often the far leg's, which PoseNet misplaces in a side view. Fastest: about 1 s each.
    /// The zone's depth and the posture rule: `thresholds` (``RepetitionThresholds/lungeDepth``).
    static func lunges(_ thresholds: RepetitionThresholds) -> DepthRepetitionCounter {
        DepthRepetitionCounter(action: .lunges, extremeDepth: thresholds.lungeDepth, kneeDepth: 0.1, extremeKnee: 110,
                               neutralDepth: 0.06, neutralKnee: nil, posture: .kneeForward(thresholds), turnBack: 0.08, fastestPeriod: 1.0)
    }

    init(action: ActionClass, extremeDepth: Double, kneeDepth: Double, extremeKnee: Double,
         neutralDepth: Double, neutralKnee: Double?, posture: PostureRule, turnBack: Double, fastestPeriod: Double) {
        self.action = action
        self.posture = posture
        self.extremeDepth = extremeDepth; self.kneeDepth = kneeDepth; self.extremeKnee = extremeKnee
        self.neutralDepth = neutralDepth; self.neutralKnee = neutralKnee
        detector = TurningPointDetector(.init(turnBack: turnBack, fastestPeriod: fastestPeriod))
    }

    mutating func update(_ s: BodySignals, _ frame: ResampledFrame) -> RepetitionCandidate? {
        guard let depth = s.depth, let height = s.hipHeight else { return nil }
        let knee = s.kneeAngle ?? 180
        let extreme = depth > extremeDepth || (depth > kneeDepth && knee < extremeKnee)
        let neutral = depth < neutralDepth && neutralKnee.map { knee > $0 } ?? true
        let turn = detector.update(slot: frame.slot, sourceFrame: frame.sourceFrame, time: frame.time, excursion: -height,
                                   extreme: extreme, neutral: neutral, posture: s[keyPath: posture.cue]) {
            .depth(depth: depth, kneeAngle: s.kneeAngle, hipsBelowKnees: s.hipsBelowKnees.map { $0 > 0 })
        }
        return turn.map { RepetitionCandidate(action, $0, rule: posture) }
    }

    mutating func finish() -> RepetitionCandidate? { detector.finish().map { RepetitionCandidate(action, $0, rule: posture) } }
}
