import ModelGraph
import Tensor
import Testing
import TestSupport

/// Residual `ADD` and `PRELU` run in the epilogue of the convolution before them: where the plan
/// fuses (and where it must not), and that fused values are the unfused plan's and the naive
/// interpreter's.
@Suite struct EpilogueFusionTests {
    /// Every fusable pattern and every reason not to fuse, on channel counts that leave partial
    /// panels and vectors (20, 17, 40 output channels), with each fused value checked against the
    /// naive interpreter and the unfused plan.
    @Test func fusesWhereTheGraphAllowsAndGivesTheUnfusedValues() throws {
        var b = GraphBuilder(seed: 35)
        let x = b.input([9, 10, 17])
        let pointwise = window(1, stride: 1, 0, 0, 0, 0)
        // conv 1x1 → ADD(relu6) → PRELU: palm_detection's block, all three in one step.
        let pw1 = b.conv(x, pointwise, cout: 17)
        let sum1 = b.node(AddOp(activation: .relu6), [pw1, x], [9, 10, 17])
        let block = b.node(PReLUOp(), [sum1, b.constant([17], -0.5, 0.5)], [9, 10, 17])
        // conv 5x5 s2 SAME → PRELU: palm_detection's stem (the general convolution's epilogue).
        let stem = b.conv(x, sameWindow(5, stride: 2, size: (9, 10)), cout: 40)
        let stemPReLU = b.node(PReLUOp(), [stem, b.constant([40], 0, 0.5)], [5, 5, 40])
        // ADD with the convolution second, its residual made after the convolution (the fused
        // step must wait for it).
        let pw2 = b.conv(block, pointwise, cout: 20)
        let late = b.conv(x, pointwise, cout: 20, activation: .relu)
        let sum2 = b.node(AddOp(activation: .none), [late, pw2], [9, 10, 20])
        // Two convolutions read by one ADD alone: one of them runs it, the other is its residual.
        let pairA = b.conv(x, pointwise, cout: 20), pairB = b.conv(x, pointwise, cout: 20)
        let pairSum = b.node(AddOp(activation: .relu), [pairA, pairB], [9, 10, 20])
        // Not fused: the convolution's output is also an output; it has two readers; it has an
        // activation of its own before the ADD; a few-channel convolution (dot products).
        let kept = b.conv(block, pointwise, cout: 17)
        let keptSum = b.node(AddOp(activation: .none), [kept, x], [9, 10, 17])
        let shared = b.conv(block, pointwise, cout: 17)
        let twice = b.node(AddOp(activation: .none), [shared, x], [9, 10, 17])
        let again = b.node(PReLUOp(), [shared, b.constant([17])], [9, 10, 17])
        let clamped = b.conv(block, pointwise, cout: 17, activation: .relu6)
        let clampedSum = b.node(AddOp(activation: .none), [clamped, x], [9, 10, 17])
        let few = b.conv(x, sameWindow(3, stride: 1, size: (9, 10)), cout: 2)
        let fewPReLU = b.node(PReLUOp(), [few, b.constant([2])], [9, 10, 2])
        let outputs = [block, stemPReLU, sum2, pairSum, kept, keptSum, twice, again, clampedSum, fewPReLU]
        let graph = b.graph(outputs: outputs)
        let inputs = b.randomInputs()
        try expectRunnerMatchesNaive(graph, inputs: inputs, "fused epilogues")

        let nodeOf = { (value: ValueID) in graph.nodes.firstIndex { $0.outputs == [value] }! }
        for threads in [1, 2] {
            let fused = try GraphRunner(graph: graph, threads: threads)
            let unfused = try GraphRunner(graph: graph, threads: threads, fusingEpilogues: false)
            #expect(Set(fused.fusedNodes) == Set([sum1, block, stemPReLU, sum2, pairSum].map(nodeOf)), "fused nodes \(fused.fusedNodes)")
            #expect(unfused.fusedNodes.isEmpty)
            #expect(fused.stepCount == unfused.stepCount - 5)
            #expect(fused.stepKinds.contains("conv 1x1 + add + prelu") && fused.stepKinds.contains("conv 5x5 s2 + prelu")
                    && fused.stepKinds.contains("conv 1x1 + add"), "\(fused.stepKinds)")
            let got = try fused.run(inputs), want = try unfused.run(inputs)
            for (i, (g, w)) in zip(got, want).enumerated() {
                #expect(g.scalars == w.scalars, "output \(i), \(threads) threads: fused and unfused differ")
            }
        }
    }

    /// The kernels' epilogue on its own: the packed GEMM (residual = the output itself) and
    /// OpenBLAS's path (weights packed for `.blas`, a separate residual) give the separate
    /// kernels' values, and a residual of another shape or PReLU slopes of another count are refused.
    @Test func kernelEpilogueOnBothGEMMsAndInPlace() throws {
        var rng = SeededGenerator(seed: 5)
        let (h, w, cin, cout) = (5, 7, 24, 37)
        let input = try Tensor(shape: [h, w, cin], values: rng.floats(h * w * cin))
        let weights = try Tensor(shape: [cin, cout], values: rng.floats(cin * cout))
        let bias = try Tensor(shape: [cout], values: rng.floats(cout))
        let residualValues = rng.floats(h * w * cout, -3, 3)
        let slopeTensor = try Tensor(shape: [cout], values: rng.floats(cout, -1, 1))
        let slopes = try PReLUSlopes(slopeTensor)
        // Reference: the separate kernels, one after the other.
        let plain = try Convolution.pointwise(input, weights: weights, bias: bias, activation: .none, threads: 1)
        let residual = try Tensor(shape: [h, w, cout], values: residualValues)
        try Elementwise.add(plain, residual, activation: .relu6, into: plain, threads: 1)
        try Elementwise.prelu(plain, slope: slopeTensor, into: plain, threads: 1)
        for kernel in [GEMMKernel.packed, .blas] {
            let packed = try PackedPointwiseWeights(weights: weights, bias: bias, kernel: kernel)
            let output = try Tensor(shape: [h, w, cout], values: residualValues)
            if kernel == .packed {  // residual = output, in place: the separate kernels' values bit for bit
                try Convolution.pointwise(input, packed: packed, epilogue: Epilogue(activation: .relu6, residual: output, prelu: slopes),
                                          into: output, threads: 2)
                #expect(output.scalars == plain.scalars, "packed GEMM: fused epilogue in place")
            } else {  // OpenBLAS sums in another order: within float rounding, apart and in place
                try Convolution.pointwise(input, packed: packed, epilogue: Epilogue(activation: .relu6, residual: residual, prelu: slopes),
                                          into: output, threads: 2)
                let worst = zip(output.scalars, plain.scalars).map { abs($0 - $1) }.max() ?? .infinity
                #expect(worst <= 1e-5, "OpenBLAS: fused epilogue off by \(worst)")
                let inPlace = try Tensor(shape: [h, w, cout], values: residualValues)
                try Convolution.pointwise(input, packed: packed, epilogue: Epilogue(activation: .relu6, residual: inPlace, prelu: slopes),
                                          into: inPlace, threads: 2)
                let worstInPlace = zip(inPlace.scalars, plain.scalars).map { abs($0 - $1) }.max() ?? .infinity
                #expect(worstInPlace <= 1e-5, "OpenBLAS: fused epilogue in place off by \(worstInPlace)")
            }
            #expect(throws: TensorError.self) {
                try Convolution.pointwise(input, packed: packed, epilogue: Epilogue(residual: try Tensor(zeros: [h, w, cout - 1])),
                                          into: try Tensor(zeros: [h, w, cout]), threads: 1)
            }
            #expect(throws: TensorError.self) {
                try Convolution.pointwise(input, packed: packed, epilogue: Epilogue(prelu: try PReLUSlopes(try Tensor(zeros: [cout + 1]))),
                                          into: try Tensor(zeros: [h, w, cout]), threads: 1)
            }
        }
    }
}
