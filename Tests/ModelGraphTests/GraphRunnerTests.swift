import ModelGraph
import Tensor
import Testing
import TestSupport

/// Builds small graphs for tests: inputs, random constants and nodes, shapes given by the test.
struct GraphBuilder {
    var values: [GraphValue] = []
    var nodes: [GraphNode] = []
    var inputs: [ValueID] = []
    var rng: SeededGenerator

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func input(_ shape: [Int]) -> ValueID {
        values.append(GraphValue(name: "input\(inputs.count)", shape: shape))
        inputs.append(values.count - 1)
        return values.count - 1
    }

    mutating func constant(_ shape: [Int], _ lo: Float = -1, _ hi: Float = 1) -> ValueID {
        let tensor = try! Tensor(shape: shape, values: rng.floats(shape.reduce(1, *), lo, hi))
        values.append(GraphValue(name: "const\(values.count)", shape: shape, constant: tensor))
        return values.count - 1
    }

    mutating func node(_ operation: any GraphOperation, _ inputs: [ValueID], _ shape: [Int]) -> ValueID {
        values.append(GraphValue(name: "v\(values.count)", shape: shape))
        nodes.append(GraphNode(operation: operation, inputs: inputs, outputs: [values.count - 1]))
        return values.count - 1
    }

    mutating func conv(_ x: ValueID, _ window: Window2D, cout: Int, activation: Activation = .none) -> ValueID {
        let s = values[x].shape
        let oh = (s[0] + window.padding.top + window.padding.bottom - window.kernelHeight) / window.strideHeight + 1
        let ow = (s[1] + window.padding.left + window.padding.right - window.kernelWidth) / window.strideWidth + 1
        let w = constant([window.kernelHeight, window.kernelWidth, s[2], cout]), b = constant([cout])
        return node(Conv2DOp(window: window, activation: activation), [x, w, b], [oh, ow, cout])
    }

    mutating func depthwise(_ x: ValueID, _ window: Window2D, activation: Activation = .none) -> ValueID {
        let s = values[x].shape
        let oh = (s[0] + window.padding.top + window.padding.bottom - window.kernelHeight) / window.strideHeight + 1
        let ow = (s[1] + window.padding.left + window.padding.right - window.kernelWidth) / window.strideWidth + 1
        let w = constant([window.kernelHeight, window.kernelWidth, s[2]]), b = constant([s[2]])
        return node(DepthwiseConv2DOp(window: window, activation: activation), [x, w, b], [oh, ow, s[2]])
    }

    mutating func randomInputs() -> [Tensor] {
        inputs.map { id in try! Tensor(shape: values[id].shape, values: rng.floats(values[id].count, -2, 2)) }
    }

    func graph(outputs: [ValueID]) -> Graph { Graph(values: values, nodes: nodes, inputs: inputs, outputs: outputs) }
}

/// A window with TF SAME's padding amounts for an input of `size` (odd pixel bottom/right).
func sameWindow(_ k: Int, stride: Int, size: (Int, Int)) -> Window2D {
    func amounts(_ n: Int) -> (Int, Int) {
        let out = (n + stride - 1) / stride
        let total = max((out - 1) * stride + k - n, 0)
        return (total / 2, total - total / 2)
    }
    let (top, bottom) = amounts(size.0), (left, right) = amounts(size.1)
    return Window2D(kernelHeight: k, kernelWidth: k, strideHeight: stride, strideWidth: stride,
                    padding: SpatialPadding(top: top, left: left, bottom: bottom, right: right))
}

func window(_ k: Int, stride: Int, _ top: Int, _ left: Int, _ bottom: Int, _ right: Int) -> Window2D {
    Window2D(kernelHeight: k, kernelWidth: k, strideHeight: stride, strideWidth: stride,
             padding: SpatialPadding(top: top, left: left, bottom: bottom, right: right))
}

