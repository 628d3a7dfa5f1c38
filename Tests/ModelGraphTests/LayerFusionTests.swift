import ModelGraph
import Tensor
import Testing
import TestSupport

/// The plan passes PoseNet's tuned path became (for every graph): a depthwise 3×3 and the 1×1
/// after it as one step (dilated or strided), 1×1 convolutions of one input concatenated as one
/// GEMM (a logistic on some), and a band of equal input rows followed through the chain of
/// steps that can skip rows. Each against the naive interpreter, and where fusion did not
/// happen, against the reasons.
@Suite struct LayerFusionTests {
    static let pointwiseWindow = window(1, stride: 1, 0, 0, 0, 0)

    /// TF SAME amounts of a dilated 3×3 window.
    static func dilatedSame(stride: Int, dilation: Int, size: Int) -> Window2D {
        let out = (size + stride - 1) / stride
        let total = max((out - 1) * stride + 2 * dilation + 1 - size, 0)
        return Window2D(kernelHeight: 3, kernelWidth: 3, strideHeight: stride, strideWidth: stride, dilationHeight: dilation,
                        dilationWidth: dilation, padding: SpatialPadding(top: total / 2, left: total / 2, bottom: total - total / 2, right: total - total / 2))
    }

    /// A MobileNet-like chain: a stem, separable blocks (stride 2, dilation 2, stride 1), four heads
    /// concatenated (the first through a logistic); plus a pair that must not fuse (the depthwise
    /// output is also an output).
    static func network(seed: UInt64, side: Int = 23) -> (GraphBuilder, Graph) {
        var b = GraphBuilder(seed: seed)
        let x = b.input([side, side, 3])
        var y = b.conv(x, sameWindow(3, stride: 2, size: (side, side)), cout: 16, activation: .relu6)
        var s = (side + 1) / 2
        for (stride, dilation, cout) in [(2, 1, 24), (1, 2, 40), (1, 1, 40)] {
            let w = dilatedSame(stride: stride, dilation: dilation, size: s)
            s = (s + stride - 1) / stride
            let dw = b.node(DepthwiseConv2DOp(window: w, activation: .relu6), [y, b.constant([3, 3, b.values[y].shape[2]]), b.constant([b.values[y].shape[2]])],
                            [s, s, b.values[y].shape[2]])
            y = b.conv(dw, pointwiseWindow, cout: cout, activation: .relu6)
        }
        var heads: [ValueID] = []
        for (i, n) in [5, 7, 4, 4].enumerated() {
            let h = b.conv(y, pointwiseWindow, cout: n)
            heads.append(i == 0 ? b.node(LogisticOp(), [h], [s, s, n]) : h)
        }
        let packed = b.node(ConcatenationOp(axis: 2), heads, [s, s, 20])
        return (b, b.graph(outputs: [packed]))
    }

    @Test func separablePairsAndMergedHeadsMatchNaive() throws {
        var (b, graph) = Self.network(seed: 21)
        let inputs = b.randomInputs()
        try expectRunnerMatchesNaive(graph, inputs: inputs, "fused network")
        let runner = try GraphRunner(graph: graph, threads: 2)
        #expect(runner.stepKinds == ["conv 3x3 s2", "depthwise 3x3 s2 + conv 1x1", "depthwise 3x3 s1 d2 + conv 1x1",
                                     "depthwise 3x3 s1 + conv 1x1", "conv 1x1 (4 merged) + logistic"], "\(runner.stepKinds)")
        let unfused = try GraphRunner(graph: graph, threads: 2, fusingLayers: false)
        #expect(unfused.stepCount == graph.nodes.count)
        #expect(try unfused.run(inputs)[0].scalars.count == runner.run(inputs)[0].scalars.count)
        try expectRunnerMatchesNaive(graph, inputs: inputs, "fused network") // again, after other runners packed
    }

    @Test func whatMayNotFuseDoesNot() throws {
        var b = GraphBuilder(seed: 22)
        let x = b.input([9, 9, 8])
        let dw = b.node(DepthwiseConv2DOp(window: sameWindow(3, stride: 1, size: (9, 9)), activation: .relu6),
                        [x, b.constant([3, 3, 8]), b.constant([8])], [9, 9, 8])
        let pw = b.conv(dw, Self.pointwiseWindow, cout: 12, activation: .relu6)                  // dw also an output: no pair
        let dw2 = b.node(DepthwiseConv2DOp(window: sameWindow(3, stride: 1, size: (9, 9)), activation: .none),
                         [x, b.constant([3, 3, 8]), b.constant([8])], [9, 9, 8])
        let pw2 = b.conv(dw2, Self.pointwiseWindow, cout: 12, activation: .relu6)                // activations differ: no pair
        let h1 = b.conv(x, Self.pointwiseWindow, cout: 3), h2 = b.conv(pw, Self.pointwiseWindow, cout: 3)
        let mixed = b.node(ConcatenationOp(axis: 2), [h1, h2], [9, 9, 6])                          // two inputs: no merge
        let h3 = b.conv(x, Self.pointwiseWindow, cout: 3), h4 = b.conv(x, Self.pointwiseWindow, cout: 3)
        let rows = b.node(ConcatenationOp(axis: 0), [h3, h4], [18, 9, 3])                          // not along channels: no merge
        let graph = b.graph(outputs: [dw, pw, pw2, mixed, rows])
        try expectRunnerMatchesNaive(graph, inputs: b.randomInputs(), "unfusable")
        let runner = try GraphRunner(graph: graph, threads: 1)
        #expect(runner.fusedNodes.isEmpty && !runner.stepKinds.contains { $0.contains("merged") || $0.contains("+ conv") },
                "\(runner.stepKinds)")
    }

    /// A band of equal rows (columns) is followed through the chain and gives the full run's
    /// outputs bit for bit (PoseKit's GEMM rounds every row alike), whatever ran before.
    @Test func aBandGivesTheFullOutputs() throws {
        guard GEMMKernel.preferred == .packed else { return }  // OpenBLAS may round a row by where it falls in a call
        var (b, graph) = Self.network(seed: 23, side: 41)
        for threads in [1, 2] {
            let banded = try GraphRunner(graph: graph, threads: threads), full = try GraphRunner(graph: graph, threads: threads)
            #expect(banded.bandChainSteps == 4, "the stem and the three separable blocks; the merged heads are not band-capable")
            for band in [InputBand(axis: .rows, range: 29..<41), InputBand(axis: .columns, range: 0..<17), InputBand(axis: .rows, range: 10..<30)] {
                let image = b.randomInputs()[0]
                // The band's rows (columns) one color.
                image.withUnsafeMutableBufferPointer { p in
                    for y in 0..<41 { for x in 0..<41 where (band.axis == .rows ? band.range.contains(y) : band.range.contains(x)) {
                        for c in 0..<3 { p[(y * 41 + x) * 3 + c] = [0.5, -1, 0.25][c] }
                    } }
                }
                for runner in [banded, full] {
                    _ = try runner.run(b.randomInputs())  // something else first: stale rows would show
                    runner.inputBuffers[0].withUnsafeMutableBufferPointer { p in image.withUnsafeBufferPointer { _ = p.update(fromContentsOf: $0) } }
                }
                try banded.runInPlace(band: band)
                try full.runInPlace()
                #expect(banded.outputBuffers[0].scalars == full.outputBuffers[0].scalars, "\(band), \(threads) threads")
                #expect(banded.inputBuffers[0].scalars == image.scalars, "the input is left as it was")
            }
            #expect(throws: GraphRunnerError.self) { try banded.runInPlace(band: InputBand(axis: .rows, range: 30..<42)) }
        }
    }
}
