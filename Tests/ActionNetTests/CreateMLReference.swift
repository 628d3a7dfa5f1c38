import Foundation
@testable import ActionNet
import ModelGraph
import Tensor

/// The golden cases of `../shared/reference/createml/` (an independent float64 interpreter's
/// results; README there) and the two Create ML models they belong to.
enum CreateMLReference {
    /// `$POSEKIT_SHARED`, else `<repo root>/../shared`.
    static var shared: URL {
        if let path = ProcessInfo.processInfo.environment["POSEKIT_SHARED"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repoRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }

    /// The models with reference cases: folder name under `reference/createml/`, model file.
    static let models: [(name: String, file: String)] = [
        ("ExerciseClassifier", "weights/createml-exercise-classifier/ExerciseClassifier.mlmodel"),
        ("PlayerActionClassifier", "weights/createml-player-action-classifier/PlayerActionClassifier.mlmodel"),
    ]

    static func modelURL(_ name: String) -> URL {
        shared.appendingPathComponent(models.first { $0.name == name }!.file)
    }

    static func folder(_ name: String) -> URL { shared.appendingPathComponent("reference/createml/\(name)") }

    /// `expected.json`.
    struct Expected: Decodable {
        struct Model: Decodable {
            let file: String, bytes: Int, sha256: String, labels: [String], input: [Int], layers: Int
            let frame_rate: Double
        }
        struct Case: Decodable {
            let file: String, kind: String, top: String
            let probabilities: [String: Double]
            let logits: [Double]
            let clip: String?, start: Int?
        }
        struct LayerChecksum: Decodable {
            let index: Int, kind: String, layer: String, output: String, shape: [Int]
            let sum: Double, abs_sum: Double, first: Double
        }
        struct Checksums: Decodable { let `case`: String; let layers: [LayerChecksum] }
        let model: Model
        let cases: [Case]
        let layer_checksums: Checksums
    }

    static func expected(_ name: String) throws -> Expected {
        try JSONDecoder().decode(Expected.self, from: Data(contentsOf: folder(name).appendingPathComponent("expected.json")))
    }

    static func window(_ name: String, _ file: String) throws -> [Float] {
        try PoseWindowFile.read(contentsOf: folder(name).appendingPathComponent(file)).values
    }

    /// Every layer output of `model` on `window`, in layer order, as Core ML lays it out: the
    /// model's layers mapped again without fusing (every blob a graph value of its own), all those
    /// values computed by one run of the graph runner, channels-last ones put back in `[C, H, W]`
    /// order; constants (shape computations) as the mapper folded them.
    static func layerOutputs(_ model: CreateMLActionClassifier, _ window: [Float]) throws -> [(layer: String, output: String, shape: [Int], values: [Float])] {
        let mapping = try CreateMLGraphMapper.map(model.layers, input: model.inputName, inputShape: model.inputShape,
                                                  output: model.outputName, file: model.fileName, fusing: false)
        var computed: [ValueID] = []
        for layer in mapping.layers {
            for name in layer.outputs {
                if case .value(let id, _) = mapping.blobs[name]!.storage, !computed.contains(id) { computed.append(id) }
            }
        }
        let runner = try GraphRunner(graph: mapping.graph, outputs: computed, threads: 1)
        let results = try runner.run([Tensor(shape: model.inputShape, values: window)])
        var result: [(String, String, [Int], [Float])] = []
        for layer in mapping.layers {
            for name in layer.outputs {
                let blob = mapping.blobs[name]!
                switch blob.storage {
                case .constant(let data):
                    result.append((layer.name, name, blob.shape, data))
                case .value(let id, let layout):
                    let tensor = results[computed.firstIndex(of: id)!]
                    guard layout == .channelsLast else {
                        result.append((layer.name, name, blob.shape, tensor.scalars))
                        continue
                    }
                    let (h, w, c) = (tensor.shape[0], tensor.shape[1], tensor.shape[2])
                    let chw = try Tensor(zeros: [c, h, w])
                    try Rearrangement.transpose(tensor, permutation: [2, 0, 1], into: chw)
                    result.append((layer.name, name, blob.shape, chw.scalars))
                case .padded:
                    throw CoreMLModelError.layerFailed(layer: layer.name, detail: "a padding folded while not fusing")
                }
            }
        }
        return result
    }

    /// Runs `model` on `window` layer by layer and returns the first layer output whose shape,
    /// sum, absolute sum or first element disagrees with the reference checksums (nil: none).
    static func firstWrongLayer(_ model: CreateMLActionClassifier, _ window: [Float], _ checksums: [Expected.LayerChecksum]) throws -> String? {
        let ours = try layerOutputs(model, window)
        for (i, reference) in checksums.enumerated() {
            guard i < ours.count else { return "layer \(reference.index) '\(reference.layer)' (\(reference.kind)): not run" }
            let mine = ours[i]
            let sum = mine.values.reduce(0.0) { $0 + Double($1) }, absSum = mine.values.reduce(0.0) { $0 + abs(Double($1)) }
            // float32 against float64: sums to a small fraction of the absolute sum, the first element closely.
            let scale = max(reference.abs_sum, 1e-3)
            let wrong = mine.layer != reference.layer || mine.output != reference.output ? "runs '\(mine.layer)' → '\(mine.output)' here"
                : mine.shape != reference.shape ? "shape \(mine.shape), reference \(reference.shape)"
                : abs(sum - reference.sum) > 1e-4 * scale ? "sum \(sum), reference \(reference.sum)"
                : abs(absSum - reference.abs_sum) > 1e-4 * scale ? "abs sum \(absSum), reference \(reference.abs_sum)"
                : abs(Double(mine.values.first ?? 0) - reference.first) > 1e-4 * max(abs(reference.first), 1) ? "first element \(mine.values.first ?? 0), reference \(reference.first)"
                : nil
            if let wrong { return "layer \(reference.index) '\(reference.layer)' (\(reference.kind)) output '\(reference.output)': \(wrong)" }
        }
        return ours.count == checksums.count ? nil : "\(ours.count) layer outputs, reference has \(checksums.count)"
    }
}
