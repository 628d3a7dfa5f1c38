import PoseCore
import Foundation
/// Errors from building or running a PoseNet model.
public enum PoseNetError: Error, CustomStringConvertible, Equatable {
    /// Parameters that cannot describe a working network (strides, sizes, thresholds).
    case invalidConfiguration(String)
    /// A weight tensor is missing or has a shape the architecture does not allow.
    case badWeights(String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let message): return message
        case .badWeights(let message): return message
        }
    }
}

extension PoseNetError: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