/// Runs `graph` on the runner (each thread count) and on the naive interpreter, and expects every
/// output within `tolerance` of its range (at least 1).
func expectRunnerMatchesNaive(_ graph: Graph, inputs: [Tensor], threads: [Int] = [1, 2], tolerance: Double = 1e-4,
                              _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let reference = NaiveGraphInterpreter.run(graph, inputs: inputs)
    for t in threads {
        let runner = try GraphRunner(graph: graph, threads: t)
        let outputs = try runner.run(inputs)
        for (output, id) in zip(outputs, graph.outputs) {
            let want = reference[id]!
            #expect(output.shape == (graph.values[id].shape.isEmpty ? [1] : graph.values[id].shape), "\(what): shape", sourceLocation: sourceLocation)
            let got = output.scalars
            let range = max(1, (want.data.max() ?? 0) - (want.data.min() ?? 0))
            var worst = 0.0
            for (g, w) in zip(got, want.data) { worst = max(worst, Double(absoluteError(Float(g), Float(w)))) }
            #expect(got.count == want.data.count && worst <= tolerance * range,
                    "\(what) (threads \(t)): max error \(worst), range \(range)", sourceLocation: sourceLocation)
        }
    }
}

@Suite struct GraphRunnerTests {
    /// Channel counts around the vector widths (8, 16) and odd ones, so every tail path runs.
    static let channels = [3, 8, 17, 32]

    @Test func convolutions() throws {
        for (index, c) in Self.channels.enumerated() {
            var b = GraphBuilder(seed: UInt64(10 + index))
            let x = b.input([9, 10, c])
            let outputs = [
                b.conv(x, window(1, stride: 1, 0, 0, 0, 0), cout: 20, activation: .relu6),   // 1x1: the packed GEMM
                b.conv(x, sameWindow(3, stride: 2, size: (9, 10)), cout: 24, activation: .relu),  // 3x3 s2 SAME (0/1 on 10)
                b.conv(x, sameWindow(5, stride: 2, size: (9, 10)), cout: 16),                 // 5x5 s2 SAME stem
                b.conv(x, sameWindow(3, stride: 1, size: (9, 10)), cout: 5),                  // 3x3 s1
                b.conv(x, window(3, stride: 2, 1, 1, 1, 1), cout: 7),                         // explicit, neither SAME nor VALID
                b.conv(x, window(3, stride: 1, 0, 0, 0, 0), cout: 9, activation: .relu6),     // VALID
                b.conv(x, sameWindow(3, stride: 1, size: (9, 10)), cout: 1),                  // few output channels: dot products
                b.conv(x, sameWindow(5, stride: 2, size: (9, 10)), cout: 3, activation: .relu6),
            ]
            try expectRunnerMatchesNaive(b.graph(outputs: outputs), inputs: b.randomInputs(), "convolutions, \(c) channels")
        }
        // 2x2 VALID on a 2x2 input (the pose landmark heads), and a fully connected layer.
        var b = GraphBuilder(seed: 3)
        let x = b.input([2, 2, 40])
        let head = b.conv(x, window(2, stride: 1, 0, 0, 0, 0), cout: 33)
        let flat = b.node(ReshapeOp(), [x], [160])
        let fc = b.node(FullyConnectedOp(activation: .none), [flat, b.constant([160, 21]), b.constant([21])], [21])
        try expectRunnerMatchesNaive(b.graph(outputs: [head, fc]), inputs: b.randomInputs(), "2x2 head and fully connected")
    }

    @Test func depthwise() throws {
        for (index, c) in Self.channels.enumerated() {
            for (h, w) in [(9, 10), (4, 3), (16, 16)] {
                var b = GraphBuilder(seed: UInt64(100 + index * 7 + h))
                let x = b.input([h, w, c])
                var outputs: [ValueID] = []
                for k in [3, 5] {
                    for stride in [1, 2] {
                        outputs.append(b.depthwise(x, sameWindow(k, stride: stride, size: (h, w)), activation: [.none, .relu, .relu6][(k + stride) % 3]))
                    }
                }
                outputs.append(b.depthwise(x, window(3, stride: 2, 1, 1, 1, 1)))  // MediaPipe's PAD [1,1] folded
                outputs.append(b.depthwise(x, window(5, stride: 2, 2, 2, 2, 2)))
                if h >= 5 && w >= 5 { outputs.append(b.depthwise(x, window(5, stride: 1, 0, 0, 0, 0))) }
                try expectRunnerMatchesNaive(b.graph(outputs: outputs), inputs: b.randomInputs(), "depthwise \(h)x\(w)x\(c)")
            }
        }
    }

