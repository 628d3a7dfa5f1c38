import Foundation
import ModelGraph
import Testing
import Tensor
@testable import PoseNet
import PoseCore
import TestSupport

/// PoseNet as a graph (the family mapper, `PoseNetWeights.graph(inputSize:outputStride:)`): its
/// shape, its four named outputs against the float64 reference heads, the packed heads
/// `PoseNetModel` runs equal to the four, one plan step per block, and the one reduced-precision
/// rule choosing PoseNet's widest layers.
@Suite struct PoseNetGraphTests {
    static let folder = SharedData.root.appendingPathComponent("reference/mobilenet075__coco_000000000785__257_os16")

    @Test func theGraphsOutputsAreTheReferenceHeads() throws {
        let weights = try PoseNetWeights(bundle: WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075")))
        let graph = try weights.graph(inputSize: 257, outputStride: 16)
        #expect(graph.inputs.map { graph.values[$0].name } == [PoseNetGraph.inputName] && graph.values[graph.inputs[0]].shape == [257, 257, 3])
        #expect(graph.outputs.map { graph.values[$0].name } == PoseNetGraph.headNames)
        #expect(graph.outputs.map { graph.values[$0].shape } == [[17, 17, 17], [17, 17, 34], [17, 17, 32], [17, 17, 32]])
        #expect(graph.nodes.count == 1 + 2 * 13 + 4 + 1)
        #expect(graph.weights === weights.packedWeights, "every graph of a weight set shares its packed weights")

        let runner = try GraphRunner(graph: graph, threads: 2)
        try ReferenceInput.load(Self.folder.appendingPathComponent("input.ppm"), into: runner.inputBuffers[0])
        try runner.runInPlace()
        let parity = NetworkParityTests()
        try parity.expectClose(runner.outputBuffers[0], Self.folder, "heatmap.f32", absolute: 1e-4, "graph")
        for (output, file) in zip(runner.outputBuffers.dropFirst(), ["offsets.f32", "displacement_fwd.f32", "displacement_bwd.f32"]) {
            try parity.expectClose(output, Self.folder, file, relativeToMax: 5e-4, "graph")
        }

        // The model's packed heads (one GEMM, the sigmoid in place) are the four outputs side by side.
        let model = try PoseNetModel(weights: weights, inputSize: 257, outputStride: 16, threads: 2)
        try ReferenceInput.load(Self.folder.appendingPathComponent("input.ppm"), into: model.input)
        try model.run()
        let packed = [model.heatmapScores, model.offsets, model.displacementsFwd, model.displacementsBwd]
        for (i, (a, b)) in zip(packed, runner.outputBuffers).enumerated() {
            let worst = zip(a.scalars, b.scalars).map { absoluteError($0, $1) }.max() ?? .infinity
            #expect(a.shape == b.shape && worst <= 1e-5, "head \(i): packed and separate differ by \(worst)")
        }
    }

    /// Output stride 8 dilates the blocks after the stride is reached; the graph's windows say so.
    @Test func outputStride8DilatesTheLastBlocks() throws {
        let weights = try PoseNetWeights(bundle: WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075")))
        let graph = try weights.graph(inputSize: 161, outputStride: 8)
        let dilations = graph.nodes.compactMap { ($0.operation as? DepthwiseConv2DOp)?.window.dilationHeight }
        #expect(dilations == [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2], "\(dilations)")
        #expect(graph.values[graph.outputs[0]].shape == [21, 21, 17])
        #expect(throws: PoseNetError.self) { try weights.graph(inputSize: 16, outputStride: 16) }
        #expect(throws: PoseNetError.self) { try weights.graph(inputSize: 257, outputStride: 64) }
    }

    /// The runner's plan of PoseNet: block 0, 13 separable steps (the band followed through all 14),
    /// the four heads as one step.
    @Test func thePlanIsOneStepPerBlock() throws {
        let weights = try PoseNetWeights(bundle: WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet050")))
        for stride in [8, 16] {
            let runner = try GraphRunner(graph: try weights.graph(inputSize: 257, outputStride: stride, packedHeads: true), threads: 1)
            #expect(runner.stepCount == 15 && runner.bandChainSteps == 14, "\(runner.stepKinds)")
            #expect(runner.stepKinds.first == "conv 3x3 s2" && runner.stepKinds.last == "conv 1x1 (4 merged) + logistic")
            #expect(runner.stepKinds.dropFirst().dropLast().allSatisfy { $0.hasPrefix("depthwise 3x3") && $0.hasSuffix("+ conv 1x1") })
        }
    }

    /// Which layers a reduced precision takes: the widest input's (blocks 7–13 and the heads for
    /// 0.75), by the one rule the graph carries; `POSEKIT_POSENET_REDUCED_LAYERS`' names are the graph's.
    @Test func theReducedLayersAreTheWidest() throws {
        let weights = try PoseNetWeights(bundle: WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075")))
        let graph = try weights.graph(inputSize: 257, outputStride: 16, packedHeads: true)
        #expect(graph.reducedPrecision.minimumInputChannels == 384 && graph.reducedPrecision.layers == nil)
        var reduced: [String] = []
        for node in graph.nodes {
            guard let conv = node.operation as? Conv2DOp, conv.window.kernelHeight == 1 else { continue }
            let name = graph.values[node.outputs[0]].name
            let layer = ["heatmap_logits", "offsets", "displacement_fwd", "displacement_bwd"].contains(name) ? PoseNetGraph.headsName : name
            if graph.reducedPrecision.precision(.int8, layer: layer, inputChannels: graph.values[node.inputs[0]].shape[2],
                                                fusedAfterStore: false) == .int8, !reduced.contains(layer) {
                reduced.append(layer)
            }
        }
        #expect(reduced == (7...13).map(PoseNetGraph.pointwiseName) + [PoseNetGraph.headsName], "\(reduced)")
        #expect(PoseNetWeights.layerName(7) == PoseNetGraph.pointwiseName(7) && PoseNetWeights.layerName(PoseNetWeights.headsLayer) == "heads")
    }
}
