import KernelBenchmarks
import CPUFeatures
import Foundation
import Testing
@testable import Tensor
import TestSupport

@Suite struct PackedPointwiseTests {
    // Numerical cases: PointwiseConvolutionTests.matchesReference checks both pointwise paths.

    @Test func writesOnlyItsOwnRowBand() throws {
        var rng = SeededGenerator(seed: 11)
        let x = randomTensor([10, 6, 12], &rng), w = randomTensor([12, 20], &rng), b = randomTensor([20], &rng)
        let want = try NaiveKernels.convolution(x, weights: try w.reshaped([1, 1, 12, 20]), bias: b,
                                             stride: 1, dilation: 1, padding: .same, activation: .relu6)
        for (kernel, isa) in gemmVariants {
            let packed = try PackedPointwiseWeights(weights: w, bias: b, kernel: kernel, isa: isa)
            let out = try Tensor(zeros: [10, 6, 20])
            for band in [0..<3, 3..<4, 4..<10] {
                try Convolution.pointwise(try x.slice(band), packed: packed, activation: .relu6, into: try out.slice(band))
            }
            expectClose(out, want, "\(kernel) \(isa) pointwise banded")
        }
    }

    /// Every build prefers the packed microkernel, in the best copy the CPU runs (narrowed by
    /// POSEKIT_FORCE_CPU_FEATURES or POSEKIT_KERNEL_ISA when set).
    @Test func preferredKernelIsTheBestTheCPURuns() throws {
        if ProcessInfo.processInfo.environment[GEMMKernel.environmentVariable] == nil {
            #expect(GEMMKernel.preferred == .packed)
        }
        #expect(KernelISA.supported.first == .baseline)
        #expect(KernelISA.supported.contains(KernelISA.preferred))
        let features = HostCPU.features
        #if arch(x86_64)
        #expect(KernelISA.supported.contains(.avx2) == features.isSuperset(of: [.avx, .avx2, .fma]))
        #expect(KernelISA.supported.contains(.avx512) == features.isSuperset(of: BuildTarget.avx512Features.union([.avx2, .fma])))
        #endif
        if ProcessInfo.processInfo.environment[KernelISA.environmentVariable] == nil {
            #expect(KernelISA.preferred == KernelISA.supported.last)
        }
        let packed = try PackedPointwiseWeights(weights: Tensor(zeros: [4, 4]), bias: nil)
        #expect(packed.kernel == GEMMKernel.preferred)
        #expect(packed.isa == KernelISA.preferred)
        for isa in KernelISA.allCases where !KernelISA.supported.contains(isa) {
            #expect(throws: TensorError.self) { try PackedPointwiseWeights(weights: Tensor(zeros: [4, 4]), bias: nil, isa: isa) }
        }
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
        for (gemm, isa) in gemmVariants {
        let packed = try PackedPointwiseWeights(weights: try w.reshaped([kernel * kernel * s.2, s.3]), bias: b, kernel: gemm, isa: isa)
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
