import ArgumentParser
import Foundation
import ModelFiles
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
        if !ActionWeightsFile.isLegacy(contents) && TFLiteImporter.isTFLite([UInt8](contents.prefix(8)))
            && dtype != ImportedWeights.StoragePolicy.automatic.rawValue {
            throw CLIError("--dtype applies to PoseNet imports; a TFLite graph stores its weights fp16 where that is exact, else fp32")
        }
        try ModelImport.importModel(source, contents: contents, output: output, storage: ImportedWeights.StoragePolicy(rawValue: dtype)!,
                                    license: license.map { WeightManifest.License(spdx: $0, attribution: attribution ?? "") },
                                    start: start, print: { print($0) })
    }
}
