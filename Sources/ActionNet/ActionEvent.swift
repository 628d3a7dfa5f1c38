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
    /// The repetition counter the most probable class is mapped to (``ActionEngineConfiguration/counters``),
    /// even when `label` abstains; ActionNet's ``ActionClass/other`` for its `other`; nil for
    /// `no_person` and for a Create ML class without a counter.
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
    /// The class counted, as the classifier spells it (`"Jumping Jacks"` for a Create ML model;
    /// ActionNet's `"jumping_jacks"`).
    public var label: String

    public init(action: ActionClass, count: Int, frame: Int, time: Double, cue: RepetitionCue, label: String? = nil) {
        self.action = action; self.count = count; self.frame = frame; self.time = time; self.cue = cue
        self.label = label ?? action.name
    }
}

/// A turning point in a window of its exercise that failed the exercise's posture rule, so was
/// not counted (`{"type": "rejected_rep", ...}`): a movement seen and judged not to be a
/// repetition, as opposed to one never seen.
public struct RejectedRepetition: Sendable, Equatable {
    /// The counter it was found by, and its class's label as the classifier spells it.
    public var action: ActionClass
    public var label: String
    /// Input frame and time of the turning point.
    public var frame: Int
    public var time: Double
    /// The posture rule that rejected it (`knees_bent`, `knee_forward`, `arms_raised`, `hips_down`),
    /// the most exercise-like reading of its cue over the turning phase and the least that counts.
    public var rule: String
    public var reading: Double
    public var threshold: Double
    /// The turning point's cue, as a counted repetition's.
    public var cue: RepetitionCue

    public init(action: ActionClass, label: String, frame: Int, time: Double, rule: String, reading: Double, threshold: Double,
                cue: RepetitionCue) {
        self.action = action; self.label = label; self.frame = frame; self.time = time
        self.rule = rule; self.reading = reading; self.threshold = threshold; self.cue = cue
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
    /// Repetitions per counter (every counted class listed, zeros included).
    public var reps: [ActionClass: Int]
    /// Turning points per counter that came in a window of that class but failed its posture
    /// rule, so were not counted (every counted class listed, zeros included).
    public var rejectedReps: [ActionClass: Int] = [:]
    /// The classifier's classes in output order (the order `seconds` is written in, abstentions last).
    public var classLabels: [ActionLabel] = ActionClass.allCases.map { .action($0) }
    /// The counted classes and their labels: `reps` and `rejected_reps` are written for these
    /// only, under these labels, in this order.
    public var counters: RepetitionCounterMapping = .actionNet
}

/// What ``ActionEngine`` emits; ``jsonLine`` is the `posekit actions` output format.
public enum ActionEvent: Sendable, Equatable {
    case prediction(WindowPrediction)
    case repetition(RepetitionEvent)
    /// A turning point the posture rule rejected (not counted; tallied in the summary's `rejected_reps`).
    case rejectedRepetition(RejectedRepetition)
    case summary(ActionSummary)

    /// One line of JSON (no trailing newline) with keys in the documented order:
    /// `{"type": "prediction", "frame_start", "frame_end", "time_start", "time_end", "label",
    /// "confidence", "probabilities": {class: p}, "track"}`,
    /// `{"type": "rep", "label", "count", "frame", "time", cue fields}` (``RepetitionCue``),
    /// `{"type": "rejected_rep", "label", "frame", "time", "rule", "reading", "threshold", cue fields}`,
    /// `{"type": "summary", "frames", "label", "seconds": {label: s}, "reps": {class: n}, "rejected_reps": {class: n}}`.
    /// Numbers follow ``/PoseCore/JSONText``'s one rule: times at most 3 decimals, confidences and
    /// probabilities 4, cue proportions 2, angles none, trailing zeros dropped (``/PoseCore/JSONText/number(_:decimals:)``).
    ///
    /// A convenience for printing or tests: a writer of many events appends them to one
    /// ``/PoseCore/JSONText`` with ``append(to:)`` (as `posekit actions` does) and writes its bytes.
    public var jsonLine: String {
        var json = JSONText(capacity: 512)
        append(to: &json)
        return json.text
    }

    /// Appends the event's JSON (``jsonLine``'s text, no newline) to `json`.
    public func append(to json: inout JSONText) {
        switch self {
        case .prediction(let p):
            json.raw("{\"type\": \"prediction\", \"frame_start\": "); json.integer(p.frameStart)
            json.raw(", \"frame_end\": "); json.integer(p.frameEnd)
            json.raw(", \"time_start\": "); json.number(p.timeStart, decimals: JSONText.Decimals.seconds)
            json.raw(", \"time_end\": "); json.number(p.timeEnd, decimals: JSONText.Decimals.seconds)
            json.raw(", \"label\": "); json.string(p.label.name)
            json.raw(", \"confidence\": "); json.number(p.confidence, decimals: JSONText.Decimals.scores)
            json.raw(", \"probabilities\": {")
            for (i, name) in p.classNames.enumerated() {
                if i > 0 { json.raw(", ") }
                json.string(name); json.raw(": "); json.number(p.probabilities[i], decimals: JSONText.Decimals.scores)
            }
            json.raw("}, \"track\": ")
            if let track = p.trackID { json.integer(track) } else { json.raw("null") }
            json.raw("}")
        case .repetition(let r):
            json.raw("{\"type\": \"rep\", \"label\": "); json.string(r.label)
            json.raw(", \"count\": "); json.integer(r.count)
            json.raw(", \"frame\": "); json.integer(r.frame)
            json.raw(", \"time\": "); json.number(r.time, decimals: JSONText.Decimals.seconds)
            json.raw(", ")
            r.cue.appendMembers(to: &json)
            json.raw("}")
        case .rejectedRepetition(let r):
            json.raw("{\"type\": \"rejected_rep\", \"label\": "); json.string(r.label)
            json.raw(", \"frame\": "); json.integer(r.frame)
            json.raw(", \"time\": "); json.number(r.time, decimals: JSONText.Decimals.seconds)
            json.raw(", \"rule\": "); json.string(r.rule)
            // Angles in whole degrees, proportions (the burpee's hip drop) to 2 decimals, as the cues.
            let decimals = r.threshold >= 2 ? JSONText.Decimals.degrees : JSONText.Decimals.proportions
            json.raw(", \"reading\": "); json.number(r.reading, decimals: decimals)
            json.raw(", \"threshold\": "); json.number(r.threshold, decimals: decimals)
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
                json.string(label.name); json.raw(": "); json.number(seconds, decimals: JSONText.Decimals.seconds)
            }
            json.raw("}, \"reps\": ")
            Self.appendPerCounter(s.reps, s.counters, to: &json)
            json.raw(", \"rejected_reps\": ")
            Self.appendPerCounter(s.rejectedReps, s.counters, to: &json)
            json.raw("}")
        }
    }

    /// `{label: n}` for every counted class, in the classifier's order (0 when missing).
    private static func appendPerCounter(_ counts: [ActionClass: Int], _ counters: RepetitionCounterMapping, to json: inout JSONText) {
        json.raw("{")
        for (i, entry) in counters.entries.enumerated() {
            if i > 0 { json.raw(", ") }
            json.string(entry.label); json.raw(": "); json.integer(counts[entry.counter] ?? 0)
        }
        json.raw("}")
    }
}