    @Test func elementwiseAndDataMovement() throws {
        var b = GraphBuilder(seed: 7)
        let x = b.input([6, 7, 19]), y = b.input([6, 7, 19])
        let sum = b.node(AddOp(activation: .relu6), [x, y], [6, 7, 19])
        let prelu = b.node(PReLUOp(), [x, b.constant([19], 0, 0.5)], [6, 7, 19])
        let logistic = b.node(LogisticOp(), [y], [6, 7, 19])
        let padded = b.node(PadOp(amounts: [PadAmount(before: 1, after: 2), PadAmount(before: 0, after: 1), PadAmount(before: 0, after: 13)]),
                            [x], [9, 8, 32])
        let pool = b.node(MaxPool2DOp(window: sameWindow(2, stride: 2, size: (6, 7))), [x], [3, 4, 19])
        let mean = b.node(SpatialMeanOp(), [y], [19])
        let resized = b.node(ResizeBilinearOp(alignCorners: false, halfPixelCenters: true), [x], [12, 14, 19])
        let z = b.input([3, 5, 12])
        let space = b.node(DepthToSpaceOp(blockSize: 2), [z], [6, 10, 3])
        let rows = b.node(ReshapeOp(), [x], [42, 19])
        let rows2 = b.node(ReshapeOp(), [y], [42, 19])
        let stacked = b.node(ConcatenationOp(axis: 0), [rows, rows2], [84, 19])
        let sideBySide = b.node(ConcatenationOp(axis: 1), [rows, rows2, b.node(ReshapeOp(), [sum], [42, 19])], [42, 57])
        let outputs = [sum, prelu, logistic, padded, pool, mean, resized, space, stacked, sideBySide]
        let graph = b.graph(outputs: outputs)
        try expectRunnerMatchesNaive(graph, inputs: b.randomInputs(), "elementwise and data movement")
    }

    /// The operations Create ML's layers map to: N-D transposes and slices, softmax along an axis,
    /// a batchnorm (scale-shift) and an activation standing alone, average pooling with the padding
    /// in or out of the divisor, and a convolution striding 2 down and 1 across.
    @Test func createMLOperations() throws {
        var b = GraphBuilder(seed: 11)
        let x = b.input([5, 18, 12]), v = b.input([2, 3, 4, 5])
        let swapped = b.node(TransposeOp(permutation: [0, 2, 1]), [x], [5, 12, 18])
        let reversed = b.node(TransposeOp(permutation: [3, 2, 1, 0]), [v], [5, 4, 3, 2])
        let mixed = b.node(TransposeOp(permutation: [2, 0, 3, 1]), [v], [4, 2, 5, 3])
        let part = b.node(SliceOp(axis: 1, start: 4), [x], [5, 8, 12])
        let lastPart = b.node(SliceOp(axis: 3, start: 2), [v], [2, 3, 4, 3])
        let softLast = b.node(SoftmaxOp(axis: 2), [x], [5, 18, 12])
        let softFirst = b.node(SoftmaxOp(axis: 0), [v], [2, 3, 4, 5])
        let normalized = b.node(ScaleShiftOp(axis: 2, activation: .relu), [x, b.constant([12]), b.constant([12])], [5, 18, 12])
        let normalizedInner = b.node(ScaleShiftOp(axis: 1, activation: .none), [v, b.constant([3]), b.constant([3])], [2, 3, 4, 5])
        let relu = b.node(ActivationOp(activation: .relu6), [x], [5, 18, 12])
        let average = b.node(AveragePool2DOp(window: window(3, stride: 2, 1, 1, 1, 1), excludingPadding: true), [x], [3, 9, 12])
        let averageAll = b.node(AveragePool2DOp(window: window(3, stride: 2, 1, 1, 1, 1), excludingPadding: false), [x], [3, 9, 12])
        let temporal = b.conv(x, Window2D(kernelHeight: 3, kernelWidth: 1, strideHeight: 2, strideWidth: 1,
                                          padding: SpatialPadding(top: 1, left: 0, bottom: 1, right: 0)), cout: 20, activation: .relu)
        let across = b.conv(x, Window2D(kernelHeight: 1, kernelWidth: 1, strideHeight: 2, strideWidth: 1, padding: .zero), cout: 7)
        let outputs = [swapped, reversed, mixed, part, lastPart, softLast, softFirst, normalized, normalizedInner, relu, average, averageAll,
                       temporal, across]
        try expectRunnerMatchesNaive(b.graph(outputs: outputs), inputs: b.randomInputs(), "Create ML operations")
    }
}

