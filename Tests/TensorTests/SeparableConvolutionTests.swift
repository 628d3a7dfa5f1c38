import KernelBenchmarks
import Testing
@testable import Tensor
import TestSupport

@Suite struct SeparableConvolutionTests {
    // (H, W, C, Cout, stride, dilation): 1-pixel images, widths below and above a band, channel
    // counts off the vector widths (8, 16) for both convolutions, strides 1/2, dilations 1/2/4.
    @Test(arguments: [
        (1, 1, 3, 5, 1, 1), (1, 1, 24, 48, 2, 1), (9, 7, 24, 48, 1, 1), (17, 13, 48, 96, 2, 1),
        (33, 33, 40, 19, 1, 2), (6, 40, 17, 33, 1, 4), (12, 5, 7, 7, 2, 1), (70, 3, 8, 115, 1, 1),
    ] as [(Int, Int, Int, Int, Int, Int)])
    func matchesTwoReferenceLayers(_ s: (Int, Int, Int, Int, Int, Int)) throws {
        var rng = SeededGenerator(seed: UInt64(s.0 * 100_003 + s.1 * 1009 + s.2 * 31 + s.3 * 7 + s.4 + s.5))
        let x = randomTensor([s.0, s.1, s.2], &rng, in: -2...2)
        let dw = randomTensor([3, 3, s.2], &rng), dwb = randomTensor([s.2], &rng)
        let pw = randomTensor([1, 1, s.2, s.3], &rng), pwb = randomTensor([s.3], &rng)
        let workspace = ConvolutionWorkspace()
        for (kernel, isa) in gemmVariants { for activation in allActivations {
            let packed = try PackedPointwiseWeights(weights: pw, bias: pwb, kernel: kernel, isa: isa)
            let mid = try NaiveKernels.convolution(x, weights: try dw.reshaped([3, 3, 1, s.2]), bias: dwb, stride: s.4,
                                                dilation: s.5, padding: .same, activation: activation, groups: s.2)
            let want = try NaiveKernels.convolution(mid, weights: pw, bias: pwb, stride: 1, dilation: 1,
                                                 padding: .same, activation: activation)
            for threads in [1, 2, 3] {
                let got = try Tensor(shape: want.shape, values: Array(repeating: .nan, count: want.count))
                try Convolution.separable(x, depthwiseWeights: dw, depthwiseBias: dwb, stride: s.4, dilation: s.5,
                                          packed: packed, activation: activation, into: got, workspace: workspace,
                                          threads: threads)
                expectClose(got, want, "\(kernel) separable \(s) \(activation) threads=\(threads)")
            }
        } }
    }

    @Test func rejectsBadShapes() throws {
        let x = try Tensor(zeros: [5, 5, 8]), ws = ConvolutionWorkspace()
        let packed = try PackedPointwiseWeights(weights: try Tensor(zeros: [8, 4]), bias: nil)
        let dw = try Tensor(zeros: [3, 3, 8])
        #expect(throws: TensorError.self) {
            try Convolution.separable(x, depthwiseWeights: try Tensor(zeros: [3, 3, 7]), depthwiseBias: nil,
                                      packed: packed, into: try Tensor(zeros: [5, 5, 4]), workspace: ws)
        }
        #expect(throws: TensorError.self) {
            try Convolution.separable(x, depthwiseWeights: dw, depthwiseBias: nil, stride: 3,
                                      packed: packed, into: try Tensor(zeros: [2, 2, 4]), workspace: ws)
        }
        #expect(throws: TensorError.self) {
            try Convolution.separable(x, depthwiseWeights: dw, depthwiseBias: nil, stride: 2,
                                      packed: packed, into: try Tensor(zeros: [5, 5, 4]), workspace: ws)
        }
        #expect(throws: TensorError.self) {
            try Convolution.separable(try Tensor(zeros: [5, 5, 6]), depthwiseWeights: try Tensor(zeros: [3, 3, 6]),
                                      depthwiseBias: nil, packed: packed, into: try Tensor(zeros: [5, 5, 4]), workspace: ws)
        }
    }
}
