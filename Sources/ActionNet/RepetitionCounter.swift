import PoseCore

/// A repetition one exercise counter found, before the classifier says whether that exercise is
/// going on: its turning point (slot, frame, time), the posture cue measured there and the
/// verdict of the counter's ``PostureRule``.
struct RepetitionCandidate {
    var action: ActionClass
    var slot: Int
    var sourceFrame: Int
    var time: Double
    var cue: RepetitionCue
    /// The posture rule's reading (the most exercise-like value of its cue; nil: never measured).
    var posture: Double?
    /// Whether the turning point passed the posture rule; one that did not is never counted.
    var looksLikeExercise: Bool
    /// The rule it was judged by.
    var rule: PostureRule

    init(_ action: ActionClass, _ turn: TurningPointDetector<RepetitionCue>.TurningPoint, posture: Double?, rule: PostureRule) {
        self.action = action
        slot = turn.slot; sourceFrame = turn.sourceFrame; time = turn.time; cue = turn.cue
        self.posture = posture
        self.rule = rule
        looksLikeExercise = rule.accepts(posture)
    }

    /// A turning point judged on the reading its detector kept over the turning phase.
    init(_ action: ActionClass, _ turn: TurningPointDetector<RepetitionCue>.TurningPoint, rule: PostureRule) {
        self.init(action, turn, posture: turn.posture, rule: rule)
    }
}

/// Counts repetitions of every exercise at once, each on its own geometric signal and the one
/// convention of ``TurningPointDetector`` (a repetition counts at its turning point); the
/// classifier's windows then decide which exercise's repetitions are real (``ActionEngine``).
struct RepetitionCounter {
    /// The zones and posture rules' thresholds every counter is built with.
    let thresholds: RepetitionThresholds
    private var reader = BodySignalReader()
    private var squats: DepthRepetitionCounter
    private var lunges: DepthRepetitionCounter
    private var jumpingJacks: JumpingJackCounter
    private var burpees: BurpeeCounter

    init(_ thresholds: RepetitionThresholds = .shipped) {
        self.thresholds = thresholds
        squats = .squats(thresholds); lunges = .lunges(thresholds)
        jumpingJacks = JumpingJackCounter(thresholds); burpees = BurpeeCounter(thresholds)
    }

    /// Forgets everything (a new person).
    mutating func reset() { self = RepetitionCounter(thresholds) }

    /// Feeds one model-rate frame; returns the turning points confirmed on it (they lie at or
    /// a few frames before this frame).
    mutating func update(_ frame: ResampledFrame) -> [RepetitionCandidate] {
        guard let pose = frame.pose else { return [] }
        let s = reader.read(pose, slot: frame.slot)
        return [squats.update(s, frame), lunges.update(s, frame), jumpingJacks.update(s, frame), burpees.update(s, frame)]
            .compactMap { $0 }
    }

    /// Ends the input: the repetitions that reached their turning point but whose return was cut off.
    mutating func finish() -> [RepetitionCandidate] {
        [squats.finish(), lunges.finish(), jumpingJacks.finish(), burpees.finish()].compactMap { $0 }
    }
}
