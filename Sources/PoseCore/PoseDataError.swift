import Foundation

/// Errors from reading, ordering or resampling pose data; every description is one line meant
/// for a terminal.
public enum PoseDataError: Error, CustomStringConvertible, Equatable {
    /// A line of `posekit pose` JSON Lines input could not be understood (`line` is 1-based).
    case malformedPoses(line: Int, reason: String)
    /// Pose frames whose times cannot be put in order: a duplicate, or (on a stream) a step back.
    case unorderedPoses(String)
    /// A configuration value is out of range.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .malformedPoses(let line, let reason): return "poses line \(line): \(reason)"
        case .unorderedPoses(let s): return "poses: \(s)"
        case .invalidConfiguration(let s): return "invalid configuration: \(s)"
        }
    }
}

extension PoseDataError: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
