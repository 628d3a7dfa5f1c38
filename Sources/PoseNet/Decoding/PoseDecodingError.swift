import PoseCore
import Foundation
/// Why a set of head tensors or decoder parameters was rejected.
///
/// Every case carries a one-line description of what was wrong and what was expected,
/// so command-line tools can print it as is.
public enum PoseDecodingError: Error, CustomStringConvertible, Equatable {
    /// A head tensor has the wrong rank, channel count or grid size.
    case inconsistentShapes(String)
    /// A head holds NaN or ±infinity.
    case nonFiniteValue(String)
    /// A decoder parameter is outside its valid range.
    case parameterOutOfRange(String)
    /// A reference folder or its `meta.json` could not be read.
    case unreadableReference(String)

    public var description: String {
        switch self {
        case .inconsistentShapes(let message): return "inconsistent head shapes: \(message)"
        case .nonFiniteValue(let message): return "non-finite head value: \(message)"
        case .parameterOutOfRange(let message): return "decoder parameter out of range: \(message)"
        case .unreadableReference(let message): return "unreadable reference: \(message)"
        }
    }
}

extension PoseDecodingError: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
