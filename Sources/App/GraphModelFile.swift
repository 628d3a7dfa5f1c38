import Foundation
import ModelGraph
import PoseKit
import TFLite

/// Where `posekit run` and `bench model` get an imported graph: a `.tflite` file (imported in
/// memory) or a graph bundle (`.pkw` of kind `graph`, by path or short name).
enum GraphModelFile {
    /// Whether `model` is read as a TFLite model: a regular file holding one (the `TFL3`
    /// identifier at byte 4), whatever its name, or a name ending in `.tflite` (a file so named
    /// that is not one is then refused by the TFLite reader, in one line naming it).
    static func isTFLite(_ model: String) -> Bool {
        if model.hasSuffix(".tflite") { return true }
        guard RegularFile.exists(atPath: model), let handle = FileHandle(forReadingAtPath: model) else { return false }
        defer { try? handle.close() }
        return TFLiteImporter.isTFLite([UInt8]((try? handle.read(upToCount: 8)) ?? Data()))
    }

    /// Whether `model` names an imported graph: a TFLite model (``isTFLite(_:)``), or a bundle of kind `graph`.
    static func isGraph(_ model: String) -> Bool {
        if isTFLite(model) { return true }
        guard let url = try? ModelLocator.resolve(model), let bundle = try? WeightBundle(contentsOf: url) else { return false }
        return bundle.manifest.kind == Graph.bundleKind
    }

    /// The graph `model` holds; errors name the file. A catalogue model of several graphs
    /// (`blazepose`, `hands-full`) names them.
    static func load(_ model: String) throws -> Graph {
        if let entry = ModelCatalogue.model(named: model), entry.bundles.count > 1 {
            throw CLIError("\(model) is \(entry.bundles.count) graphs; give one: \(entry.bundles.map(\.name).joined(separator: ", "))")
        }
        if isTFLite(model) {
            let bytes = try CLIError.reading(model) { [UInt8](try RegularFile.contents(atPath: model)) }
            return try CLIError.reading(model) { try TFLiteImporter.importModel(bytes: bytes, file: model).graph }
        }
        let url = try ModelLocator.resolve(model)
        return try CLIError.reading(url.path) { try Graph(bundle: try WeightBundle(contentsOf: url)) }
    }

    /// The `.tflite` a model came from, for the TFLite peer: the file itself, or for a bundle the
    /// source file its manifest names, beside the bundle or under `../shared/weights/*/`.
    static func sourceTFLite(of model: String) -> String? {
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
