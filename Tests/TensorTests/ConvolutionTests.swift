import KernelBenchmarks
import Testing
@testable import Tensor
import TestSupport

@Suite struct PointwiseConvolutionTests {
    // (H, W, Cin, Cout): 1-pixel images, odd sizes, channel counts off the SIMD width, and
    // enough pixels for several GEMM bands (the band size depends on Cin + Cout).
    // The packed GEMM (``Convolution/pointwise(_:packed:activation:into:skippingZeroChannels:threads:)``) is checked
    // on the same cases plus MobileNet's shapes: partial 8-pixel tiles, Cout off the panel width
    // (one-vector last panels, partial lanes), several column chunks (384 input channels: 80
    // output channels a chunk with AVX2; 115 ends in a partial chunk and a one-vector panel),
    // into a NaN-filled output so every element must be written.
    @Test(arguments: [
        (1, 1, 1, 1), (1, 1, 3, 5), (7, 5, 17, 33), (13, 11, 48, 96), (9, 9, 64, 24),
        (40, 40, 8, 8), (65, 33, 4, 7), (3, 2, 130, 17),
        (3, 3, 24, 48), (5, 7, 384, 115), (2, 9, 96, 192), (1, 3, 7, 40), (3, 5, 384, 384),
    ] as [(Int, Int, Int, Int)])
    func matchesReference(_ s: (Int, Int, Int, Int)) throws {
        var rng = SeededGenerator(seed: UInt64(s.0 * 1000 + s.1 * 100 + s.2 * 10 + s.3))
        let x = randomTensor([s.0, s.1, s.2], &rng, in: -2...2)
        let w = randomTensor([1, 1, s.2, s.3], &rng)
        let b = randomTensor([s.3], &rng)
        for activation in allActivations {
            for bias in [b, nil] as [Tensor?] {
                let want = try NaiveKernels.convolution(x, weights: w, bias: bias, stride: 1, dilation: 1,
                                                     padding: .same, activation: activation)
                for threads in [1, 2, 3] {
                    let got = try Convolution.pointwise(x, weights: w, bias: bias, activation: activation, threads: threads)
                    expectClose(got, want, "pointwise \(s) \(activation) bias=\(bias != nil) threads=\(threads)")
                }
                for (kernel, isa) in gemmVariants {  // every build runs every GEMM the CPU has
                    let packed = try PackedPointwiseWeights(weights: w, bias: bias, kernel: kernel, isa: isa)
                    for threads in [1, 2, 3] {
                        let gotPacked = try Tensor(shape: want.shape, values: Array(repeating: .nan, count: want.count))
                        try Convolution.pointwise(x, packed: packed, activation: activation, into: gotPacked, threads: threads)
                        expectClose(gotPacked, want, "\(kernel) \(isa) pointwise \(s) \(activation) bias=\(bias != nil) threads=\(threads)")
                    }
                }
            }
        }
    }

    @Test func acceptsMatrixWeightsAndRowBands() throws {
        var rng = SeededGenerator(seed: 7)
        let x = randomTensor([10, 6, 12], &rng), w = randomTensor([12, 20], &rng), b = randomTensor([20], &rng)
        let want = try NaiveKernels.convolution(x, weights: try w.reshaped([1, 1, 12, 20]), bias: b,
                                             stride: 1, dilation: 1, padding: .same, activation: .relu6)
        // Band by band into slices of one preallocated output, as a fused network would.
        let out = try Tensor(zeros: [10, 6, 20])
        for band in [0..<3, 3..<4, 4..<10] {
            try Convolution.pointwise(try x.slice(band), weights: w, bias: b, activation: .relu6, into: try out.slice(band))
        }
        expectClose(out, want, "pointwise banded")
    }

    @Test func rejectsBadShapes() throws {
        let x = try Tensor(zeros: [4, 4, 8])
        #expect(throws: TensorError.self) { try Convolution.pointwise(x, weights: try Tensor(zeros: [1, 1, 7, 3]), bias: nil) }
        #expect(throws: TensorError.self) { try Convolution.pointwise(x, weights: try Tensor(zeros: [3, 3, 8, 3]), bias: nil) }
        #expect(throws: TensorError.self) {
            try Convolution.pointwise(x, weights: try Tensor(zeros: [1, 1, 8, 3]), bias: try Tensor(zeros: [4]))
        }
        #expect(throws: TensorError.self) {
            try Convolution.pointwise(x, weights: try Tensor(zeros: [1, 1, 8, 3]), bias: nil, into: try Tensor(zeros: [4, 5, 3]))
        }
        #expect(throws: TensorError.self) { try Convolution.pointwise(try Tensor(zeros: [16, 8]), weights: try Tensor(zeros: [8, 3]), bias: nil) }
        // In place would read overwritten inputs.
        #expect(throws: TensorError.self) {
            try Convolution.pointwise(x, weights: try Tensor(zeros: [1, 1, 8, 8]), bias: nil, into: x)
        }
        #expect(throws: TensorError.self) { try Tensor(zeros: [4, 0, 8]) }
    }
}

