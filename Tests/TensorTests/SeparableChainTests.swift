import KernelBenchmarks
import Testing
@testable import Tensor
import TestSupport

@Suite struct SeparableChainTests {
    /// Block 1: `c0 → c1`, stride `s1`; block 2: `c1 → c2`, stride `s2`, dilation `d2`.
    struct Case: CustomStringConvertible {
        let h: Int, w: Int, c0: Int, c1: Int, c2: Int, s1: Int, s2: Int, d2: Int
        var description: String { "\(h)x\(w) \(c0)->\(c1) s\(s1) -> \(c2) s\(s2) d\(d2)" }
    }

    // 1- and 2-row images (fewer rows than cores), odd and even heights under both strides,
    // heights giving several bands per core (33 × 48 floats a row: 15-row bands), dilation 2.
    static let cases = [
        Case(h: 1, w: 1, c0: 3, c1: 5, c2: 7, s1: 1, s2: 1, d2: 1),
        Case(h: 2, w: 3, c0: 8, c1: 16, c2: 9, s1: 2, s2: 2, d2: 1),
        Case(h: 9, w: 7, c0: 24, c1: 48, c2: 33, s1: 1, s2: 2, d2: 1),
        Case(h: 17, w: 13, c0: 17, c1: 24, c2: 48, s1: 2, s2: 1, d2: 2),
        Case(h: 140, w: 66, c0: 24, c1: 48, c2: 40, s1: 2, s2: 1, d2: 1),
        Case(h: 129, w: 33, c0: 16, c1: 48, c2: 96, s1: 1, s2: 2, d2: 1),
    ]

    /// The chain against the naive loops (two depthwise + 1×1 blocks), and bit for bit against
    /// the two blocks run one after the other, its intermediate activation included.
    @Test(arguments: cases)
    func matchesTheBlocksOneAfterTheOther(_ s: Case) throws {
        var rng = SeededGenerator(seed: UInt64(s.h * 100_003 + s.w * 1009 + s.c0 * 31 + s.c1 * 7 + s.c2 + s.s1 + s.s2))
        let x = randomTensor([s.h, s.w, s.c0], &rng, in: -2...2)
        let dw1 = randomTensor([3, 3, s.c0], &rng), dwb1 = randomTensor([s.c0], &rng)
        let pw1 = randomTensor([1, 1, s.c0, s.c1], &rng), pwb1 = randomTensor([s.c1], &rng)
        let dw2 = randomTensor([3, 3, s.c1], &rng), dwb2 = randomTensor([s.c1], &rng)
        let pw2 = randomTensor([1, 1, s.c1, s.c2], &rng), pwb2 = randomTensor([s.c2], &rng)
        let activation = Activation.relu6  // zeros after it: the zero-channel skipping runs too
        let mid1 = try NaiveKernels.convolution(x, weights: try dw1.reshaped([3, 3, 1, s.c0]), bias: dwb1, stride: s.s1,
                                                dilation: 1, padding: .same, activation: activation, groups: s.c0)
        let want1 = try NaiveKernels.convolution(mid1, weights: pw1, bias: pwb1, stride: 1, dilation: 1, padding: .same,
                                                 activation: activation)
        let mid2 = try NaiveKernels.convolution(want1, weights: try dw2.reshaped([3, 3, 1, s.c1]), bias: dwb2, stride: s.s2,
                                                dilation: s.d2, padding: .same, activation: activation, groups: s.c1)
        let want2 = try NaiveKernels.convolution(mid2, weights: pw2, bias: pwb2, stride: 1, dilation: 1, padding: .same,
                                                 activation: activation)
        let workspace = ConvolutionWorkspace()
        for (kernel, isa) in gemmVariants {
            let first = SeparableBlock(depthwiseWeights: dw1, depthwiseBias: dwb1, stride: s.s1, dilation: 1,
                                       packed: try PackedPointwiseWeights(weights: pw1, bias: pwb1, kernel: kernel, isa: isa),
                                       activation: activation)
            let second = SeparableBlock(depthwiseWeights: dw2, depthwiseBias: dwb2, stride: s.s2, dilation: s.d2,
                                        packed: try PackedPointwiseWeights(weights: pw2, bias: pwb2, kernel: kernel, isa: isa),
                                        activation: activation)
            let apart1 = try Tensor(zeros: want1.shape), apart2 = try Tensor(zeros: want2.shape)
            for (block, input, output) in [(first, x, apart1), (second, apart1, apart2)] {
                try Convolution.separable(input, depthwiseWeights: block.depthwiseWeights, depthwiseBias: block.depthwiseBias,
                                          stride: block.stride, dilation: block.dilation, packed: block.packed,
                                          activation: activation, into: output, workspace: workspace, threads: 1)
            }
            for threads in [1, 2, 3, 7] {
                let what = "\(kernel) \(isa) \(s) threads=\(threads)"
                let got1 = try Tensor(shape: want1.shape, values: Array(repeating: .nan, count: want1.count))
                let got2 = try Tensor(shape: want2.shape, values: Array(repeating: .nan, count: want2.count))
                try Convolution.separableChain(x, [first, second], into: [got1, got2], workspace: workspace, threads: threads)
                expectClose(got1, want1, "intermediate, " + what)
                expectClose(got2, want2, what)
                // PoseKit's GEMM rounds every row alike, however rows are grouped; OpenBLAS's
                // blocking depends on the row count, so it is only close.
                guard kernel == .packed else { continue }
                #expect(differingValues(got1, apart1) == 0, "intermediate, \(what)")
                #expect(differingValues(got2, apart2) == 0, "output, \(what)")
            }
        }
    }

