import Foundation
import ModelGraph
import Testing
@testable import TFLite

/// The hand-made sparse model (``TinyTFLite``): folding, layouts and padding against hand-checked values.
@Suite struct TinyModelTests {
    static func importTiny(_ model: TinyTFLite = .sparseConv) throws -> Graph {
        try TFLiteImporter.importModel(bytes: model.bytes, file: "tiny.tflite").graph
    }

    @Test func foldsDensifyAndDequantizeIntoHWIOWeights() throws {
        let graph = try Self.importTiny()
        #expect(graph.nodes.count == 1)
        let conv = graph.nodes[0]
        #expect(conv.operation as? Conv2DOp == Conv2DOp(window: Window2D(kernelHeight: 1, kernelWidth: 1, strideHeight: 1, strideWidth: 1, padding: .zero), activation: .relu6))
        let weights = try #require(graph.values[conv.inputs[1]].constant)
        #expect(weights.shape == [1, 1, 4, 3])
        #expect(weights.scalars == [1, 0, 0, 0, 0, 3, 0, 0, -4, 2, 0, 0])
        let bias = try #require(graph.values[conv.inputs[2]].constant)
        #expect(bias.scalars == [0.5, -1, 0.25])
        #expect(graph.values[graph.inputs[0]].shape == [2, 2, 4])
        #expect(graph.values[graph.outputs[0]].shape == [2, 2, 3])
        #expect(graph.parameterCount == 15)
        #expect(graph.multiplyAdds == 2 * 2 * 3 * 4)
    }

    /// TF SAME: out = ceil(n / s), total = max((out − 1)·s + k − n, 0), before = total / 2.
    @Test func resolvesSamePaddingAsymmetricallyOnRealModels() throws {
        // hand_landmark: 3×3 s2 stem on 224 pads 0 before, 1 after; palm: 5×5 s2 on 192 pads 1 / 2 (README §3).
        let hand = try #require(mediapipeImports["hand_landmark_full"]).graph
        let palm = try #require(mediapipeImports["palm_detection_full"]).graph
        for (graph, expected) in [(hand, SpatialPadding(top: 0, left: 0, bottom: 1, right: 1)), (palm, SpatialPadding(top: 1, left: 1, bottom: 2, right: 2))] {
            let stem = try #require(graph.nodes.first { $0.inputs.first == graph.inputs[0] })
            guard let window = (stem.operation as? Conv2DOp)?.window else { Issue.record("the stem is \(stem.operation)"); continue }
            #expect(window.padding == expected)
            #expect(window.strideHeight == 2)
        }
        // The pose models pad explicitly (PAD [1,1] then VALID), so their stems have zero padding.
        let pose = try #require(mediapipeImports["pose_detection"]).graph
        let pad = try #require(pose.nodes.first { $0.inputs.first == pose.inputs[0] })
        #expect(pad.operation as? PadOp == PadOp(amounts: [PadAmount(before: 1, after: 1), PadAmount(before: 1, after: 1), PadAmount(before: 0, after: 0)]))
    }

    /// README §3: 38 sparse tensors holding 680,895 of 2,723,584 values; the densified weights hold
    /// exactly the stored values at distinct places (no value lost or written twice).
    @Test func densifiesThePoseDetectorsSparseWeights() throws {
        let imported = try #require(mediapipeImports["pose_detection"])
        let sparse = imported.model.tensors.filter { $0.sparsity != nil }
        #expect(sparse.count == 38)
        #expect(sparse.reduce(0) { $0 + $1.elementCount } == 2_723_584)
        let stored = sparse.reduce(0) { $0 + imported.model.buffers[$1.buffer].count / 2 }
        #expect(stored == 680_895)
        // The sparse tensors feed 1×1 convs: their HWIO weights' nonzeros equal the stored nonzeros.
        var storedNonzero = 0
        for t in sparse {
            let range = imported.model.buffers[t.buffer]
            storedNonzero += stride(from: range.lowerBound, to: range.upperBound, by: 2).filter { imported.model.buffer.bytes[$0] != 0 || imported.model.buffer.bytes[$0 + 1] & 0x7f != 0 }.count
        }
        // Follow each sparse tensor through DENSIFY and DEQUANTIZE to the tensor the conv reads.
        let model = imported.model
        func consumer(of t: Int, code: Int) -> Int? {
            model.operators.first { $0.builtinCode == code && $0.inputs == [t] }?.outputs.first
        }
        let sparseIndices = model.tensors.indices.filter { model.tensors[$0].sparsity != nil }
        let weightNames = Set(sparseIndices.compactMap { t in
            consumer(of: t, code: TFLiteBuiltinOperator.densify).flatMap { consumer(of: $0, code: TFLiteBuiltinOperator.dequantize) }
        }.map { model.tensors[$0].name })
        #expect(weightNames.count == 38)
        let graph = imported.graph
        var denseNonzero = 0, denseCount = 0
        for node in graph.nodes {
            guard node.operation is Conv2DOp, weightNames.contains(graph.values[node.inputs[1]].name) else { continue }
            let w = graph.values[node.inputs[1]]
            denseCount += w.count
            denseNonzero += w.constant!.scalars.filter { $0 != 0 }.count
        }
        #expect(denseCount == 2_723_584)
        #expect(denseNonzero == storedNonzero)
    }
}