@Suite struct GraphRunnerPlanTests {
    /// A DAG like the MediaPipe models': a residual add, an upsampling branch, two outputs.
    static func dag() -> (GraphBuilder, Graph, heads: [ValueID]) {
        var b = GraphBuilder(seed: 42)
        let x = b.input([16, 16, 8])
        let stem = b.conv(x, sameWindow(3, stride: 2, size: (16, 16)), cout: 16, activation: .relu6)   // 8x8x16
        let dw = b.depthwise(stem, sameWindow(5, stride: 1, size: (8, 8)))
        let pw = b.conv(dw, window(1, stride: 1, 0, 0, 0, 0), cout: 16)
        let block = b.node(AddOp(activation: .relu6), [pw, stem], [8, 8, 16])
        let down = b.depthwise(block, window(3, stride: 2, 1, 1, 1, 1))                                 // 4x4x16
        let up = b.node(ResizeBilinearOp(alignCorners: false, halfPixelCenters: true), [down], [8, 8, 16])
        let merged = b.node(AddOp(activation: .none), [up, block], [8, 8, 16])
        let mask = b.conv(merged, sameWindow(3, stride: 1, size: (8, 8)), cout: 1)                      // the "segmentation" head
        let pooled = b.node(SpatialMeanOp(), [down], [16])
        let score = b.node(LogisticOp(), [b.node(FullyConnectedOp(activation: .none), [pooled, b.constant([16, 1]), b.constant([1])], [1])], [1])
        let heads = [score, mask]
        return (b, b.graph(outputs: heads), heads)
    }

    @Test func dagMatchesNaiveAndReusesBuffers() throws {
        var (b, graph, _) = Self.dag()
        let inputs = b.randomInputs()
        try expectRunnerMatchesNaive(graph, inputs: inputs, "DAG")
        let runner = try GraphRunner(graph: graph, threads: 1)
        let everyValue = graph.values.filter { $0.constant == nil }.reduce(0) { $0 + $1.count }
        #expect(runner.poolFloatCount < everyValue, "the pool (\(runner.poolFloatCount) floats) reuses buffers: every value is \(everyValue)")
        // Running twice gives the same values (nothing left over from the first run matters).
        let first = try runner.run(inputs), second = try runner.run(inputs)
        #expect(first.map(\.scalars) == second.map(\.scalars))
    }

    @Test func prunedOutputsEqualFullOutputs() throws {
        var (b, graph, heads) = Self.dag()
        let inputs = b.randomInputs()
        let full = try GraphRunner(graph: graph, threads: 2)
        let pruned = try GraphRunner(graph: graph, outputs: [heads[0]], threads: 2)
        #expect(pruned.stepCount < full.stepCount, "the mask branch is left out")
        let all = try full.run(inputs), some = try pruned.run(inputs)
        #expect(some.count == 1 && some[0].scalars == all[0].scalars)
    }

    @Test func refusesCyclesAndUnsupportedNodes() throws {
        var b = GraphBuilder(seed: 1)
        let x = b.input([4, 4, 2])
        let a = b.node(AddOp(activation: .none), [x, x], [4, 4, 2])
        var graph = b.graph(outputs: [a])
        graph.nodes[0].inputs = [x, a]  // reads its own output
        #expect(throws: GraphError.self) { try GraphRunner(graph: graph) }

        var c = GraphBuilder(seed: 2)
        let y = c.input([4, 4, 2])
        let r = c.node(ResizeBilinearOp(alignCorners: true, halfPixelCenters: false), [y], [8, 8, 2])
        do {
            _ = try GraphRunner(graph: c.graph(outputs: [r]))
            Issue.record("align_corners was accepted")
        } catch let error as GraphRunnerError {
            #expect(error.localizedDescription.contains("resizeBilinear"), "\(error.localizedDescription)")
        }
        let runner = try GraphRunner(graph: GraphRunnerPlanTests.dag().1)
        #expect(throws: GraphRunnerError.self) { try runner.run([try Tensor(zeros: [16, 16, 7])]) }
    }
}
