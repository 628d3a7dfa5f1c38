import PoseCore

/// A repetition one exercise counter found, before the classifier says whether that exercise is
/// going on: its turning point (slot, frame, time) and the posture cue measured there.
struct RepetitionCandidate {
    var action: ActionClass
    var slot: Int
    var sourceFrame: Int
    var time: Double
    var cue: RepetitionCue

    init(_ action: ActionClass, _ turn: TurningPointDetector<RepetitionCue>.TurningPoint) {
        self.action = action
        slot = turn.slot; sourceFrame = turn.sourceFrame; time = turn.time; cue = turn.cue
    }
}

/// Counts repetitions of every exercise at once, each on its own geometric signal and the one
/// convention of ``TurningPointDetector`` (a repetition counts at its turning point); the
/// classifier's windows then decide which exercise's repetitions are real (``ActionEngine``).
struct RepetitionCounter {
    private var reader = BodySignalReader()
    private var squats = DepthRepetitionCounter.squats
    private var lunges = DepthRepetitionCounter.lunges
    private var jumpingJacks = JumpingJackCounter()
    private var burpees = BurpeeCounter()

    /// Forgets everything (a new person).
    mutating func reset() { self = RepetitionCounter() }

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
