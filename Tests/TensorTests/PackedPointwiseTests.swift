import KernelBenchmarks
import CPUFeatures
import Foundation
import Testing
@testable import Tensor
import TestSupport

@Suite struct PackedPointwiseTests {
    // Numerical cases: PointwiseConvolutionTests.matchesReference checks both pointwise paths.

    @Test(arguments: GEMMKernel.allCases)
    func writesOnlyItsOwnRowBand(_ kernel: GEMMKernel) throws {
        var rng = SeededGenerator(seed: 11)
        let x = randomTensor([10, 6, 12], &rng), w = randomTensor([12, 20], &rng), b = randomTensor([20], &rng)
        let want = try NaiveKernels.convolution(x, weights: try w.reshaped([1, 1, 12, 20]), bias: b,
                                             stride: 1, dilation: 1, padding: .same, activation: .relu6)
        let packed = try PackedPointwiseWeights(weights: w, bias: b, kernel: kernel)
        let out = try Tensor(zeros: [10, 6, 20])
        for band in [0..<3, 3..<4, 4..<10] {
            try Convolution.pointwise(try x.slice(band), packed: packed, activation: .relu6, into: try out.slice(band))
        }
        expectClose(out, want, "\(kernel) pointwise banded")
    }

    /// The build's choice: the packed microkernel only where Tensor is compiled for the CPU.
    @Test func preferredKernelFollowsTheBuild() throws {
        if ProcessInfo.processInfo.environment[GEMMKernel.environmentVariable] == nil {
            #expect(GEMMKernel.preferred == (BuildTarget.isTuned ? .packed : .blas))
        }
        let packed = try PackedPointwiseWeights(weights: Tensor(zeros: [4, 4]), bias: nil)
        #expect(packed.kernel == GEMMKernel.preferred)
    }

    @Test func rejectsBadShapes() throws {
        let x = try Tensor(zeros: [4, 4, 8])
        #expect(throws: TensorError.self) { try PackedPointwiseWeights(weights: try Tensor(zeros: [3, 3, 8, 3]), bias: nil) }
        #expect(throws: TensorError.self) { try PackedPointwiseWeights(weights: try Tensor(zeros: [8, 3]), bias: try Tensor(zeros: [4])) }
        let packed = try PackedPointwiseWeights(weights: try Tensor(zeros: [8, 8]), bias: nil)
        #expect(throws: TensorError.self) { try Convolution.pointwise(try Tensor(zeros: [4, 4, 7]), packed: packed, into: try Tensor(zeros: [4, 4, 8])) }
        #expect(throws: TensorError.self) { try Convolution.pointwise(x, packed: packed, into: try Tensor(zeros: [4, 5, 8])) }
        #expect(throws: TensorError.self) { try Convolution.pointwise(x, packed: packed, into: x) }
    }
}

@Suite struct PackedGeneralConvolutionTests {
    // (H, W, Cin, Cout, kernel, stride, dilation): PoseNet's first layer at odd sizes, 1-pixel
    // images, dilation, a non-square count of output pixels that leaves partial tiles.
    @Test(arguments: [
        (1, 1, 3, 24, 3, 2, 1), (9, 7, 3, 24, 3, 2, 1), (33, 31, 3, 24, 3, 2, 1), (6, 5, 5, 17, 3, 1, 2),
        (8, 8, 2, 40, 2, 1, 1), (5, 9, 16, 9, 3, 1, 1),
    ] as [(Int, Int, Int, Int, Int, Int, Int)])
    func matchesReference(_ s: (Int, Int, Int, Int, Int, Int, Int)) throws {
        var rng = SeededGenerator(seed: UInt64(s.0 * 7919 + s.1 * 131 + s.2 * 17 + s.3 + s.6))
        let (kernel, stride, dilation) = (s.4, s.5, s.6)
        let x = randomTensor([s.0, s.1, s.2], &rng, in: -1...1)
        let w = randomTensor([kernel, kernel, s.2, s.3], &rng)
        let b = randomTensor([s.3], &rng)
        for gemm in GEMMKernel.allCases {
        let packed = try PackedPointwiseWeights(weights: try w.reshaped([kernel * kernel * s.2, s.3]), bias: b, kernel: gemm)
        for padding in [Padding.same, .valid] {
            guard let want = try? NaiveKernels.convolution(x, weights: w, bias: b, stride: stride, dilation: dilation,
                                                        padding: padding, activation: .relu6) else { continue }
            for threads in [1, 2] {
                let got = try Tensor(shape: want.shape, values: Array(repeating: .nan, count: want.count))
                try Convolution.general(x, packed: packed, kernelHeight: kernel, kernelWidth: kernel, stride: stride,
                                        dilation: dilation, padding: padding, activation: .relu6, into: got, threads: threads)
                expectClose(got, want, "\(gemm) general \(s) \(padding) threads=\(threads)")
            }
        }
        }
    }

    @Test func rejectsMismatchedPacking() throws {
        let packed = try PackedPointwiseWeights(weights: try Tensor(zeros: [27, 8]), bias: nil)
        #expect(throws: TensorError.self) {
            try Convolution.general(try Tensor(zeros: [5, 5, 4]), packed: packed, kernelHeight: 3, kernelWidth: 3,
                                    into: try Tensor(zeros: [5, 5, 8]))
        }
    }
}
