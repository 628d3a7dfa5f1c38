import Foundation
import Testing
import TestSupport
@testable import Tensor

/// The kernels of Create ML's layers in a graph (transpose, slice, scale-shift, softmax along an
/// axis, an activation alone, a convolution with different strides along the two axes) against
/// direct loops written from their definitions.
@Suite struct AxisKernelTests {
    /// Row-major strides of `shape`.
    static func strides(_ shape: [Int]) -> [Int] {
        var s = [Int](repeating: 1, count: shape.count)
        for axis in stride(from: shape.count - 2, through: 0, by: -1) { s[axis] = s[axis + 1] * shape[axis + 1] }
        return s
    }

    /// The multi-index of flat position `flat` in `shape`.
    static func index(_ flat: Int, _ shape: [Int]) -> [Int] {
        let s = strides(shape)
        return shape.indices.map { flat / s[$0] % shape[$0] }
    }

    @Test(arguments: [
        ([2, 3], [1, 0]), ([1, 24, 64, 18], [0, 3, 2, 1]), ([3, 18, 45], [1, 2, 0]), ([1, 3, 18, 64], [0, 1, 3, 2]),
        ([64, 1, 3, 18], [1, 2, 3, 0]), ([2, 1, 3, 1, 4], [4, 3, 2, 1, 0]), ([5, 7], [0, 1]), ([130, 70], [1, 0]),
        ([2, 3, 4, 5], [2, 0, 3, 1]), ([1, 1], [1, 0]),
    ] as [([Int], [Int])])
    func transposeIsNumPys(_ shape: [Int], _ permutation: [Int]) throws {
        var rng = SeededGenerator(seed: UInt64(shape.reduce(7, *)))
        let x = randomTensor(shape, &rng)
        let outShape = permutation.map { shape[$0] }
        let out = try Tensor(shape: outShape, values: [Float](repeating: .nan, count: x.count))
        try Rearrangement.transpose(x, permutation: permutation, into: out)
        let xs = x.scalars, os = out.scalars, inStrides = Self.strides(shape)
        for flat in 0..<os.count {
            let i = Self.index(flat, outShape)
            // out[i] = x[j] with j[permutation[a]] = i[a]
            var from = 0
            for a in 0..<i.count { from += i[a] * inStrides[permutation[a]] }
            guard os[flat] == xs[from] else {
                Issue.record("\(shape) \(permutation): output \(i) is \(os[flat]), want \(xs[from])")
                return
            }
        }
    }

    @Test func reducedTransposeMergesAdjacentAxes() {
        // [1, C, T, J] → [1, J, T, C]: the 3-D reversal.
        #expect(Rearrangement.reducedTranspose(shape: [1, 8, 64, 18], permutation: [0, 3, 2, 1]) == ([8, 64, 18], [2, 1, 0]))
        // [T, J, 3, C'] → [T, C', 3, J] keeps T outermost: still 4-D.
        #expect(Rearrangement.reducedTranspose(shape: [64, 18, 3, 8], permutation: [0, 3, 2, 1]) == ([64, 18, 3, 8], [0, 3, 2, 1]))
        // Swapping two outer blocks of a matrix: [A, B, C] → [B, A, C] stays, C contiguous.
        #expect(Rearrangement.reducedTranspose(shape: [2, 3, 4], permutation: [1, 0, 2]) == ([2, 3, 4], [1, 0, 2]))
        #expect(Rearrangement.reducedTranspose(shape: [2, 3, 4], permutation: [0, 1, 2]) == ([24], [0]))
        #expect(Rearrangement.reducedTranspose(shape: [1, 1], permutation: [1, 0]) == ([1], [0]))
    }

    @Test func sliceTakesOneRangeOfOneAxis() throws {
        let counting: [Float] = (0..<36).map { (i: Int) -> Float in Float(i) }
        let x = try Tensor(shape: [2, 6, 3], values: counting)
        let out = try Tensor(zeros: [2, 2, 3])
        try Rearrangement.slice(x, axis: 1, start: 4, into: out)
        #expect(out.scalars == [12, 13, 14, 15, 16, 17, 30, 31, 32, 33, 34, 35])
        let last = try Tensor(zeros: [2, 6, 1])
        try Rearrangement.slice(x, axis: 2, start: 2, into: last)
        let everyThird: [Float] = (0..<12).map { (i: Int) -> Float in Float(i * 3 + 2) }
        #expect(last.scalars == everyThird)
        #expect(throws: TensorError.self) { try Rearrangement.slice(x, axis: 1, start: 5, into: out) }
        #expect(throws: TensorError.self) { try Rearrangement.slice(x, axis: 3, start: 0, into: out) }
    }

