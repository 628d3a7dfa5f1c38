import Testing
@testable import Tensor

@Suite struct PackedPointwiseTests {
    // (H, W, Cin, Cout): 1-pixel images, pixel counts that leave partial 8-pixel tiles, Cout off
    // the panel width (one-vector last panels, partial lanes), Cin of 1 and MobileNet's shapes.
    @Test(arguments: [
        (1, 1, 1, 1), (1, 1, 3, 5), (7, 5, 17, 33), (13, 11, 48, 96), (9, 9, 64, 24), (3, 3, 24, 48),
        (40, 40, 8, 8), (65, 33, 4, 7), (3, 2, 130, 17), (5, 7, 384, 115), (2, 9, 96, 192), (1, 3, 7, 40),
    ] as [(Int, Int, Int, Int)])
    func matchesReference(_ s: (Int, Int, Int, Int)) throws {
        var rng = SeededGenerator(seed: UInt64(s.0 * 1000 + s.1 * 100 + s.2 * 10 + s.3) &+ 99)
        let x = randomTensor([s.0, s.1, s.2], &rng, in: -2...2)
        let w = randomTensor([1, 1, s.2, s.3], &rng)
        let b = randomTensor([s.3], &rng)
        for activation in allActivations {
            for bias in [b, nil] as [Tensor?] {
                let want = try Reference.convolution(x, weights: w, bias: bias, stride: 1, dilation: 1,
                                                     padding: .same, activation: activation)
                let packed = try PackedPointwiseWeights(weights: w, bias: bias)
                for threads in [1, 2, 3] {
                    // NaN-filled output: every element must be written.
                    let got = try Tensor(shape: [s.0, s.1, s.3], values: Array(repeating: .nan, count: s.0 * s.1 * s.3))
                    try Convolution.pointwise(x, packed: packed, activation: activation, into: got, threads: threads)
                    expectClose(got, want, "packed pointwise \(s) \(activation) bias=\(bias != nil) threads=\(threads)")
                }
            }
        }
    }

    @Test func writesOnlyItsOwnRowBand() throws {
        var rng = SeededGenerator(seed: 11)
        let x = randomTensor([10, 6, 12], &rng), w = randomTensor([12, 20], &rng), b = randomTensor([20], &rng)
        let want = try Reference.convolution(x, weights: try w.reshaped([1, 1, 12, 20]), bias: b,
                                             stride: 1, dilation: 1, padding: .same, activation: .relu6)
        let packed = try PackedPointwiseWeights(weights: w, bias: b)
        let out = try Tensor(zeros: [10, 6, 20])
        for band in [0..<3, 3..<4, 4..<10] {
            try Convolution.pointwise(try x.slice(band), packed: packed, activation: .relu6, into: try out.slice(band))
        }
        expectClose(out, want, "packed pointwise banded")
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
