import ArgumentParser
import Foundation
import ModelGraph
import PoseKit
import PoseNetImport
import TFLite

/// `posekit import SOURCE -o Weights/NAME.pkw`: converts a published PoseNet model, a TFLite model
/// (a graph: MediaPipe's hand and BlazePose models), or an ActionNet weight file of the earlier
/// `PKACTN01` format, into a PoseKit weight bundle.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a model into a PoseKit bundle: PoseNet weights (Core ML .mlmodel or TensorFlow frozen .pb), a TFLite graph (.tflite), or an old ActionNet file.",
        discussion: """
            The format is detected from the file's content. Core ML batchnorm layers are folded into \
            the convolutions; fp16 weights stay fp16 unless --dtype says otherwise. The bundle records \
            the source file's name and SHA-256 and the weights' license and attribution. An ActionNet \
            weight file of the earlier format (PKACTN01) is converted to a bundle with the same parameters.

            A TFLite model (MediaPipe's pose, palm and hand models) becomes a graph bundle: the network \
            as operations over values, with its fp16 and sparse weights folded to exact float32 constants \
            (stored fp16 when lossless), laid out for PoseKit's kernels, and TF "SAME" padding resolved. \
            Only the ops those models use are accepted; any other is refused by name. `posekit info` \
            describes the .tflite or the bundle (inputs, outputs, operations, multiply-adds). The licence \
            of the six MediaPipe 0.10.14 models is known by their SHA-256; for another model pass \
            --license and --attribution.

            EXAMPLES
              posekit import ../shared/weights/mediapipe-0.10.14/pose_detection.tflite \\
                -o Weights/pose_detection.pkw
              posekit import my_model.tflite -o Weights/my_model.pkw \\
                --license MIT --attribution "My model, (c) me"
              posekit import old-actionnet.pkw -o Weights/actionnet.pkw
            """)

    @Argument(help: "The model file to import (.mlmodel, frozen .pb, .tflite, or a PKACTN01 ActionNet file).", completion: .file(extensions: ["mlmodel", "pb", "tflite", "pkw"]))
    var source: String

    @Option(name: .shortAndLong, help: "Where to write the bundle, e.g. Weights/mobilenet075.pkw.", completion: .file(extensions: ["pkw"]))
    var output: String

    @Option(help: "Storage type: auto (fp16 where lossless), fp32, or fp16 (rounds fp32 sources).")
    var dtype: String = ImportedWeights.StoragePolicy.automatic.rawValue

    @Option(help: "TFLite only: SPDX licence of a model PoseKit does not know (e.g. Apache-2.0, MIT), recorded in the bundle.")
    var license: String?

    @Option(help: "TFLite only: attribution text to record with --license.")
    var attribution: String?

    func validate() throws {
        guard ImportedWeights.StoragePolicy(rawValue: dtype) != nil else {
            throw ValidationError("--dtype must be one of auto, fp32, fp16")
        }
        if attribution != nil && license == nil { throw ValidationError("--attribution needs --license") }
    }

    func run() throws {
        let start = MonotonicClock.now()
        try refuseSameFiles(inputs: [source], outputs: [("-o", output)])
        // Read whole once, and only if it is a regular file: a FIFO would wait for a writer.
        let contents = try CLIError.reading(source) { try RegularFile.contents(atPath: source) }
        if ActionWeightsFile.isLegacy(contents) {
            try convertActionWeights(start: start)
            return
        }
        if TFLiteImporter.isTFLite([UInt8](contents.prefix(8))) {
            try importGraph([UInt8](contents), start: start)
            return
        }
        let imported = try CLIError.reading(source) { try WeightImporter.importModel(at: URL(fileURLWithPath: source)) }
        let writer = try imported.bundleWriter(storage: ImportedWeights.StoragePolicy(rawValue: dtype)!)
        let bytes = try writer.encoded()
        try CLIError.creatingParent(of: output)
        let file = try OutputFile(path: output)
        try OutputFile.committing([file]) { try file.sink.write(bytes) }
        let milliseconds = (MonotonicClock.now() - start) * 1e3
        let m = writer.manifest
        let size = bytes.count
        print("imported \(m.source.fileName) (\(m.source.format)) → \(output): width \(m.widthMultiplier), "
            + "\(m.tensors.count) tensors, \(m.parameterCount) parameters, \(m.dtypes.map(\.rawValue).joined(separator: "+")), "
            + "\(size) bytes in \(String(format: "%.0f", milliseconds)) ms")
    }

    /// Imports a TFLite model as a graph bundle.
    private func importGraph(_ bytes: [UInt8], start: Double) throws {
        guard dtype == ImportedWeights.StoragePolicy.automatic.rawValue else {
            throw CLIError("--dtype applies to PoseNet imports; a TFLite graph stores its weights fp16 where that is exact, else fp32")
        }
        let given = license.map { WeightManifest.License(spdx: $0, attribution: attribution ?? "") }
        let imported = try TFLiteImporter.importModel(bytes: bytes, file: source, license: given)
        let encoded = try imported.bundleWriter().encoded()
        try CLIError.creatingParent(of: output)
        let file = try OutputFile(path: output)
        try OutputFile.committing([file]) { try file.sink.write(encoded) }
        let milliseconds = (MonotonicClock.now() - start) * 1e3
        let graph = imported.graph
        print("imported \(imported.source.fileName) (tflite, \(imported.model.operators.count) operators) → \(output): "
            + "\(graph.nodes.count) operations, \(graph.parameterCount) parameters, \(GraphSummary.millions(graph.multiplyAdds)) multiply-adds, "
            + "\(encoded.count) bytes in \(String(format: "%.0f", milliseconds)) ms")
    }

    /// Rewrites a `PKACTN01` ActionNet file as a bundle (same parameters, same settings).
    private func convertActionWeights(start: Double) throws {
        let (net, header) = try CLIError.reading(source) {
            try ActionWeightsFile.decodeLegacy(RegularFile.contents(atPath: source))
        }
        let bytes = [UInt8](try ActionWeightsFile.encode(net, fps: header.fps, windowStride: header.windowStride, training: header.training))
        try CLIError.creatingParent(of: output)
        let file = try OutputFile(path: output)
        try OutputFile.committing([file]) { try file.sink.write(bytes) }
        let milliseconds = (MonotonicClock.now() - start) * 1e3
        print("converted \(URL(fileURLWithPath: source).lastPathComponent) (ActionNet PKACTN01) → \(output): "
            + "\(net.parameterCount) parameters, fp32, \(bytes.count) bytes in \(String(format: "%.0f", milliseconds)) ms")
    }
}
