import Foundation
import ModelGraph
import PoseKit
import PoseNetImport
import TFLite

/// `posekit import`: a model file into a PoseKit weight bundle, its format found from its content:
/// a PoseNet model (Core ML `.mlmodel` or TensorFlow frozen `.pb`: `WeightImporter`), a TFLite
/// model (a graph bundle: `TFLiteImporter`), or ActionNet weights of the earlier `PKACTN01`
/// format (rewritten as a bundle with the same parameters).
public enum ModelImport {
    /// Imports `source` (its bytes: `contents`, read whole) into the bundle `output`, written
    /// atomically, and prints what was made (timed from `start`, a `MonotonicClock` time).
    /// `storage` is how a PoseNet model's weights are stored; `license` is recorded for a TFLite
    /// model PoseKit does not know by its SHA-256.
    public static func importModel(_ source: String, contents: Data, output: String, storage: ImportedWeights.StoragePolicy,
                                   license: WeightManifest.License?, start: Double, print: (String) -> Void) throws {
        if ActionWeightsFile.isLegacy(contents) {
            try convertActionWeights(source, output: output, start: start, print: print)
            return
        }
        if TFLiteImporter.isTFLite([UInt8](contents.prefix(8))) {
            try importGraph([UInt8](contents), source: source, output: output, license: license, start: start, print: print)
            return
        }
        let imported = try ModelFileError.reading(source) { try WeightImporter.importModel(at: URL(fileURLWithPath: source)) }
        let writer = try imported.bundleWriter(storage: storage)
        let bytes = try writer.encoded()
        try ModelFileOutput.write(bytes, to: output)
        let milliseconds = (MonotonicClock.now() - start) * 1e3
        let m = writer.manifest
        let size = bytes.count
        print("imported \(m.source.fileName) (\(m.source.format)) → \(output): width \(m.widthMultiplier), "
            + "\(m.tensors.count) tensors, \(m.parameterCount) parameters, \(m.dtypes.map(\.rawValue).joined(separator: "+")), "
            + "\(size) bytes in \(String(format: "%.0f", milliseconds)) ms")
    }

    /// Imports a TFLite model as a graph bundle.
    private static func importGraph(_ bytes: [UInt8], source: String, output: String, license: WeightManifest.License?, start: Double,
                                    print: (String) -> Void) throws {
        let imported = try TFLiteImporter.importModel(bytes: bytes, file: source, license: license)
        let encoded = try imported.bundleWriter().encoded()
        try ModelFileOutput.write(encoded, to: output)
        let milliseconds = (MonotonicClock.now() - start) * 1e3
        let graph = imported.graph
        print("imported \(imported.source.fileName) (tflite, \(imported.model.operators.count) operators) → \(output): "
            + "\(graph.nodes.count) operations, \(graph.parameterCount) parameters, \(GraphSummary.millions(graph.multiplyAdds)) multiply-adds, "
            + "\(encoded.count) bytes in \(String(format: "%.0f", milliseconds)) ms")
    }

    /// Rewrites a `PKACTN01` ActionNet file as a bundle (same parameters, same settings).
    private static func convertActionWeights(_ source: String, output: String, start: Double, print: (String) -> Void) throws {
        let (net, header) = try ModelFileError.reading(source) {
            try ActionWeightsFile.decodeLegacy(RegularFile.contents(atPath: source))
        }
        let bytes = [UInt8](try ActionWeightsFile.encode(net, fps: header.fps, windowStride: header.windowStride, training: header.training))
        try ModelFileOutput.write(bytes, to: output)
        let milliseconds = (MonotonicClock.now() - start) * 1e3
        print("converted \(URL(fileURLWithPath: source).lastPathComponent) (ActionNet PKACTN01) → \(output): "
            + "\(net.parameterCount) parameters, fp32, \(bytes.count) bytes in \(String(format: "%.0f", milliseconds)) ms")
    }
}
