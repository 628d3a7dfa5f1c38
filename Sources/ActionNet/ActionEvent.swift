import PoseCore

/// The classifier's verdict on one window.
public struct WindowPrediction: Sendable, Equatable {
    /// First and last input frame the window covers, and their model-rate times (seconds).
    public var frameStart: Int, frameEnd: Int
    public var timeStart: Double, timeEnd: Double
    /// The action, or `no_person` / `low_confidence`.
    public var label: ActionLabel
    /// Top class probability (0 for `no_person`, which is not classified).
    public var confidence: Double
    /// Probability of every class, in the classifier's output order (``classNames``; all 0 for `no_person`).
    public var probabilities: [Double]
    /// The prominent person's track (nil when nobody was seen).
    public var trackID: Int?
    /// The exercise the most probable class stands for, even when `label` abstains (nil for
    /// `no_person`, and for a Create ML class our repetition counters do not know).
    public var topClass: ActionClass?
    /// The classifier's class names in output order: ActionNet's ``ActionClass`` names, or a
    /// Create ML model's labels as spelled.
    public var classNames: [String] = ActionClass.allCases.map(\.name)
}

/// One counted repetition (see `TurningPointDetector` for when one counts: at its turning point).
public struct RepetitionEvent: Sendable, Equatable {
    public var action: ActionClass
    /// Running count for `action`, starting at 1.
    public var count: Int
    /// Input frame and time of the repetition's turning point.
    public var frame: Int
    public var time: Double
    /// How the repetition was done.
    public var cue: RepetitionCue

    public init(action: ActionClass, count: Int, frame: Int, time: Double, cue: RepetitionCue) {
        self.action = action; self.count = count; self.frame = frame; self.time = time; self.cue = cue
    }
}

/// End-of-stream totals, like the summary view of Apple's sample.
public struct ActionSummary: Sendable, Equatable {
    /// Input frames consumed.
    public var frames: Int
    /// The label with the most time (an action class when any was seen), nil for an empty stream.
    public var label: ActionLabel?
    /// Seconds per label, for labels seen at all.
    public var seconds: [ActionLabel: Double]
    /// Repetitions per exercise (every exercise listed, zeros included).
    public var reps: [ActionClass: Int]
    /// The classifier's classes in output order (the order `seconds` is written in, abstentions last).
    public var classLabels: [ActionLabel] = ActionClass.allCases.map { .action($0) }
}

/// What ``ActionEngine`` emits; ``jsonLine`` is the `posekit actions` output format.
public enum ActionEvent: Sendable, Equatable {
    case prediction(WindowPrediction)
    case repetition(RepetitionEvent)
    case summary(ActionSummary)

    /// One line of JSON (no trailing newline) with keys in the documented order:
    /// `{"type": "prediction", "frame_start", "frame_end", "time_start", "time_end", "label",
    /// "confidence", "probabilities": {class: p}, "track"}`,
    /// `{"type": "rep", "label", "count", "frame", "time", cue fields}` (``RepetitionCue``),
    /// `{"type": "summary", "frames", "label", "seconds": {label: s}, "reps": {class: n}}`.
    /// Numbers have at most 2 to 4 decimals, trailing zeros dropped (``/PoseCore/JSONText/trimmedNumber(_:decimals:)``).
    public var jsonLine: String {
        var json = JSONText(capacity: 512)
        append(to: &json)
        return json.text
    }

    /// Appends ``jsonLine`` (no newline) to `json`.
    public func append(to json: inout JSONText) {
        switch self {
        case .prediction(let p):
            json.raw("{\"type\": \"prediction\", \"frame_start\": "); json.integer(p.frameStart)
            json.raw(", \"frame_end\": "); json.integer(p.frameEnd)
            json.raw(", \"time_start\": "); json.trimmedNumber(p.timeStart, decimals: 3)
            json.raw(", \"time_end\": "); json.trimmedNumber(p.timeEnd, decimals: 3)
            json.raw(", \"label\": "); json.string(p.label.name)
            json.raw(", \"confidence\": "); json.trimmedNumber(p.confidence, decimals: 4)
            json.raw(", \"probabilities\": {")
            for (i, name) in p.classNames.enumerated() {
                if i > 0 { json.raw(", ") }
                json.string(name); json.raw(": "); json.trimmedNumber(p.probabilities[i], decimals: 4)
            }
            json.raw("}, \"track\": ")
            if let track = p.trackID { json.integer(track) } else { json.raw("null") }
            json.raw("}")
        case .repetition(let r):
            json.raw("{\"type\": \"rep\", \"label\": "); json.string(r.action.name)
            json.raw(", \"count\": "); json.integer(r.count)
            json.raw(", \"frame\": "); json.integer(r.frame)
            json.raw(", \"time\": "); json.trimmedNumber(r.time, decimals: 3)
            json.raw(", ")
            r.cue.appendMembers(to: &json)
            json.raw("}")
        case .summary(let s):
            let order = s.classLabels + [.lowConfidence, .noPerson]
            json.raw("{\"type\": \"summary\", \"frames\": "); json.integer(s.frames)
            json.raw(", \"label\": ")
            if let label = s.label { json.string(label.name) } else { json.raw("null") }
            json.raw(", \"seconds\": {")
            var first = true
            for label in order {
                guard let seconds = s.seconds[label] else { continue }
                if !first { json.raw(", ") }
                first = false
                json.string(label.name); json.raw(": "); json.trimmedNumber(seconds, decimals: 2)
            }
            json.raw("}, \"reps\": {")
            for (i, action) in ActionClass.exercises.enumerated() {
                if i > 0 { json.raw(", ") }
                json.string(action.name); json.raw(": "); json.integer(s.reps[action] ?? 0)
            }
            json.raw("}}")
        }
    }
}
