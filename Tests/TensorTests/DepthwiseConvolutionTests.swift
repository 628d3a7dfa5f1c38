import KernelBenchmarks
import Testing
@testable import Tensor
import TestSupport

@Suite struct DepthwiseConvolutionTests {
    // Channel counts around the SIMD widths (8, 16, 32) and MobileNet's; sizes odd, even and
    // tiny: rows shorter than a 4-pixel group, rows ending in a partial group, and (3x17 at
    // dilation 4) rows whose windows keep one of their three rows inside the image.
    static let channels = [1, 3, 8, 15, 16, 17, 24, 33, 40, 57]
    static let sizes: [(Int, Int)] = [(1, 1), (2, 3), (5, 5), (8, 7), (17, 13), (3, 17)]

    @Test(arguments: [1, 2], [1, 2, 4])
    func matchesReference(stride: Int, dilation: Int) throws {
        var rng = SeededGenerator(seed: UInt64(stride * 10 + dilation))
        for (h, w) in Self.sizes {
            for c in Self.channels {
                let x = randomTensor([h, w, c], &rng, in: -4...4)
                let k = randomTensor([3, 3, c], &rng)
                let b = randomTensor([c], &rng)
                let activation = allActivations[(h + c) % 3]
                let bias: Tensor? = c % 2 == 0 ? nil : b
                var paddings: [Padding] = [.same]
                if min(h, w) >= 2 * dilation + 1 { paddings.append(.valid) }
                for padding in paddings {
                    let want = try NaiveKernels.depthwise(x, weights: k, bias: bias, stride: stride, dilation: dilation,
                                                       padding: padding, activation: activation)
                    for threads in [1, 2] {
                        let got = try Convolution.depthwise3x3(x, weights: k, bias: bias, stride: stride, dilation: dilation,
                                                               padding: padding, activation: activation, threads: threads)
                        expectClose(got, want, "depthwise \(h)x\(w)x\(c) s\(stride) d\(dilation) \(padding) \(activation) t\(threads)")
                    }
                    // Each instruction set's copy of the interior sweep the CPU runs.
                    for isa in KernelISA.supported {
                        let got = try Tensor(shape: want.shape, values: Array(repeating: .nan, count: want.count))
                        try Convolution.depthwise3x3(x, weights: k, bias: bias, stride: stride, dilation: dilation, padding: padding,
                                                     activation: activation, into: got, outputRows: nil, threads: 1, isa: isa)
                        expectClose(got, want, "depthwise \(isa) \(h)x\(w)x\(c) s\(stride) d\(dilation) \(padding) \(activation)")
                    }
                }
            }
        }
    }

    @Test func outputRowBandsAndTFWeights() throws {
        var rng = SeededGenerator(seed: 11)
        let x = randomTensor([13, 9, 20], &rng), k = randomTensor([3, 3, 20, 1], &rng), b = randomTensor([20], &rng)
        let flat = try k.reshaped([3, 3, 20])
        let want = try NaiveKernels.depthwise(x, weights: flat, bias: b, stride: 2, dilation: 1, padding: .same, activation: .relu6)
        let out = try Tensor(zeros: [7, 5, 20])
        for band in [0..<1, 1..<4, 4..<7] {
            try Convolution.depthwise3x3(x, weights: k, bias: b, stride: 2, activation: .relu6,
                                         into: try out.slice(band), outputRows: band)
        }
        expectClose(out, want, "depthwise in row bands")
    }

    @Test func rejectsBadShapes() throws {
        let x = try Tensor(zeros: [6, 6, 8])
        #expect(throws: TensorError.unsupported("depthwise kernel 5x5; only 3x3 is implemented")) {
            try Convolution.depthwise3x3(x, weights: try Tensor(zeros: [5, 5, 8]), bias: nil)
        }
        #expect(throws: TensorError.self) { try Convolution.depthwise3x3(x, weights: try Tensor(zeros: [3, 3, 7]), bias: nil) }
        #expect(throws: TensorError.self) { try Convolution.depthwise3x3(x, weights: try Tensor(zeros: [3, 3, 8]), bias: nil, stride: 3) }
        #expect(throws: TensorError.self) { try Convolution.depthwise3x3(x, weights: try Tensor(zeros: [3, 3, 8]), bias: nil, dilation: 0) }
        #expect(throws: TensorError.self) {
            try Convolution.depthwise3x3(x, weights: try Tensor(zeros: [3, 3, 8]), bias: try Tensor(zeros: [3]))
        }
        #expect(throws: TensorError.self) {
            try Convolution.depthwise3x3(x, weights: try Tensor(zeros: [3, 3, 8]), bias: nil, into: try Tensor(zeros: [6, 6, 8]),
                                         outputRows: 4..<8)
        }
        #expect(throws: TensorError.self) {
            try Convolution.depthwise3x3(x, weights: try Tensor(zeros: [3, 3, 8]), bias: nil, stride: 2, into: try Tensor(zeros: [6, 6, 8]))
        }
    }
}
