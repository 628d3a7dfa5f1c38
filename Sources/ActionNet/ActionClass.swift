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

    public var description: String { name }
}

/// What a window is labeled with: a class, or one of the two abstentions Apple's sample uses.
public enum ActionLabel: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The classifier's top class, with probability at least the confidence threshold.
    case action(ActionClass)
    /// Fewer than the required fraction of the window's frames held a pose.
    case noPerson
    /// The top probability was under the confidence threshold.
    case lowConfidence

    /// `"squats"`, `"no_person"`, `"low_confidence"`, ...
    public var name: String {
        switch self {
        case .action(let c): return c.name
        case .noPerson: return "no_person"
        case .lowConfidence: return "low_confidence"
        }
    }

    public var description: String { name }
}
