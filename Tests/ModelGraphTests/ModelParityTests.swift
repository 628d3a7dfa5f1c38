import Foundation
import ModelGraph
import Tensor
import Testing
import TFLite

/// `../shared` (env POSEKIT_SHARED, else beside the repository root).
let sharedDirectory: URL = {
    if let env = ProcessInfo.processInfo.environment["POSEKIT_SHARED"], !env.isEmpty { return URL(fileURLWithPath: env) }
    return URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared")
}()

/// One MediaPipe model's golden case (`reference/mediapipe/models/<model>/`): the exact input,
/// TFLite's outputs (`*_Identity*.npy`, in the model's output order) and the float64
/// interpreter's (`*_fp64_out<i>.npy`).
struct MediaPipeCase {
    let model: String
    let input: Tensor
    let tflite: [Tensor]
    let float64: [Tensor]

    static let models = ["pose_detection", "pose_landmark_full", "palm_detection_full", "palm_detection_lite",
                         "hand_landmark_full", "hand_landmark_lite"]

    init(_ model: String) throws {
        self.model = model
        let folder = sharedDirectory.appendingPathComponent("reference/mediapipe/models/\(model)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".npy") }
        func read(_ name: String) throws -> Tensor { try NumPyArray.read(contentsOf: folder.appendingPathComponent(name)) }
        input = try read(try #require(files.first { $0.hasSuffix("_input_1.npy") }))
        // `…_Identity_landmarks.npy` is output 0, `…_Identity_<i>_<what>.npy` output i.
        func identityIndex(_ file: String) -> Int? {
            guard let range = file.range(of: "_Identity") else { return nil }
            let rest = file[range.upperBound...]
            guard rest.hasPrefix("_") else { return 0 }
            return Int(rest.dropFirst().prefix { $0.isNumber }) ?? 0
        }
        tflite = try files.compactMap { file in identityIndex(file).map { ($0, file) } }.sorted { $0.0 < $1.0 }.map { try read($0.1) }
        float64 = try files.compactMap { file -> (Int, String)? in
            guard let range = file.range(of: "_fp64_out"), let i = Int(file[range.upperBound...].prefix { $0.isNumber }) else { return nil }
            return (i, file)
        }.sorted { $0.0 < $1.0 }.map { try read($0.1) }
    }

    /// The model imported from its `.tflite`.
    func graph() throws -> Graph {
        let url = sharedDirectory.appendingPathComponent("weights/mediapipe-0.10.14/\(model).tflite")
        return try TFLiteImporter.importModel(at: url).graph
    }
}

/// The largest difference between `output` and `reference` over the reference's range (max − min):
/// the criterion is ≤ 1e-4. An output of one value (the [1, 1] flags) has no range; its
/// magnitude stands in (at least 1e-6).
func errorOverRange(_ output: Tensor, _ reference: Tensor) -> Double {
    let got = output.scalars, want = reference.scalars
    guard got.count == want.count else { return .infinity }
    var range = Double((want.max() ?? 0) - (want.min() ?? 0))
    if range == 0 { range = max(1e-6, want.map { abs(Double($0)) }.max() ?? 0) }
    var worst = 0.0
    for (g, w) in zip(got, want) {
        let d = abs(Double(g) - Double(w))
        worst = max(worst, d.isNaN ? .infinity : d)
    }
    return worst / range
}

@Suite struct ModelParityTests {
    /// Each model against TFLite's and the float64 outputs, on the default (fused) plan; and the
    /// fusion checks of `expectFusion`.
    @Test(arguments: MediaPipeCase.models)
    func matchesTFLiteAndFloat64(_ model: String) throws {
        let golden = try MediaPipeCase(model)
        let graph = try golden.graph()
        #expect(golden.tflite.count == graph.outputs.count && golden.float64.count == graph.outputs.count,
                "\(model): \(golden.tflite.count) TFLite and \(golden.float64.count) float64 goldens for \(graph.outputs.count) outputs")
        let runner = try GraphRunner(graph: graph, threads: 2)
        let outputs = try runner.run([golden.input])
        try expectFusion(model, graph, runner, outputs: outputs, input: golden.input)
        for (i, output) in outputs.enumerated() {
            // The goldens keep the batch axis the graph drops.
            #expect([1] + output.shape == golden.tflite[i].shape, "\(model) output \(i): shape \(output.shape)")
            let againstTFLite = errorOverRange(output, golden.tflite[i]), againstFloat64 = errorOverRange(output, golden.float64[i])
            #expect(againstTFLite <= 1e-4, "\(model) output \(i): \(againstTFLite) of the range from TFLite's")
            #expect(againstFloat64 <= 1e-4, "\(model) output \(i): \(againstFloat64) of the range from the float64 reference")
        }
    }

    /// Epilogue fusion on a model (called by the parity test, on its graph and runner): it happened
    /// (residual ADDs, and PRELUs in the palm detectors, run in convolutions' epilogues: plan
    /// introspection), and the fused plan gives the unfused plan's values within float rounding.
    func expectFusion(_ model: String, _ graph: Graph, _ fused: GraphRunner, outputs got: [Tensor], input: Tensor) throws {
        let unfused = try GraphRunner(graph: graph, threads: 2, fusingEpilogues: false, fusingLayers: false)
        let adds = graph.nodes.indices.filter { graph.nodes[$0].operation is AddOp }
        let prelus = graph.nodes.indices.filter { graph.nodes[$0].operation is PReLUOp }
        let depthwise = graph.nodes.indices.filter { graph.nodes[$0].operation is DepthwiseConv2DOp }
        let fusedNodes = Set(fused.fusedNodes)
        // ADDs and PRELUs in convolutions' epilogues; depthwise 3x3 layers with the 1x1 after them (SeparableFusion).
        #expect(fusedNodes.isSubset(of: Set(adds + prelus + depthwise)), "\(model): only ADD, PRELU and depthwise nodes are fused")
        #expect(unfused.fusedNodes.isEmpty && fused.stepCount == unfused.stepCount - fusedNodes.count)
        // Most residual ADDs follow a 1x1 convolution; the palm detectors' PRELUs follow an ADD or a convolution.
        let fusedAdds = fusedNodes.intersection(adds).count, fusedPReLUs = fusedNodes.intersection(prelus).count
        #expect(2 * fusedAdds >= adds.count, "\(model): \(fusedAdds) of \(adds.count) ADDs fused")
        #expect(2 * fusedPReLUs >= prelus.count, "\(model): \(fusedPReLUs) of \(prelus.count) PRELUs fused")
        #expect(fused.stepKinds.contains { $0.hasPrefix("conv 1x1 + add") })
        let want = try unfused.run([input])
        for (i, (g, w)) in zip(got, want).enumerated() {
            let difference = errorOverRange(g, w)
            #expect(difference <= 1e-6, "\(model) output \(i): fused differs from unfused by \(difference) of the range")
        }
    }

    /// pose_landmark_full without its segmentation and heatmap outputs: the same values for the
    /// outputs kept, with fewer steps (the segmentation branch is never run).
    @Test func prunedPoseLandmarkGivesTheSameOutputs() throws {
        let golden = try MediaPipeCase("pose_landmark_full")
        let graph = try golden.graph()
        let full = try GraphRunner(graph: graph, threads: 2)
        let kept = [0, 1, 4]
        let pruned = try GraphRunner(graph: graph, outputs: kept.map { graph.outputs[$0] }, threads: 2)
        #expect(pruned.stepCount < full.stepCount - 10, "pruned \(pruned.stepCount) steps of \(full.stepCount)")
        let all = try full.run([golden.input]), some = try pruned.run([golden.input])
        for (j, i) in kept.enumerated() {
            #expect(some[j].scalars == all[i].scalars, "output \(i) pruned and not")
            #expect(errorOverRange(some[j], golden.tflite[i]) <= 1e-4)
        }
    }
}
