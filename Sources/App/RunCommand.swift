import ArgumentParser
import Foundation
import ModelFiles
import ModelGraph
import PoseKit

/// `posekit run MODEL --input X.npy --output DIR`: one forward pass of an imported graph on a
/// tensor of the user's, each output written as `DIR/<tensor name>.npy` (the model's shapes, batch
/// axis restored; ``RunOutputs``), so PoseKit can be checked against TFLite on any input.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a model (.pkw graph, PoseNet bundle, .tflite, a Create ML .mlmodel or ActionNet's weights) on a .npy tensor and write its outputs as .npy files.",
        discussion: """
              posekit run hand_landmark_full.pkw --list    # inputs, outputs, shapes
              posekit run hand_landmark_full.pkw --input x.npy --output out
              posekit run hand_landmark_full.pkw --input x.npy --output out --npz
              posekit run palm_detection_full.tflite --input x.npy --output o2
              posekit run pose_landmark_full.pkw --input crop.npy --output out2 \\
                --outputs 0 1 4

            A PoseNet bundle (mobilenet075, mobilenet050) runs as its graph made for the input's \
            size (any square [S, S, 3], values scaled as the bundle's preprocessing says: \
            x * 2/255 - 1), at the bundle's output stride; its outputs are heatmap (after the \
            sigmoid), offsets, displacement_fwd and displacement_bwd.

            The input is a NumPy .npy file of float32 ('<f4', C order; float64 '<f8' is \
            narrowed to float32, with a note) with the model's input shape, batch axis included \
            or left out: [1, 224, 224, 3] or [224, 224, 3]. Values go in as they are (no \
            scaling): give the tensor the model expects (posekit run MODEL --list names the \
            inputs, outputs and shapes). NaN or infinite inputs get a warning.

            Each output is written to DIR/<tensor name>.npy (Identity_1.npy; output_<i>.npy when \
            names clash), with the model's shape, batch axis included; --npz writes one \
            DIR/outputs.npz instead. A line per output gives its index, name, shape, min, max and \
            mean. DIR/run.json lists the files with each output's index, name and shape. Files \
            are replaced whole (a failed write leaves the earlier ones); a DIR holding .npy or \
            .npz files no earlier `posekit run` wrote is refused, and an earlier run's outputs \
            this run does not write are removed. --outputs computes only the outputs named (by \
            index or tensor name): the graph is pruned to what they need, so e.g. \
            pose_landmark_full without its segmentation output skips the whole segmentation branch.

            --precision int8|bf16 runs the graph's 1x1 convolutions (those from 64 input channels \
            without a fused residual add or PReLU) in int8 (AVX2 or NEON) or bf16 \
            (AVX512-BF16), as `pose --precision` does for PoseNet; everything else stays float32. \
            On a CPU without the instructions an explicit int8 or bf16 is one line and exit status \
            1; auto is fp32 (docs/speed.md "Reduced precision" has each precision's error on the \
            six MediaPipe models).

            A Create ML action classifier runs from its .mlmodel (ExerciseClassifier.mlmodel: \
            a window [1, 64, 3, 18] in, probabilities out) and ActionNet from its weights \
            (posekit run actionnet --list: features [1, 60, 51] in, probabilities and logits out).

            Compared with TFLite's own outputs on the same input: docs/graph-runner.md.
            """)

    @Argument(help: "The model: a graph bundle from `posekit import` (.pkw), a PoseNet bundle, a .tflite file, a Create ML action classifier (.mlmodel) or ActionNet's weights (actionnet).",
              completion: ModelOptions.completion(for: ModelCatalogue.bundleNames))
    var model: String

    @Option(help: ArgumentHelp("The input tensor (.npy, float32, the model's input shape).", valueName: "X.npy"))
    var input: String?

    @Option(help: ArgumentHelp("The directory the outputs are written to (created if missing).", valueName: "DIR"))
    var output: String?

    @Option(parsing: .upToNextOption, help: ArgumentHelp(
        "Compute and write only these outputs: indices in the model's output order or tensor names (default: all).",
        valueName: "output"))
    var outputs: [String] = []

    @Option(help: "Worker threads (\(Limits.threads.text); default: every core).")
    var threads: Int?

    @Option(help: ArgumentHelp(
        "Arithmetic of the graph's 1x1 convolutions: fp32 (default), int8 (needs AVX2 or NEON), bf16 (needs AVX512-BF16) or auto (fp32 on every CPU measured so far).",
        valueName: "fp32|bf16|int8|auto"))
    var precision: Precision = .fp32

    @Flag(help: "List the model's inputs and outputs (index, name, shape) and exit.")
    var list = false

    @Flag(help: "Write one NumPy archive, DIR/outputs.npz (a member per output, named by tensor), instead of a .npy per output.")
    var npz = false

    func validate() throws {
        if let threads { try Limits.threads.check(threads, "--threads") }
        if !list {
            if input == nil { throw ValidationError("give the input tensor: --input X.npy (see --list for its shape)") }
            if output == nil { throw ValidationError("give the output directory: --output DIR") }
        }
    }

    func run() throws {
        // A PoseNet bundle becomes its graph at the input's size (any square [S, S, 3]).
        let tensor = try input.map { try RunOutputs.readInput($0) }
        let graph = try GraphModelFile.load(model, inputSize: tensor.flatMap { GraphModelFile.squareSide($0.shape) })
        if list {
            print(GraphSummary.inputsAndOutputs(graph))
            return
        }
        guard let input, let output, let tensor else { return }
        if let problem = precision.unavailability { throw CLIError("--precision \(precision.rawValue): \(problem)") }
        let selected = try selectedOutputs(graph)
        guard graph.inputs.count == 1 else {
            throw CLIError("\(model): the model has \(graph.inputs.count) inputs; posekit run takes models with one")
        }
        let expected = graph.values[graph.inputs[0]].shape
        let earlier = try RunOutputs.earlierOutputs(in: output, input: input)   // refused before the model runs
        guard tensor.shape == expected || tensor.shape == GraphModelFile.batchShape(expected) else {
            throw CLIError("\(input): shape \(tensor.shape) does not fit input '\(CLIError.printable(graph.values[graph.inputs[0]].name))' of \(model), which is \(GraphModelFile.batchShape(expected))")
        }
        let runner = try CLIError.reading(model) {
            try GraphRunner(graph: graph, outputs: selected.map { graph.outputs[$0] }, threads: threads ?? Parallelism.defaultThreads,
                            precision: precision)
        }
        let results = try CLIError.reading(model) { try runner.run([tensor]) }
        let written = zip(selected, results).map { index, result in
            RunOutputs.Output(index: index, name: graph.values[graph.outputs[index]].name, tensor: result, shape: GraphModelFile.batchShape(result.shape))
        }
        try RunOutputs.write(written, to: output, npz: npz, model: model, input: input, earlier: earlier)
    }

    /// The output indices `--outputs` names (all when empty), in the model's order, each once.
    private func selectedOutputs(_ graph: Graph) throws -> [Int] {
        guard !outputs.isEmpty else { return Array(graph.outputs.indices) }
        var chosen = Set<Int>()
        for word in outputs {
            if let index = Int(word), graph.outputs.indices.contains(index) {
                chosen.insert(index)
            } else if let index = graph.outputs.firstIndex(where: { graph.values[$0].name == word }) {
                chosen.insert(index)
            } else {
                let names = graph.outputs.enumerated().map { "\($0.offset) \(graph.values[$0.element].name)" }.joined(separator: ", ")
                throw ValidationError("--outputs: \(CLIError.printable(word)) is not an output of \(model) (\(CLIError.printable(names)))")
            }
        }
        return chosen.sorted()
    }
}
