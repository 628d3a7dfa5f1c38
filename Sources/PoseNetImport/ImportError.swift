import PoseNet
import PoseCore
import Foundation
/// Why a model file could not be imported. Every description is one line naming the file.
public enum ImportError: Error, CustomStringConvertible, Equatable {
    /// The file could not be read.
    case unreadable(file: String, detail: String)
    /// The content is neither a Core ML model nor a TensorFlow GraphDef.
    case unknownFormat(file: String, detail: String)
    /// The protobuf bytes themselves are broken (truncated, bad lengths).
    case malformed(file: String, detail: String)
    /// A Core ML layer (or layer sequence) PoseKit does not implement.
    case unsupportedLayer(file: String, layer: String, detail: String)
    /// The model is well-formed but not a PoseNet MobileNetV1 PoseKit can run.
    case unsupportedModel(file: String, detail: String)
    /// A tensor the network needs is absent.
    case missingTensor(file: String, name: String)
    /// A tensor has the wrong shape, dtype or element count.
    case badTensor(file: String, name: String, detail: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let detail): return "\(file): cannot read: \(detail)"
        case .unknownFormat(let file, let detail): return "\(file): unrecognized model format: \(detail)"
        case .malformed(let file, let detail): return "\(file): \(detail)"
        case .unsupportedLayer(let file, let layer, let detail): return "\(file): layer '\(layer)': \(detail)"
        case .unsupportedModel(let file, let detail): return "\(file): \(detail)"
        case .missingTensor(let file, let name): return "\(file): missing tensor '\(name)'"
        case .badTensor(let file, let name, let detail): return "\(file): tensor '\(name)': \(detail)"
        }
    }
}

extension ImportError: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
