import CPUFeatures
import Foundation
import ModelGraph
import PoseKit
import TFLite

/// What `posekit info` prints about a model file and this build: a weight bundle (after its
/// checksum is verified: network, tensors, source, licence, its graph), a TFLite model imported in
/// memory, a Create ML action classifier, and the CPU the binary was compiled for, the host's
/// vector features and the kernels chosen. Each description goes out line by line through
/// `print`: what was printed before a failure stays printed.
public enum ModelDescription {
    /// The build, CPU and kernel lines (`posekit info --build`, and after a bundle's description).
    public static var build: String {
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

    /// The bundle at `url`: its raw manifest with `json`, else its network, graph, tensors
    /// (every tensor with `tensors`), source and licence, then ``build``.
    public static func bundle(at url: URL, json: Bool, tensors: Bool, print: (String) -> Void) throws {
        let start = MonotonicClock.now()
        let bundle = try ModelFileError.reading(url.path) { try WeightBundle(contentsOf: url) }
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
            let (net, header) = try ModelFileError.reading(url.path) { try ActionWeightsFile.load(bundle: bundle) }
            let a = header.architecture
            print("""
                  network       actionnet: temporal convolutions, kernel \(a.kernel), channels \(a.inputChannels) → \(a.channels1) → \(a.channels2) → \(a.classes)
                  window        \(a.windowLength) frames at \(String(format: "%g", header.fps)) frames/s, a window every \(header.windowStride) frames
                  classes       \(header.classes.joined(separator: ", "))
                """)
            print(Self.runLines(try ModelFileError.reading(url.path) { try net.graph() }))
        case Graph.bundleKind:
            let graph = try ModelFileError.reading(url.path) { try Graph(bundle: bundle) }
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
        print(Self.build)
    }

    /// Inputs, outputs, operations and multiply-adds of a `.tflite` file, imported in memory (nothing written).
    public static func tflite(at path: String, print: (String) -> Void) throws {
        let bytes = try ModelFileError.reading(path) { [UInt8](try RegularFile.contents(atPath: path)) }
        let imported = try TFLiteImporter.importModel(bytes: bytes, file: path)
        let stored = imported.model.operatorCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        print("""
            \(path)  (\(bytes.count) bytes, TFLite schema version \(imported.model.version)\(imported.model.description.map { ", \"\(PrintableText.make($0))\"" } ?? ""))
              stored ops    \(imported.model.operators.count): \(stored.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
              tensors       \(imported.model.tensors.count)
            \(GraphSummary.lines(imported.graph))
              sha256        \(imported.source.sha256)
              license       \(imported.license.spdx)
              attribution   \(imported.license.attribution)
            """)
    }

    /// Labels, window, frame rate, layers and where the model came from (its metadata and hash).
    public static func createMLClassifier(at path: String, print: (String) -> Void) throws {
        let classifier = try CreateMLActionClassifier.loading(path)
        // A regular file only: a FIFO named like a model must not make the command wait.
        let bytes = try ModelFileError.reading(path) { [UInt8](try RegularFile.contents(atPath: path)) }
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
    public static func runLines(_ graph: Graph) -> String {
        var lines = ["  graph         \(graph.nodes.count) operations: " + graph.operationCounts.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
                     + ", \(GraphSummary.millions(graph.multiplyAdds)) multiply-adds"]
        for (index, id) in graph.inputs.enumerated() {
            lines.append("  run input \(index)   \(PrintableText.make(graph.values[id].name)) \(GraphModelFile.batchShape(graph.values[id].shape))")
        }
        for (index, id) in graph.outputs.enumerated() {
            lines.append("  run output \(index)  \(PrintableText.make(graph.values[id].name)) \(GraphModelFile.batchShape(graph.values[id].shape))")
        }
        return lines.joined(separator: "\n")
    }
}