    @Test(arguments: [([4, 5, 19], 2), ([1, 54, 64, 1], 1), ([3, 7], 0), ([2, 3, 33], 2), ([6, 1], 1)] as [([Int], Int)])
    func scaleShiftIsOneMultiplyAddPerElement(_ shape: [Int], _ axis: Int) throws {
        var rng = SeededGenerator(seed: UInt64(shape.reduce(3, *) + axis))
        let x = randomTensor(shape, &rng, in: -3...3)
        let scale = randomTensor([shape[axis]], &rng), shift = randomTensor([shape[axis]], &rng)
        let inner = shape[(axis + 1)...].reduce(1, *)
        for activation in allActivations {
            for threads in [1, 2] {
                let out = try Tensor(shape: shape, values: [Float](repeating: .nan, count: x.count))
                try Elementwise.scaleShift(x, scale: scale, shift: shift, axis: axis, activation: activation, into: out, threads: threads)
                let want = x.scalars.enumerated().map { flat, v -> Float in
                    let c = flat / inner % shape[axis]
                    let product = v * scale.scalars[c]
                    return activation.apply(product + shift.scalars[c])
                }
                #expect(out.scalars == want, "\(shape) axis \(axis) \(activation)")
            }
        }
        #expect(throws: TensorError.self) {
            try Elementwise.scaleShift(x, scale: try Tensor(zeros: [shape[axis] + 1]), shift: shift, axis: axis, into: x)
        }
    }

    @Test func anActivationAloneClamps() throws {
        let ramp: [Float] = (0..<11).map { (i: Int) -> Float in Float(i) - 5 }
        let x = try Tensor(shape: [11], values: ramp)
        let out = try Tensor(zeros: [11])
        try Elementwise.activation(.relu, x, into: out)
        let relu: [Float] = ramp.map { max($0, 0) }
        #expect(out.scalars == relu)
        let up: [Float] = (0..<11).map { (i: Int) -> Float in Float(i) }
        try Elementwise.activation(.relu6, try Tensor(shape: [11], values: up), into: out)
        let relu6: [Float] = up.map { min($0, 6) }
        #expect(out.scalars == relu6)
    }

    @Test(arguments: [([2, 4, 3], 1), ([5, 7], 1), ([3, 1, 4], 0), ([1, 4], 1)] as [([Int], Int)])
    func softmaxAlongAnAxis(_ shape: [Int], _ axis: Int) throws {
        var rng = SeededGenerator(seed: UInt64(shape.reduce(11, *)))
        let x = randomTensor(shape, &rng, in: -20...20)
        let out = try Tensor(zeros: shape)
        try TensorNonlinearities.softmax(x, axis: axis, into: out)
        let inner = shape[(axis + 1)...].reduce(1, *), size = shape[axis]
        for flat in 0..<x.count {
            let base = flat / (size * inner) * size * inner + flat % inner
            let line = (0..<size).map { Double(x.scalars[base + $0 * inner]) }
            let peak = line.max()!
            let want = Foundation.exp(Double(x.scalars[flat]) - peak) / line.map { Foundation.exp($0 - peak) }.reduce(0, +)
            #expect(abs(Double(out.scalars[flat]) - want) <= 1e-7 * max(1, want), "\(shape) axis \(axis) at \(flat)")
        }
        // Large logits do not overflow.
        let big = try Tensor(shape: [3], values: [1e30, 1e30, -1e30])
        try TensorNonlinearities.softmax(big, axis: 0, into: big)
        #expect(big.scalars == [0.5, 0.5, 0])
    }

    /// A convolution with different strides down and across (a Create ML temporal convolution:
    /// 2 along time, 1 across joints), on the packed general convolution, against the definition.
    @Test(arguments: [(9, 1, 2, 1, Padding.valid), (9, 1, 2, 1, .same), (3, 3, 1, 2, .same), (1, 1, 2, 1, .valid), (5, 2, 3, 2, .valid)])
    func differentStridesDownAndAcross(kh: Int, kw: Int, sy: Int, sx: Int, padding: Padding) throws {
        var rng = SeededGenerator(seed: UInt64(kh * 100 + kw * 10 + sy + sx))
        let (h, w, cin, cout) = (24, 18, 20, 33)
        let x = randomTensor([h, w, cin], &rng), weights = randomTensor([kh, kw, cin, cout], &rng), bias = randomTensor([cout], &rng)
        let g = try ConvolutionGeometry(inputHeight: h, inputWidth: w, kernelHeight: kh, kernelWidth: kw, stride: sy, strideWidth: sx, padding: padding)
        var want = [Float](repeating: 0, count: g.outputHeight * g.outputWidth * cout)
        for oy in 0..<g.outputHeight {
            for ox in 0..<g.outputWidth {
                for co in 0..<cout {
                    var sum = bias.scalars[co]
                    for ky in 0..<kh {
                        for kx in 0..<kw {
                            let iy = oy * sy - g.padTop + ky, ix = ox * sx - g.padLeft + kx
                            guard (0..<h).contains(iy), (0..<w).contains(ix) else { continue }
                            for ci in 0..<cin {
                                sum += x.scalars[(iy * w + ix) * cin + ci] * weights.scalars[((ky * kw + kx) * cin + ci) * cout + co]
                            }
                        }
                    }
                    want[(oy * g.outputWidth + ox) * cout + co] = max(sum, 0)
                }
            }
        }
        let expected = try Tensor(shape: [g.outputHeight, g.outputWidth, cout], values: want)
        for (kernel, isa) in gemmVariants {
            let packed = try PackedPointwiseWeights(weights: weights.reshaped([kh * kw * cin, cout]), bias: bias, kernel: kernel, isa: isa)
            for threads in [1, 2] {
                let out = try Tensor(shape: expected.shape, values: [Float](repeating: .nan, count: expected.count))
                try Convolution.general(x, packed: packed, kernelHeight: kh, kernelWidth: kw, stride: sy, strideWidth: sx,
                                        padding: padding, epilogue: Epilogue(activation: .relu), into: out, threads: threads)
                expectClose(out, expected, "\(kh)x\(kw) stride \(sy)x\(sx) \(padding) \(kernel) \(isa) threads \(threads)")
            }
        }
    }
}
