import Foundation

/// Why a MediaPipe calculator or pipeline refused its input; `localizedDescription` is one line.
public enum MediaPipeError: Error, Equatable, LocalizedError {
    /// An image with no pixels.
    case emptyImage
    /// A crop region with no area, or with a non-finite value.
    case degenerateRegion(NormalizedRect)
    /// A model output of an unexpected size: which output, its element count, the count expected.
    case outputSize(name: String, count: Int, expected: Int)
    /// A model that returned fewer outputs than the pipeline reads.
    case outputCount(model: String, count: Int, expected: Int)
    /// A model file that could not be read: its path and the problem.
    case modelFile(path: String, problem: String)

    public var errorDescription: String? {
        switch self {
        case .emptyImage: return "the image has no pixels"
        case .degenerateRegion(let rect): return "the crop region has no area or a non-finite value: \(rect)"
        case .outputSize(let name, let count, let expected): return "model output \(name) has \(count) values, expected \(expected)"
        case .outputCount(let model, let count, let expected): return "the \(model) model returned \(count) outputs, expected \(expected)"
        case .modelFile(let path, let problem): return problem.hasPrefix(path) ? problem : "\(path): \(problem)"
        }
    }
}
