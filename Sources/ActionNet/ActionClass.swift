/// The actions the classifier distinguishes, in the order of its output logits.
public enum ActionClass: Int, CaseIterable, Sendable, CustomStringConvertible {
    case jumpingJacks, lunges, burpees, squats, other

    /// Number of classes (classifier outputs).
    public static let count = 5

    /// The snake_case name used in JSON output and `labels.json`, e.g. `"jumping_jacks"`.
    public var name: String {
        switch self {
        case .jumpingJacks: return "jumping_jacks"
        case .lunges: return "lunges"
        case .burpees: return "burpees"
        case .squats: return "squats"
        case .other: return "other"
        }
    }

    /// The class with the given snake_case name, or `nil`.
    public init?(name: String) {
        guard let c = ActionClass.allCases.first(where: { $0.name == name }) else { return nil }
        self = c
    }

    /// The exercises whose repetitions are counted (everything but ``other``).
    public static let exercises: [ActionClass] = [.jumpingJacks, .lunges, .burpees, .squats]

    /// The exercise our repetition counters know that a Create ML class label names, or nil:
    /// letters only, case ignored, singular or plural ("Jumping Jacks", "jumping_jack" →
    /// ``jumpingJacks``; "Lunges" → ``lunges``; "Other Action" → nil).
    public init?(createMLLabel label: String) {
        var key = label.lowercased().filter { $0.isLetter }
        if key.hasSuffix("s") { key.removeLast() }
        guard let exercise = ActionClass.exercises.first(where: { action in
            var name = action.name.filter { $0.isLetter }
            if name.hasSuffix("s") { name.removeLast() }
            return name == key
        }) else { return nil }
        self = exercise
    }

    public var description: String { name }
}

/// What a window is labeled with: a class (ActionNet's, or a Create ML model's), or one of the two
/// abstentions Apple's sample uses.
public enum ActionLabel: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The classifier's top class, with probability at least the confidence threshold.
    case action(ActionClass)
    /// Fewer than the required fraction of the window's frames held a pose.
    case noPerson
    /// The top probability was under the confidence threshold.
    case lowConfidence
    /// A class of a Create ML classifier (``CreateMLActionClassifier``), spelled as the model spells it.
    case modelClass(String)

    /// `"squats"`, `"no_person"`, `"low_confidence"`, ...
    public var name: String {
        switch self {
        case .action(let c): return c.name
        case .noPerson: return "no_person"
        case .lowConfidence: return "low_confidence"
        case .modelClass(let name): return name
        }
    }

    /// Whether this is a classifier class (not one of the abstentions).
    public var isClass: Bool {
        switch self {
        case .action, .modelClass: return true
        case .noPerson, .lowConfidence: return false
        }
    }

    public var description: String { name }
}
