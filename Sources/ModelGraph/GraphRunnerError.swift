import Foundation

/// Why a ``GraphRunner`` could not plan or run a graph. `localizedDescription` is one line.
public enum GraphRunnerError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The graph is malformed: a value used before it is produced (a cycle), an ID out of range,
    /// a node without its constants, shapes that disagree.
    case invalidGraph(String)
    /// The graph holds an operation or a configuration the runner has no kernel for.
    case unsupported(String)
    /// The inputs given to ``GraphRunner/run(_:)`` do not match the graph's.
    case inputMismatch(String)
    /// A kernel refused a node at run time (its message, with the node named).
    case node(String)

    public var description: String {
        switch self {
        case .invalidGraph(let message): return "invalid graph: \(message)"
        case .unsupported(let message): return "unsupported: \(message)"
        case .inputMismatch(let message): return message
        case .node(let message): return message
        }
    }

    public var errorDescription: String? { description }
}
