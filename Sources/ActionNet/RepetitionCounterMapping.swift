/// Which of the classifier's classes PoseKit's repetition counters count, and with which counter.
///
/// Repetitions are counted, and listed in the summary, only for the classes mapped here, under
/// the class's own label as the classifier spells it (`"Jumping Jacks"` for Apple's exercise
/// classifier, `"jumping_jacks"` for ActionNet). A class not mapped (`"Other Action"`, a model's
/// `"none"`) gets no counter and no entry; an exercise the model has no class for is never counted.
///
/// ActionNet's mapping is fixed: each exercise class is counted by its own counter. A Create ML
/// model's default mapping matches its labels to the counters by name (``ActionClass/init(createMLLabel:)``:
/// letters only, case ignored, singular or plural: "Jumping Jacks", "jumping_jack" → jumping jacks;
/// "Lunges" → lunges; "Burpees" → burpees; "Squat" → squats); ``applying(_:labels:)`` overrides it
/// (`posekit actions --count LABEL=COUNTER`).
public struct RepetitionCounterMapping: Sendable, Equatable {
    /// One counted class: its label as the classifier spells it and the counter that counts it.
    public struct Entry: Sendable, Equatable {
        public var label: String
        public var counter: ActionClass
        public init(label: String, counter: ActionClass) { self.label = label; self.counter = counter }
    }

    /// The counted classes, in the classifier's output order; at most one class per counter.
    public private(set) var entries: [Entry]

    /// A mapping of the given entries.
    /// - Throws: ``ActionNetError/invalidConfiguration(_:)`` when two classes share a counter, or
    ///   an entry names ``ActionClass/other`` (which has no counter).
    public init(_ entries: [Entry]) throws {
        var seen: [ActionClass: String] = [:]
        for entry in entries {
            guard ActionClass.exercises.contains(entry.counter) else {
                throw ActionNetError.invalidConfiguration("'\(entry.label)': \(entry.counter.name) has no repetition counter (counters: \(Self.counterNames))")
            }
            if let other = seen[entry.counter] {
                throw ActionNetError.invalidConfiguration("'\(other)' and '\(entry.label)' both map to the \(entry.counter.name) counter; a counter counts one class")
            }
            seen[entry.counter] = entry.label
        }
        self.entries = entries
    }

    /// ActionNet's own: every exercise class by its counter, under its snake_case name.
    public static let actionNet = try! RepetitionCounterMapping(ActionClass.exercises.map { Entry(label: $0.name, counter: $0) })

    /// The default for a classifier with `labels` (in output order): each label that names one of
    /// the counters' exercises (``ActionClass/init(createMLLabel:)``), the first such label when
    /// several name the same one.
    public static func matchingNames(_ labels: [String]) -> RepetitionCounterMapping {
        var entries: [Entry] = []
        for label in labels {
            guard let counter = ActionClass(createMLLabel: label), !entries.contains(where: { $0.counter == counter }) else { continue }
            entries.append(Entry(label: label, counter: counter))
        }
        return try! RepetitionCounterMapping(entries)
    }

    /// This mapping with `overrides` applied: label → counter, or nil for no counter. Every label
    /// must be one of `labels` (the classifier's classes, output order kept).
    /// - Throws: ``ActionNetError/invalidConfiguration(_:)`` for a label the classifier lacks, or
    ///   two classes on one counter.
    public func applying(_ overrides: [String: ActionClass?], labels: [String]) throws -> RepetitionCounterMapping {
        for label in overrides.keys where !labels.contains(label) {
            let known = labels.map { "'\($0)'" }.joined(separator: ", ")
            throw ActionNetError.invalidConfiguration("the classifier has no class '\(label)' (its classes: \(known))")
        }
        var byLabel = Dictionary(entries.map { ($0.label, $0.counter) }, uniquingKeysWith: { a, _ in a })
        for (label, counter) in overrides { byLabel[label] = counter }
        return try RepetitionCounterMapping(labels.compactMap { label in byLabel[label].map { Entry(label: label, counter: $0) } })
    }

    /// The counter of the class labeled `label`, or nil (not counted).
    public func counter(forLabel label: String) -> ActionClass? { entries.first { $0.label == label }?.counter }

    /// The label the class counted by `counter` has, or nil (no class of the classifier).
    public func label(for counter: ActionClass) -> String? { entries.first { $0.counter == counter }?.label }

    /// `jumping_jacks, lunges, burpees, squats`.
    public static let counterNames = ActionClass.exercises.map(\.name).joined(separator: ", ")
}
