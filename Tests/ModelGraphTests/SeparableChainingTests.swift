import ModelGraph
import Tensor
import Testing
import TestSupport

/// Two MobileNet blocks whose activation between them is large run as one chain (the plan pass
/// `SeparableChaining`): the outputs are the naive interpreter's, and a band of equal rows, which
/// runs the blocks one after the other, gives the chain's outputs bit for bit.
@Suite struct SeparableChainingTests {
    /// Blocks of `(stride, cout)` after a `[side, side, 16]` input, all ReLU6.
    static func blocks(_ strides: [(Int, Int)], side: Int, seed: UInt64) -> (GraphBuilder, Graph) {
        var b = GraphBuilder(seed: seed)
        var y = b.input([side, side, 16])
        var s = side
        for (stride, cout) in strides {
            let w = sameWindow(3, stride: stride, size: (s, s))
            s = (s + stride - 1) / stride
            let c = b.values[y].shape[2]
            let dw = b.node(DepthwiseConv2DOp(window: w, activation: .relu6), [y, b.constant([3, 3, c]), b.constant([c])], [s, s, c])
            y = b.conv(dw, LayerFusionTests.pointwiseWindow, cout: cout, activation: .relu6)
        }
        return (b, b.graph(outputs: [y]))
    }

    @Test func blocksWithALargeActivationBetweenThemRunAsOneChain() throws {
        // 130 × 130 × 40 floats (2.6 MiB) between blocks 1 and 2; 65 × 65 × 24 (0.4 MiB) after block 2.
        var (b, graph) = Self.blocks([(1, 40), (2, 24), (1, 24)], side: 130, seed: 31)
        try expectRunnerMatchesNaive(graph, inputs: b.randomInputs(), "chained blocks")
        let runner = try GraphRunner(graph: graph, threads: 2)
        #expect(try runner.stepTimes().map(\.timedWithPrevious) == [false, true, false])
        // Small activations: no chain.
        let (_, small) = Self.blocks([(1, 40), (2, 24), (1, 24)], side: 33, seed: 32)
        #expect(try GraphRunner(graph: small, threads: 2).stepTimes().allSatisfy { !$0.timedWithPrevious })
    }

    @Test func aBandRunsTheBlocksApartAndGivesTheChainsOutputs() throws {
        guard GEMMKernel.preferred == .packed else { return }  // OpenBLAS may round a row by where it falls in a call
        var (b, graph) = Self.blocks([(2, 40), (1, 24)], side: 260, seed: 33)
        for threads in [1, 2, 3] {
            let banded = try GraphRunner(graph: graph, threads: threads), chained = try GraphRunner(graph: graph, threads: threads)
            let band = InputBand(axis: .rows, range: 200..<260)
            #expect(try banded.stepTimes(band: band).allSatisfy { !$0.timedWithPrevious }, "a band runs the blocks apart")
            let image = b.randomInputs()[0]
            image.withUnsafeMutableBufferPointer { p in
                for i in (200 * 260 * 16)..<p.count { p[i] = [0.5, -1, 0.25, 2][i % 4] }
            }
            for runner in [banded, chained] {
                runner.inputBuffers[0].withUnsafeMutableBufferPointer { p in image.withUnsafeBufferPointer { _ = p.update(fromContentsOf: $0) } }
            }
            try banded.runInPlace(band: band)
            try chained.runInPlace()
            let differing = zip(banded.outputBuffers[0].scalars, chained.outputBuffers[0].scalars).filter { $0.bitPattern != $1.bitPattern }
            #expect(differing.isEmpty, "\(differing.count) values differ, \(threads) threads")
        }
    }
}
