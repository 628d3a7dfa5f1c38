import ArgumentParser
import Foundation
import ModelGraph
import PoseKit

/// `posekit run MODEL --input X.npy --output DIR`: one forward pass of an imported graph on a
/// tensor of the user's, each output written as `DIR/output_<i>.npy` (the model's output order and
/// shapes, batch axis restored), so PoseKit can be checked against TFLite on any input.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run an imported model (.pkw graph or .tflite) on a .npy tensor and write its outputs as .npy files.",
        discussion: """
            The input is a NumPy .npy file of float32 (little-endian '<f4', C order) with the \
            model's input shape, batch axis included or left out: [1, 224, 224, 3] or \
            [224, 224, 3]. Values go in as they are (no scaling): give the tensor the model expects \
            (posekit run MODEL --list names the inputs, outputs and shapes).

            Each output is written to DIR/output_<i>.npy, <i> being its index in the model's \
            output order (0 first), with the model's shape, batch axis included. --outputs computes \
            only the outputs named (by index or tensor name): the graph is pruned to what they \
            need, so e.g. pose_landmark_full without its segmentation output skips the whole \
            segmentation branch. Other files in DIR are left alone.

            --precision int8|bf16 runs the graph's 1x1 convolutions (those from 64 input channels \
            without a fused residual add or PReLU) in int8 (AVX512-VNNI or AVX-VNNI) or bf16 \
            (AVX512-BF16), as `pose --precision` does for PoseNet; everything else stays float32. \
            On a CPU without the instructions an explicit int8 or bf16 is one line and exit status \
            1; auto is fp32 (docs/speed.md "Reduced precision" has each precision's error on the \
            six MediaPipe models).

            To compare with TFLite (pip install ai-edge-litert numpy):
              python3 -c "import numpy as np; from ai_edge_litert.interpreter import Interpreter as I; \\
                it = I('hand_landmark_full.tflite'); it.allocate_tensors(); \\
                it.set_tensor(it.get_input_details()[0]['index'], np.load('x.npy')); it.invoke(); \\
                print([np.abs(it.get_tensor(d['index']) - np.load(f'out/output_{i}.npy')).max() \\
                       for i, d in enumerate(it.get_output_details())])"

            EXAMPLES
              posekit run hand_landmark_full.pkw --list
              posekit run hand_landmark_full.pkw --input x.npy --output out
              posekit run palm_detection_full.tflite --input x.npy --output out --threads 1
              posekit run pose_landmark_full.pkw --input crop.npy --output out --outputs 0 1 4
              posekit run hand_landmark_full.pkw --input x.npy --output out-int8 --precision int8
            """)

    @Argument(help: "The model: a graph bundle from `posekit import` (.pkw) or a .tflite file.",
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
        "Arithmetic of the graph's 1x1 convolutions: fp32 (default), int8 (needs AVX512-VNNI or AVX-VNNI), bf16 (needs AVX512-BF16) or auto (fp32 on every CPU measured so far).",
        valueName: "fp32|bf16|int8|auto"))
    var precision: Precision = .fp32

    @Flag(help: "List the model's inputs and outputs (index, name, shape) and exit.")
    var list = false

    func validate() throws {
        if let threads { try Limits.threads.check(threads, "--threads") }
        if !list {
            if input == nil { throw ValidationError("give the input tensor: --input X.npy (see --list for its shape)") }
            if output == nil { throw ValidationError("give the output directory: --output DIR") }
        }
    }

    func run() throws {
        let graph = try GraphModelFile.load(model)
        if list {
            for (title, ids) in [("inputs", graph.inputs), ("outputs", graph.outputs)] {
                print(title)
                for (index, id) in ids.enumerated() {
                    print("  \(index)  \(CLIError.printable(graph.values[id].name))  \(Self.batchShape(graph.values[id].shape))")
                }
            }
            return
        }
        guard let input, let output else { return }
        if let problem = precision.unavailability { throw CLIError("--precision \(precision.rawValue): \(problem)") }
        let selected = try selectedOutputs(graph)
        guard graph.inputs.count == 1 else {
            throw CLIError("\(model): the model has \(graph.inputs.count) inputs; posekit run takes models with one")
        }
        let expected = graph.values[graph.inputs[0]].shape
        let tensor = try CLIError.reading(input) { try NumPyArray.read(contentsOf: URL(fileURLWithPath: input)) }
        guard tensor.shape == expected || tensor.shape == Self.batchShape(expected) else {
            throw CLIError("\(input): shape \(tensor.shape) does not fit input '\(CLIError.printable(graph.values[graph.inputs[0]].name))' of \(model), which is \(Self.batchShape(expected))")
        }
        let runner = try CLIError.reading(model) {
            try GraphRunner(graph: graph, outputs: selected.map { graph.outputs[$0] }, threads: threads ?? Parallelism.defaultThreads,
                            precision: precision)
        }
        let results = try CLIError.reading(model) { try runner.run([tensor]) }
        do { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) } catch {
            throw CLIError("cannot create the output directory \(output): \(CLIError.describe(error))")
        }
        for (index, result) in zip(selected, results) {
            let path = URL(fileURLWithPath: output).appendingPathComponent("output_\(index).npy").path
            let data = NumPyArray.encode(result, shape: Self.batchShape(result.shape))
            do { try data.write(to: URL(fileURLWithPath: path)) } catch {
                throw CLIError("\(path): cannot write: \(CLIError.describe(error))")
            }
        }
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

    /// A graph value's shape as the model file has it: the batch axis of 1 the graph dropped, restored.
    static func batchShape(_ shape: [Int]) -> [Int] { [1] + shape }
}
