import ArgumentParser
import Foundation
import PoseKit
import PoseNetImport

/// `posekit import SOURCE -o Weights/NAME.pkw`: converts a published PoseNet model, or an
/// ActionNet weight file of the earlier `PKACTN01` format, into a PoseKit weight bundle.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import PoseNet weights (Core ML .mlmodel or TensorFlow frozen .pb), or an old ActionNet file, into a PoseKit bundle.",
        discussion: """
            The format is detected from the file's content. Core ML batchnorm layers are folded into \
            the convolutions; fp16 weights stay fp16 unless --dtype says otherwise. The bundle records \
            the source file's name and SHA-256 and the weights' license and attribution. An ActionNet \
            weight file of the earlier format (PKACTN01) is converted to a bundle with the same parameters.

            EXAMPLES
              posekit import ../shared/weights/posenet-mobilenet075-s16-coreml/PoseNetMobileNet075S16FP16.mlmodel -o Weights/mobilenet075.pkw
              posekit import old-actionnet.pkw -o Weights/actionnet.pkw
            """)

    @Argument(help: "The model file to import (.mlmodel, frozen .pb, or a PKACTN01 ActionNet file).", completion: .file(extensions: ["mlmodel", "pb", "pkw"]))
    var source: String

    @Option(name: .shortAndLong, help: "Where to write the bundle, e.g. Weights/mobilenet075.pkw.", completion: .file(extensions: ["pkw"]))
    var output: String

    @Option(help: "Storage type: auto (fp16 where lossless), fp32, or fp16 (rounds fp32 sources).")
    var dtype: String = ImportedWeights.StoragePolicy.automatic.rawValue

    func validate() throws {
        guard ImportedWeights.StoragePolicy(rawValue: dtype) != nil else {
            throw ValidationError("--dtype must be one of auto, fp32, fp16")
        }
    }

    func run() throws {
        let start = MonotonicClock.now()
        try SameFileCheck.refuse(inputs: [source], outputs: [("-o", output)])
        // Read whole once, and only if it is a regular file: a FIFO would wait for a writer.
        let contents = try CLIError.reading(source) { try RegularFile.contents(atPath: source) }
        if ActionWeightsFile.isLegacy(contents) {
            try convertActionWeights(start: start)
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
