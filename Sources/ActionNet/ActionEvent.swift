import Foundation

/// The classifier's verdict on one window.
public struct WindowPrediction: Sendable, Equatable {
    /// First and last input frame the window covers, and their model-rate times (seconds).
    public var frameStart: Int, frameEnd: Int
    public var timeStart: Double, timeEnd: Double
    /// The action, or `no_person` / `low_confidence`.
    public var label: ActionLabel
    /// Top class probability (0 for `no_person`, which is not classified).
    public var confidence: Double
    /// Probability of every class, in ``ActionClass`` order (all 0 for `no_person`).
    public var probabilities: [Double]
    /// The prominent person's track (nil when nobody was seen).
    public var trackID: Int?
    /// The most probable class, even when `label` abstains (nil for `no_person`).
    public var topClass: ActionClass?
}

/// One counted repetition (see ``TurningPointDetector`` for when one counts).
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
    public var jsonLine: String {
        switch self {
        case .prediction(let p):
            let probs = ActionClass.allCases.map { "\(JSON.string($0.name)): \(JSON.number(p.probabilities[$0.rawValue], digits: 4))" }
            return "{\"type\": \"prediction\", \"frame_start\": \(p.frameStart), \"frame_end\": \(p.frameEnd), "
                + "\"time_start\": \(JSON.number(p.timeStart, digits: 3)), \"time_end\": \(JSON.number(p.timeEnd, digits: 3)), "
                + "\"label\": \(JSON.string(p.label.name)), \"confidence\": \(JSON.number(p.confidence, digits: 4)), "
                + "\"probabilities\": {\(probs.joined(separator: ", "))}, \"track\": \(p.trackID.map(String.init) ?? "null")}"
        case .repetition(let r):
            return "{\"type\": \"rep\", \"label\": \(JSON.string(r.action.name)), \"count\": \(r.count), "
                + "\"frame\": \(r.frame), \"time\": \(JSON.number(r.time, digits: 3)), \(r.cue.jsonMembers.joined(separator: ", "))}"
        case .summary(let s):
            let order = ActionClass.allCases.map { ActionLabel.action($0) } + [.lowConfidence, .noPerson]
            let secs = order.compactMap { l in s.seconds[l].map { "\(JSON.string(l.name)): \(JSON.number($0, digits: 2))" } }
            let reps = ActionClass.exercises.map { "\(JSON.string($0.name)): \(s.reps[$0] ?? 0)" }
            return "{\"type\": \"summary\", \"frames\": \(s.frames), \"label\": \(s.label.map { JSON.string($0.name) } ?? "null"), "
                + "\"seconds\": {\(secs.joined(separator: ", "))}, \"reps\": {\(reps.joined(separator: ", "))}}"
        }
    }
}

/// Minimal JSON formatting for the event lines (fixed key order, bounded digits).
enum JSON {
    static func number(_ x: Double, digits: Int) -> String {
        guard x.isFinite else { return "null" }
        var s = String(format: "%.\(digits)f", x)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.append("0") }
        }
        if s == "-0.0" { s = "0.0" }
        return s
    }

    static func string(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }
}
