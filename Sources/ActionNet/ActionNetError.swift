import Foundation

/// Errors ActionNet throws (reading pose data throws PoseCore's `PoseDataError`); every description is one line meant for a terminal.
public enum ActionNetError: Error, CustomStringConvertible, Equatable {
    /// A weight file is missing, truncated or of another format.
    case badWeights(String)
    /// A configuration value is out of range.
    case invalidConfiguration(String)
    /// Training data could not be read.
    case badTrainingData(String)

    public var description: String {
        switch self {
        case .badWeights(let s): return "action weights: \(s)"
        case .invalidConfiguration(let s): return "invalid configuration: \(s)"
        case .badTrainingData(let s): return "training data: \(s)"
        }
    }
}

extension ActionNetError: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
