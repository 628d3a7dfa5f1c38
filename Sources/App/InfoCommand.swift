import ArgumentParser
import CPUFeatures
import Foundation
import ModelGraph
import PoseKit
import PoseNetImport
import TFLite

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

    /// The build, CPU and kernel lines.
    static var buildDescription: String {
        """
          build         \(BuildTarget.description)
          this CPU      \(HostCPU.summary)
          GEMM kernel   \(GEMMKernel.preferred.description)
          kernel ISAs   \(KernelISA.supported.map(\.name).joined(separator: ", ")) (this CPU runs; best chosen)
          depthwise     \(Convolution.depthwiseKernelFamily)
          reduced       \(ReducedPrecisionKernel.supported.isEmpty ? "none (fp32 only)" : ReducedPrecisionKernel.supported.map(\.family).joined(separator: ", ")) (this CPU runs; first of each precision chosen)
          CPU class     \(CPUClass.host.summary)
        """
    }

    func run() throws {
        if build {
            print(Info.buildDescription)
            return
        }
        // By content first: a TFLite model renamed is still one.
        if GraphModelFile.isTFLite(model) {
            try describeTFLite(at: model)
            return
        }
        if let path = CreateMLActionClassifier.modelPath(model) {
            try describeCreateMLClassifier(at: path)
            return
        }
        // A model of several bundles (blazepose, hands-full, ...): the catalogue's entry.
        if let entry = ModelCatalogue.model(named: model), entry.bundles.map(\.name) != [model] {
            print(entry.summaryLines.joined(separator: "\n"))
            return
        }
        let url = try ModelLocator.resolve(model)
        let start = MonotonicClock.now()
        let bundle = try CLIError.reading(url.path) { try WeightBundle(contentsOf: url) }
        let openMilliseconds = (MonotonicClock.now() - start) * 1e3
        let m = bundle.manifest
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(m), as: UTF8.self))
            return
        }
        let bytesByType = Dictionary(grouping: m.tensors, by: \.dtype).mapValues { $0.reduce(0) { $0 + $1.elementCount } }
        let dtypes = m.dtypes.map { "\($0.rawValue) (\(bytesByType[$0] ?? 0) parameters)" }.joined(separator: ", ")
        print("\(url.path)  (\(bundle.fileSize) bytes, mapped and checksum verified in \(String(format: "%.2f", openMilliseconds)) ms)")
        switch m.kind {
        case PoseNetSection.kind:
            let bias = m.preprocessing.bias.map { String(format: "%g", $0) }.joined(separator: ", ")
            print("""
                  family        \(m.family), width multiplier \(m.widthMultiplier)
                  block strides \(m.blockStrides.map(String.init).joined(separator: " "))
                  output stride \(m.outputStride)\(m.outputStrideIsFromSource ? " (as exported)" : " (default; the source does not fix it)")
                  input         \(InputScaling.colorOrder) × \(String(format: "%.9g", m.preprocessing.scale)) + [\(bias)]
                """)
            // As a graph (what `posekit run` and every PoseNet model runs), at pose's default input size.
            let graph = try GraphModelFile.load(url.path)
            print("  graph         at input \(GraphModelFile.defaultPoseNetInputSize) (the shapes follow the input size)")
            print(GraphSummary.lines(graph))
        case ActionWeightsFile.kind:
            let (net, header) = try CLIError.reading(url.path) { try ActionWeightsFile.load(bundle: bundle) }
            let a = header.architecture
            print("""
                  network       actionnet: temporal convolutions, kernel \(a.kernel), channels \(a.inputChannels) → \(a.channels1) → \(a.channels2) → \(a.classes)
                  window        \(a.windowLength) frames at \(String(format: "%g", header.fps)) frames/s, a window every \(header.windowStride) frames
                  classes       \(header.classes.joined(separator: ", "))
                """)
            print(Self.runLines(try CLIError.reading(url.path) { try net.graph() }))
        case Graph.bundleKind:
            let graph = try CLIError.reading(url.path) { try Graph(bundle: bundle) }
            print(GraphSummary.lines(graph))
        default:
            print("  kind          \(m.kind) (not a network this PoseKit runs)")
        }
        print("""
              tensors       \(m.tensors.count), \(m.parameterCount) parameters
              dtype         \(dtypes)
              source        \(m.source.fileName) (\(m.source.format))\(m.source.sha256.isEmpty ? "" : ", sha256 \(m.source.sha256)")
              license       \(m.license.spdx)
              attribution   \(m.license.attribution)
            """)
        for (key, value) in m.source.notes.sorted(by: { $0.key < $1.key }) {
            print("  source \(key): \(value.split(separator: "\n").joined(separator: " "))")
        }
        if tensors {
            for t in m.tensors {
                print("  \(t.name)  \(t.dtype.rawValue) \(t.shape) \(t.layout.rawValue)")
            }
        }
        print(Info.buildDescription)
    }

    /// Inputs, outputs, operations and multiply-adds of a `.tflite` file, imported in memory (nothing written).
    private func describeTFLite(at path: String) throws {
        if json || tensors { throw CLIError("--json and --tensors describe .pkw bundles; `posekit import` the .tflite first") }
        let bytes = try CLIError.reading(path) { [UInt8](try RegularFile.contents(atPath: path)) }
        let imported = try TFLiteImporter.importModel(bytes: bytes, file: path)
        let stored = imported.model.operatorCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        print("""
            \(path)  (\(bytes.count) bytes, TFLite schema version \(imported.model.version)\(imported.model.description.map { ", \"\(CLIError.printable($0))\"" } ?? ""))
              stored ops    \(imported.model.operators.count): \(stored.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
              tensors       \(imported.model.tensors.count)
            \(GraphSummary.lines(imported.graph))
              sha256        \(imported.source.sha256)
              license       \(imported.license.spdx)
              attribution   \(imported.license.attribution)
            """)
    }

    /// Labels, window, frame rate, layers and where the model came from (its metadata and hash).
    private func describeCreateMLClassifier(at path: String) throws {
        if json || tensors { throw CLIError("--json and --tensors describe .pkw bundles, not .mlmodel files") }
        let classifier = try CreateMLActionClassifier.loading(path)
        // A regular file only: a FIFO named like a model must not make the command wait.
        let bytes = try CLIError.reading(path) { [UInt8](try RegularFile.contents(atPath: path)) }
        let m = classifier.metadata
        let rate = String(format: "%g", classifier.frameRate)
        let rateSource = classifier.frameRateIsFromMetadata ? "metadata 'Target Frame Rate'" : "default: no 'Target Frame Rate' in the metadata"
        print("""
            \(path)  (\(bytes.count) bytes, Core ML specification \(classifier.specificationVersion))
              network       Create ML action classifier (Core ML neuralNetworkClassifier), \(classifier.layerCount) layers
              input         poses \(classifier.inputShape): x, y, confidence of Vision's 18 joints per frame
              window        \(classifier.windowLength) frames at \(rate) frames/s (\(rateSource)), a window every \(CreateMLActionClassifier.defaultWindowStride) frames
              labels        \(classifier.labels.joined(separator: ", "))
              description   \(m.shortDescription)
              version       \(m.version)
              author        \(m.author)
              license       \(m.license)
              sha256        \(SHA256.hexDigest(bytes))
            """)
        for (key, value) in m.userDefined.sorted(by: { $0.key < $1.key }) {
            print("  metadata \(key): \(value.split(separator: "\n").joined(separator: " "))")
        }
        print(Self.runLines(classifier.graph))
    }

    /// The graph a Create ML classifier or ActionNet runs as: its operations, and its inputs and
    /// outputs as `posekit run` names and shapes them (batch axis included, as `run --list`).
    static func runLines(_ graph: Graph) -> String {
        var lines = ["  graph         \(graph.nodes.count) operations: " + graph.operationCounts.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
                     + ", \(GraphSummary.millions(graph.multiplyAdds)) multiply-adds"]
        for (index, id) in graph.inputs.enumerated() {
            lines.append("  run input \(index)   \(CLIError.printable(graph.values[id].name)) \(RunCommand.batchShape(graph.values[id].shape))")
        }
        for (index, id) in graph.outputs.enumerated() {
            lines.append("  run output \(index)  \(CLIError.printable(graph.values[id].name)) \(RunCommand.batchShape(graph.values[id].shape))")
        }
        return lines.joined(separator: "\n")
    }
}
