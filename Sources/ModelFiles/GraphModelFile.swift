import Foundation
import ModelGraph
import PoseKit
import TFLite

/// Where `posekit run`, `info` and `bench model` get a network as a graph: a `.tflite` file (imported
/// in memory), a graph bundle (`.pkw` of kind `graph`, by path or short name), a PoseNet bundle mapped
/// to its graph at load (`PoseNetWeights.graph(inputSize:outputStride:)`), a Create ML action
/// classifier (`.mlmodel`, mapped by `CreateMLActionClassifier`) or ActionNet's weights (a bundle of
/// kind `actionnet`, or a `PKACTN01` file: `TemporalConvNet.graph()`).
public enum GraphModelFile {
    /// Whether `model` is read as a TFLite model: a regular file holding one (the `TFL3`
    /// identifier at byte 4), whatever its name, or a name ending in `.tflite` (a file so named
    /// that is not one is then refused by the TFLite reader, in one line naming it).
    public static func isTFLite(_ model: String) -> Bool {
        if model.hasSuffix(".tflite") { return true }
        guard RegularFile.exists(atPath: model), let handle = FileHandle(forReadingAtPath: model) else { return false }
        defer { try? handle.close() }
        return TFLiteImporter.isTFLite([UInt8]((try? handle.read(upToCount: 8)) ?? Data()))
    }

    /// Whether `model` names an imported graph: a TFLite model (``isTFLite(_:)``), or a bundle of kind `graph`.
    public static func isGraph(_ model: String) -> Bool {
        if isTFLite(model) { return true }
        guard let url = try? ModelLocator.resolve(model), let bundle = try? WeightBundle(contentsOf: url) else { return false }
        return bundle.manifest.kind == Graph.bundleKind
    }

    /// The input size a PoseNet bundle's graph gets when none is asked (`pose`'s default).
    public static let defaultPoseNetInputSize = PoseDetector.Configuration.default.inputSize

    /// The graph `model` holds; errors name the file. A PoseNet bundle is mapped to its graph for
    /// a square input of `inputSize` (default ``defaultPoseNetInputSize``) at its manifest's output
    /// stride; the other graphs have their own input shapes and ignore it. A catalogue model of
    /// several graphs (`blazepose`, `hands-full`) names them.
    public static func load(_ model: String, inputSize: Int? = nil) throws -> Graph {
        if let entry = ModelCatalogue.model(named: model), entry.bundles.count > 1 {
            throw ModelFileError("\(model) is \(entry.bundles.count) graphs; give one: \(entry.bundles.map(\.name).joined(separator: ", "))")
        }
        if isTFLite(model) {
            let bytes = try ModelFileError.reading(model) { [UInt8](try RegularFile.contents(atPath: model)) }
            return try ModelFileError.reading(model) { try TFLiteImporter.importModel(bytes: bytes, file: model).graph }
        }
        if let path = CreateMLActionClassifier.modelPath(model) {
            return try ModelFileError.reading(path) { try CreateMLActionClassifier.loading(path).graph }
        }
        let url = try ModelLocator.resolve(model)
        let bundle: WeightBundle
        do {
            bundle = try WeightBundle(contentsOf: url)
        } catch let error as WeightBundleError {
            switch error {
            case .notABundle, .truncated:
                // ActionNet's earlier format (PKACTN01) is no bundle; its loader refuses anything else as the bundle reader did.
                return try ModelFileError.reading(url.path) { try ActionWeightsFile.load(contentsOf: url).0.graph() }
            default:
                throw ModelFileError(PlainErrorMessage.describe(error, input: url.path))
            }
        }
        if bundle.manifest.kind == ActionWeightsFile.kind {
            return try ModelFileError.reading(url.path) { try ActionWeightsFile.load(bundle: bundle).0.graph() }
        }
        return try ModelFileError.reading(url.path) {
            guard bundle.manifest.kind == PoseNetSection.kind else { return try Graph(bundle: bundle) }
            return try PoseNetWeights(bundle: bundle).graph(inputSize: inputSize ?? defaultPoseNetInputSize,
                                                            outputStride: bundle.manifest.outputStride)
        }
    }

    /// A graph value's shape as the model file has it: the batch axis of 1 the graph dropped, restored.
    public static func batchShape(_ shape: [Int]) -> [Int] { [1] + shape }

    /// The side of a square image tensor `[S, S, 3]` or `[1, S, S, 3]`, the size a PoseNet graph is made for; else nil.
    public static func squareSide(_ shape: [Int]) -> Int? {
        let s = shape.count == 4 && shape[0] == 1 ? Array(shape.dropFirst()) : shape
        return s.count == 3 && s[0] == s[1] && s[2] == 3 ? s[0] : nil
    }

    /// The `.tflite` a model came from, for the TFLite peer: the file itself, or for a bundle the
    /// source file its manifest names, beside the bundle or under `../shared/weights/*/`.
    public static func sourceTFLite(of model: String) -> String? {
        if isTFLite(model) { return model }
        guard let url = try? ModelLocator.resolve(model), let bundle = try? WeightBundle(contentsOf: url) else { return nil }
        let fileName = bundle.manifest.source.fileName
        var candidates = [url.deletingLastPathComponent().appendingPathComponent(fileName).path]
        if let root = ModelLocator.packageRoot() {
            let weights = URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent("shared/weights")
            for folder in (try? FileManager.default.contentsOfDirectory(atPath: weights.path)) ?? [] {
                candidates.append(weights.appendingPathComponent(folder).appendingPathComponent(fileName).path)
            }
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }
}
