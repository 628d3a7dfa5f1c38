import Foundation

/// Why a Core ML model could not be read or run; each description is one line naming the file
/// and, for a layer, the layer and what about it is unsupported.
public enum CoreMLModelError: Error, CustomStringConvertible, Equatable {
    /// Not a protobuf Core ML model at all, or cut short.
    case malformed(file: String, detail: String)
    /// A Core ML model, but not a neural-network classifier this runtime can run (a pipeline,
    /// a regressor, an image model, no class labels).
    case notAClassifier(file: String, detail: String)
    /// A layer of a kind, or with a parameter, this runtime does not run.
    case unsupportedLayer(file: String, layer: String, detail: String)
    /// A layer's inputs do not fit it (shapes, missing blobs) while running.
    case layerFailed(layer: String, detail: String)
    /// The model's input is not the [T, 3, 18] pose window of a Create ML action classifier.
    case unsupportedInput(file: String, detail: String)
    /// A window given to ``CreateMLActionClassifier/classify(_:)`` of the wrong shape or with
    /// non-finite values.
    case badWindow(String)
    /// A window file (``PoseWindowFile/read(contentsOf:)``) that cannot be read, or does not hold
    /// a finite `[T, 3, 18]` window; `file` is its path, `detail` what is wrong with it.
    case badWindowFile(file: String, detail: String)
    /// A classifier given by a short name that is in none of the places searched (`searched`:
    /// every path tried, in order).
    case notFound(model: String, searched: [String])

    public var description: String {
        switch self {
        case .malformed(let file, let detail): return "\(file): not a readable Core ML model (\(detail))"
        case .notAClassifier(let file, let detail): return "\(file): not a Core ML action classifier: \(detail)"
        case .unsupportedLayer(let file, let layer, let detail): return "\(file): layer '\(layer)': \(detail)"
        case .layerFailed(let layer, let detail): return "Core ML layer '\(layer)': \(detail)"
        case .unsupportedInput(let file, let detail): return "\(file): \(detail)"
        case .badWindow(let detail): return "window: \(detail)"
        case .badWindowFile(let file, let detail): return "\(file): window: \(detail)"
        case .notFound(let model, let searched):
            return "\(model): no such Create ML classifier (looked for \(searched.joined(separator: ", "))); give the .mlmodel's path, or put it in one of those directories"
        }
    }
}

extension CoreMLModelError: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
