import Foundation

/// Errors thrown by tensor construction and by kernels when their inputs do not fit.
///
/// Kernels validate shapes up front and throw instead of reading or writing out of bounds.
public enum TensorError: Error, CustomStringConvertible, Equatable {
    /// A dimension was zero or negative.
    case invalidDimension(String)
    /// Two tensors (or a tensor and a parameter) disagree about a shape.
    case shapeMismatch(String)
    /// A kernel was asked for a configuration it does not implement.
    case unsupported(String)

    public var description: String {
        switch self {
        case .invalidDimension(let message): return "invalid dimension: \(message)"
        case .shapeMismatch(let message): return "shape mismatch: \(message)"
        case .unsupported(let message): return "unsupported: \(message)"
        }
    }
}

extension TensorError: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
