import ArgumentParser
import Foundation
import ModelFiles
import PoseKit

/// `posekit info MODEL`: describes a weight bundle (after verifying its checksum) and this build:
/// the CPU it was compiled for, the host's vector features and the GEMM kernel chosen.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a PoseKit weight bundle (PoseNet, ActionNet or an imported graph: network, tensors, source, license), a TFLite model (.tflite), a Create ML action classifier (.mlmodel), and this build.",
        discussion: """
              posekit info                             # the default PoseNet bundle
              posekit info actionnet --tensors         # any bundle, every tensor
              posekit info Weights/pose_detection.pkw  # an imported graph
              posekit info ExerciseClassifier.mlmodel  # a Create ML classifier
              posekit info --build                     # this binary and CPU

            A bundle's network, tensors, source and licence; a graph's inputs and outputs (shapes \
            with the batch axis, as posekit run --list), operations and multiply-adds. The last \
            lines describe the binary: the instruction set it was compiled for (portable, or tuned \
            with POSEKIT_TARGET_CPU), the vector features of this CPU and the GEMM kernel the \
            convolutions use here (POSEKIT_GEMM=packed|blas overrides it).
            """)

    @Argument(help: "A bundle path or a short name (mobilenet075, mobilenet050, actionnet, pose_detection, ...), a TFLite model (recognized by its content), or a Create ML action classifier (.mlmodel).", completion: ModelOptions.completion(for: ModelCatalogue.models.map(\.name) + ModelCatalogue.bundleNames))
    var model: String = ModelLocator.defaultModel

    @Flag(help: "Also list every tensor with its dtype, shape and layout.")
    var tensors = false

    @Flag(help: "Print the raw JSON manifest instead.")
    var json = false

    @Flag(help: "Describe only this build and CPU (no bundle needed).")
    var build = false

    func run() throws {
        if build {
            print(ModelDescription.build)
            return
        }
        // By content first: a TFLite model renamed is still one.
        if GraphModelFile.isTFLite(model) {
            if json || tensors { throw CLIError("--json and --tensors describe .pkw bundles; `posekit import` the .tflite first") }
            try ModelDescription.tflite(at: model, print: { print($0) })
            return
        }
        if let path = CreateMLActionClassifier.modelPath(model) {
            if json || tensors { throw CLIError("--json and --tensors describe .pkw bundles, not .mlmodel files") }
            try ModelDescription.createMLClassifier(at: path, print: { print($0) })
            return
        }
        // A model of several bundles (blazepose, hands-full, ...): the catalogue's entry.
        if let entry = ModelCatalogue.model(named: model), entry.bundles.map(\.name) != [model] {
            print(entry.summaryLines.joined(separator: "\n"))
            return
        }
        let url = try ModelLocator.resolve(model)
        try ModelDescription.bundle(at: url, json: json, tensors: tensors, print: { print($0) })
    }
}
