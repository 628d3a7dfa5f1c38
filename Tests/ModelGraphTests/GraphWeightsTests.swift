import Foundation
import ModelGraph
import Tensor
import Testing

/// One packing per weight set: every runner of a graph (other thread counts, output selections,
/// frames in flight) and of graphs given the same store reads the forms the first one made; and
/// one reduced-precision rule, with the family's threshold carried by the graph and its bundle.
@Suite struct GraphWeightsTests {
    /// A stem, a residual 1×1 block and a 1×1 head, a fully connected layer and a few-channel conv.
    static func graph(seed: UInt64) -> (GraphBuilder, Graph, [ValueID]) {
        var b = GraphBuilder(seed: seed)
        let x = b.input([9, 10, 8])
        let stem = b.conv(x, sameWindow(3, stride: 2, size: (9, 10)), cout: 64, activation: .relu6)
        let wide = b.conv(stem, window(1, stride: 1, 0, 0, 0, 0), cout: 96, activation: .relu6)
        let head = b.conv(wide, window(1, stride: 1, 0, 0, 0, 0), cout: 17)
        let few = b.conv(x, sameWindow(3, stride: 1, size: (9, 10)), cout: 2)
        let flat = b.node(ReshapeOp(), [stem], [5 * 5 * 64])
        let fc = b.node(FullyConnectedOp(activation: .none), [flat, b.constant([5 * 5 * 64, 6]), b.constant([6])], [6])
        let outputs = [head, few, fc]
        return (b, b.graph(outputs: outputs), outputs)
    }

    @Test func everyRunnerOfAGraphReadsTheFormsTheFirstMade() throws {
        var (b, graph, outputs) = Self.graph(seed: 5)
        let inputs = b.randomInputs()
        #expect(graph.weights.formCount == 0)
        let first = try GraphRunner(graph: graph, threads: 1)
        let made = graph.weights.formCount
        #expect(made == 5, "four GEMMs (stem, 1×1, head, fully connected) packed, one few-channel conv transposed: \(made)")
        let copy = graph   // a copy of the graph value shares its store
        let others = [try GraphRunner(graph: copy, threads: 2), try GraphRunner(graph: graph, outputs: [outputs[0]], threads: 2),
                      try GraphRunner(graph: graph, threads: 1, fusingEpilogues: false)]
        #expect(graph.weights.formCount == made, "no runner after the first packs anything")
        let expected = try first.run(inputs)
        for runner in others {
            let got = try runner.run(inputs)
            for (g, e) in zip(got, expected.prefix(got.count)) { #expect(g.scalars == e.scalars) }
        }
        // Another graph on a store of its own packs again; one given this store does not.
        let own = Graph(values: graph.values, nodes: graph.nodes, inputs: graph.inputs, outputs: graph.outputs)
        _ = try GraphRunner(graph: own, threads: 1)
        #expect(own.weights.formCount == made && graph.weights.formCount == made)
        let sharing = Graph(values: graph.values, nodes: graph.nodes, inputs: graph.inputs, outputs: graph.outputs, weights: graph.weights)
        _ = try GraphRunner(graph: sharing, threads: 2)
        #expect(graph.weights.formCount == made)
    }

    @Test func aReplacedConstantIsPackedAnew() throws {
        var (b, graph, _) = Self.graph(seed: 6)
        let inputs = b.randomInputs()
        let before = try GraphRunner(graph: graph, threads: 1).run(inputs)
        let made = graph.weights.formCount
        // The head's weights replaced by zeros (another tensor): its output becomes its bias.
        let head = graph.nodes.first { ($0.operation as? Conv2DOp) != nil && graph.values[$0.outputs[0]].shape == [5, 5, 17] }!
        let weights = head.inputs[1]
        graph.values[weights].constant = try Tensor(zeros: graph.values[weights].shape)
        let after = try GraphRunner(graph: graph, threads: 1).run(inputs)
        #expect(graph.weights.formCount == made + 1)
        #expect(after[0].scalars != before[0].scalars)
        let bias = graph.values[head.inputs[2]].constant!.scalars
        #expect(after[0].scalars == (0..<25).flatMap { _ in bias })
        #expect(after[1].scalars == before[1].scalars && after[2].scalars == before[2].scalars)
    }

    /// The one rule: which 1×1 convolutions take a reduced precision (the kernels themselves are
    /// tested by GraphPrecisionParityTests where the CPU has them).
    @Test func theReducedPrecisionRule() {
        let standard = ReducedPrecisionRule.standard
        #expect(standard.minimumInputChannels == Precision.minimumInputChannels)
        #expect(standard.precision(.int8, layer: "a", inputChannels: 64, fusedAfterStore: false) == .int8)
        #expect(standard.precision(.bf16, layer: "a", inputChannels: 63, fusedAfterStore: false) == .fp32)
        #expect(standard.precision(.int8, layer: "a", inputChannels: 512, fusedAfterStore: true) == .fp32, "a fused residual stays fp32")
        #expect(standard.precision(.fp32, layer: "a", inputChannels: 512, fusedAfterStore: false) == .fp32)
        let widest = ReducedPrecisionRule(minimumInputChannels: 384)
        #expect(widest.precision(.int8, layer: "a", inputChannels: 192, fusedAfterStore: false) == .fp32)
        #expect(widest.precision(.int8, layer: "a", inputChannels: 384, fusedAfterStore: false) == .int8)
        let named = ReducedPrecisionRule(minimumInputChannels: 384, layers: ["block 3"])
        #expect(named.precision(.int8, layer: "block 3", inputChannels: 96, fusedAfterStore: false) == .int8)
        #expect(named.precision(.int8, layer: "block 9", inputChannels: 384, fusedAfterStore: false) == .fp32)
        #expect(named.precision(.int8, layer: "block 3", inputChannels: 48, fusedAfterStore: false) == .fp32, "never under 64 channels")
    }

    @Test func aBundleKeepsTheGraphsThreshold() throws {
        var (_, graph, _) = Self.graph(seed: 7)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("graph-weights-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for threshold in [Precision.minimumInputChannels, 96] {
            graph.reducedPrecision.minimumInputChannels = threshold
            let url = directory.appendingPathComponent("g\(threshold).pkw")
            try graph.bundleWriter(name: "g", source: .init(fileName: "g", sha256: String(repeating: "0", count: 64), format: "test"),
                                   license: .init(spdx: "NOASSERTION", attribution: "test")).write(to: url)
            let bundle = try WeightBundle(contentsOf: url)
            let section = try bundle.section(GraphBundleSection.self)
            #expect(section.reducedPrecisionMinimumInputChannels == (threshold == 96 ? 96 : nil), "the standard threshold is not written")
            #expect(try Graph(bundle: bundle).reducedPrecision.minimumInputChannels == threshold)
        }
    }
}