@Suite struct GeneralConvolutionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var h, w, cin, cout, k, stride, dilation: Int
        var padding: Padding = .same
        var testDescription: String { "\(h)x\(w)x\(cin)->\(cout) k\(k) s\(stride) d\(dilation) \(padding)" }
    }

    @Test(arguments: [
        Case(h: 17, w: 17, cin: 3, cout: 24, k: 3, stride: 2, dilation: 1),   // PoseNet block 0, small
        Case(h: 16, w: 16, cin: 3, cout: 24, k: 3, stride: 2, dilation: 1),   // even size: pad after only
        Case(h: 1, w: 1, cin: 5, cout: 3, k: 3, stride: 1, dilation: 1),      // one pixel
        Case(h: 1, w: 1, cin: 2, cout: 3, k: 3, stride: 2, dilation: 2),
        Case(h: 2, w: 3, cin: 4, cout: 6, k: 5, stride: 1, dilation: 1),      // kernel larger than input
        Case(h: 9, w: 7, cin: 6, cout: 10, k: 3, stride: 2, dilation: 2),     // stride 2 with dilation
        Case(h: 12, w: 13, cin: 7, cout: 9, k: 3, stride: 1, dilation: 4),
        Case(h: 11, w: 10, cin: 5, cout: 17, k: 2, stride: 2, dilation: 1),   // even kernel
        Case(h: 8, w: 9, cin: 3, cout: 5, k: 1, stride: 2, dilation: 1),      // strided 1x1 via im2col
        Case(h: 6, w: 7, cin: 33, cout: 19, k: 1, stride: 1, dilation: 1),    // 1x1 goes to pointwise
        Case(h: 40, w: 37, cin: 3, cout: 8, k: 3, stride: 1, dilation: 1),    // many bands
        // Reductions / channel counts past Convolution.smallGEMMLimit take the sgemm path.
        Case(h: 10, w: 9, cin: 16, cout: 40, k: 3, stride: 2, dilation: 1),   // K 144
        Case(h: 7, w: 6, cin: 4, cout: 70, k: 3, stride: 1, dilation: 2),     // N 70
        Case(h: 30, w: 31, cin: 8, cout: 13, k: 3, stride: 1, dilation: 1),   // K 72, many bands
        Case(h: 9, w: 8, cin: 4, cout: 5, k: 3, stride: 2, dilation: 1, padding: .valid),
        Case(h: 10, w: 11, cin: 3, cout: 4, k: 3, stride: 1, dilation: 2, padding: .valid),
        Case(h: 3, w: 3, cin: 2, cout: 2, k: 3, stride: 1, dilation: 1, padding: .valid),
    ])
    func matchesReference(_ c: Case) throws {
        var rng = SeededGenerator(seed: UInt64(c.h * 7919 + c.w * 31 + c.cin * 7 + c.k + c.stride * 3 + c.dilation))
        let x = randomTensor([c.h, c.w, c.cin], &rng)
        let w = randomTensor([c.k, c.k, c.cin, c.cout], &rng)
        let b = randomTensor([c.cout], &rng)
        let workspace = ConvolutionWorkspace()
        for activation in allActivations {
            let want = try NaiveKernels.convolution(x, weights: w, bias: b, stride: c.stride, dilation: c.dilation,
                                                 padding: c.padding, activation: activation)
            for threads in [1, 2] {
                let got = try Convolution.general(x, weights: w, bias: b, stride: c.stride, dilation: c.dilation,
                                                  padding: c.padding, activation: activation,
                                                  workspace: workspace, threads: threads)
                expectClose(got, want, "\(c.testDescription) \(activation) threads=\(threads)")
            }
        }
    }

    @Test func routesToBothGEMMPaths() {
        // The shape list above must exercise the small-GEMM kernel and sgemm alike.
        #expect(3 * 3 * 3 <= Convolution.smallGEMMLimit && 24 <= Convolution.smallGEMMLimit)
        #expect(3 * 3 * 16 > Convolution.smallGEMMLimit && 70 > Convolution.smallGEMMLimit)
    }

    @Test func workspaceIsReusedWithoutGrowing() throws {
        var rng = SeededGenerator(seed: 3)
        let x = randomTensor([33, 33, 3], &rng), w = randomTensor([3, 3, 3, 24], &rng)
        let g = try ConvolutionGeometry(inputHeight: 33, inputWidth: 33, kernelHeight: 3, kernelWidth: 3, stride: 2)
        let workspace = ConvolutionWorkspace()
        workspace.reserve(for: g, inputChannels: 3, threads: 2)
        let reserved = workspace.capacity
        #expect(reserved > 0)
        let out = try Tensor(zeros: [17, 17, 24])
        for _ in 0..<3 {
            try Convolution.general(x, weights: w, bias: nil, stride: 2, into: out, workspace: workspace, threads: 2)
        }
        #expect(workspace.capacity == reserved)
        let want = try NaiveKernels.convolution(x, weights: w, bias: nil, stride: 2, dilation: 1, padding: .same, activation: .none)
        expectClose(out, want, "reused workspace")
    }

    @Test func rejectsBadShapes() throws {
        let x = try Tensor(zeros: [5, 5, 3])
        #expect(throws: TensorError.self) { try Convolution.general(x, weights: try Tensor(zeros: [3, 3, 4, 2]), bias: nil) }
        #expect(throws: TensorError.self) { try Convolution.general(x, weights: try Tensor(zeros: [3, 3, 3]), bias: nil) }
        #expect(throws: TensorError.self) { try Convolution.general(x, weights: try Tensor(zeros: [3, 3, 3, 2]), bias: nil, stride: 0) }
        #expect(throws: TensorError.self) { try Convolution.general(x, weights: try Tensor(zeros: [3, 3, 3, 2]), bias: nil, dilation: -1) }
        #expect(throws: TensorError.self) {
            try Convolution.general(x, weights: try Tensor(zeros: [7, 7, 3, 2]), bias: nil, padding: .valid)
        }
        #expect(throws: TensorError.self) {
            try Convolution.general(x, weights: try Tensor(zeros: [3, 3, 3, 2]), bias: nil, stride: 2, into: try Tensor(zeros: [5, 5, 2]))
        }
    }
}