    /// Four blocks, strides 1, 2, 1, 2 (the chain's first block 2-strided too), against the blocks
    /// one after the other, bit for bit, every output; 1 to 7 cores.
    @Test(arguments: [(129, 33, [1, 2, 1, 2]), (64, 40, [2, 1, 2, 1]), (5, 9, [2, 2, 1, 1])] as [(Int, Int, [Int])])
    func fourBlocksMatchTheBlocksOneAfterTheOther(_ s: (Int, Int, [Int])) throws {
        guard GEMMKernel.preferred == .packed else { return }  // OpenBLAS may round a row by where it falls in a call
        var rng = SeededGenerator(seed: UInt64(s.0 * 1000 + s.1))
        let channels = [8, 24, 40, 16, 33]
        let x = randomTensor([s.0, s.1, channels[0]], &rng, in: -2...2)
        var blocks: [SeparableBlock] = [], apart: [Tensor] = []
        var input = x
        let workspace = ConvolutionWorkspace()
        for (i, stride) in s.2.enumerated() {
            let (c, cout) = (channels[i], channels[i + 1])
            let block = SeparableBlock(depthwiseWeights: randomTensor([3, 3, c], &rng), depthwiseBias: randomTensor([c], &rng),
                                       stride: stride, dilation: 1,
                                       packed: try PackedPointwiseWeights(weights: randomTensor([1, 1, c, cout], &rng),
                                                                          bias: randomTensor([cout], &rng)),
                                       activation: .relu6)
            let (h, w) = ((input.shape[0] + stride - 1) / stride, (input.shape[1] + stride - 1) / stride)
            let output = try Tensor(zeros: [h, w, cout])
            try Convolution.separable(input, depthwiseWeights: block.depthwiseWeights, depthwiseBias: block.depthwiseBias,
                                      stride: stride, packed: block.packed, activation: .relu6, into: output,
                                      workspace: workspace, threads: 1)
            blocks.append(block)
            apart.append(output)
            input = output
        }
        for threads in [1, 2, 3, 7] {
            let got = try apart.map { try Tensor(shape: $0.shape, values: Array(repeating: .nan, count: $0.count)) }
            try Convolution.separableChain(x, blocks, into: got, workspace: workspace, threads: threads)
            for i in got.indices {
                #expect(differingValues(got[i], apart[i]) == 0, "block \(i), \(s), \(threads) threads")
            }
        }
    }

    /// How many values of `a` and `b` differ in their bits.
    func differingValues(_ a: Tensor, _ b: Tensor) -> Int {
        zip(a.scalars, b.scalars).filter { $0.bitPattern != $1.bitPattern }.count
    }

    @Test func rejectsBlocksThatDoNotFit() throws {
        let x = try Tensor(zeros: [6, 6, 8]), ws = ConvolutionWorkspace()
        func block(_ c: Int, _ cout: Int, stride: Int = 1) throws -> SeparableBlock {
            SeparableBlock(depthwiseWeights: try Tensor(zeros: [3, 3, c]), depthwiseBias: nil, stride: stride, dilation: 1,
                           packed: try PackedPointwiseWeights(weights: try Tensor(zeros: [c, cout]), bias: nil), activation: .relu6)
        }
        // The second block reads 4 channels, the first makes 5.
        #expect(throws: TensorError.self) {
            try Convolution.separableChain(x, [try block(8, 5), try block(4, 3)],
                                           into: [try Tensor(zeros: [6, 6, 5]), try Tensor(zeros: [6, 6, 3])], workspace: ws)
        }
        // The output's shape is not the second block's (stride 2 gives 3 × 3).
        #expect(throws: TensorError.self) {
            try Convolution.separableChain(x, [try block(8, 4), try block(4, 3, stride: 2)],
                                           into: [try Tensor(zeros: [6, 6, 4]), try Tensor(zeros: [6, 6, 3])], workspace: ws)
        }
        // The output overlapping the intermediate.
        let shared = try Tensor(zeros: [6, 6, 4])
        #expect(throws: TensorError.self) {
            try Convolution.separableChain(x, [try block(8, 4), try block(4, 4)], into: [shared, shared], workspace: ws)
        }
        // A third block's output over the first's.
        let first = try Tensor(zeros: [6, 6, 4])
        #expect(throws: TensorError.self) {
            try Convolution.separableChain(x, [try block(8, 4), try block(4, 4), try block(4, 4)],
                                           into: [first, try Tensor(zeros: [6, 6, 4]), first], workspace: ws)
        }
        // One output per block.
        #expect(throws: TensorError.self) {
            try Convolution.separableChain(x, [try block(8, 4), try block(4, 4)], into: [first], workspace: ws)
        }
    }
}
