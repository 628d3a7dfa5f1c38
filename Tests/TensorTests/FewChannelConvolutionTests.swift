import Testing
@testable import Tensor
import TestSupport

/// The few-output-channel convolution (a segmentation head's 3×3 to one channel) against naive
/// loops written here from its documentation, for each instruction set's copy the CPU runs:
/// explicit zero padding on every side, strides 1 and 2, windows larger than the image.
@Suite struct FewChannelConvolutionTests {
    /// out[oy, ox, co] = clamp(bias[co] + Σ in-image taps x[oy·s − top + ky, ox·s − left + kx, ci]·w[co, ky, kx, ci]).
    static func naive(_ x: Tensor, _ w: Tensor, _ bias: Tensor?, stride: Int, padTop: Int, padLeft: Int,
                      outH: Int, outW: Int, activation: Activation) -> [Float] {
        let (h, wd, cin) = (x.shape[0], x.shape[1], x.shape[2])
        let (cout, kh, kw) = (w.shape[0], w.shape[1], w.shape[2])
        let (xs, ws, bs) = (x.scalars, w.scalars, bias?.scalars)
        let (low, high) = activation.bounds
        var out = [Float](repeating: 0, count: outH * outW * cout)
        for oy in 0..<outH {
            for ox in 0..<outW {
                for co in 0..<cout {
                    var sum = Double(bs?[co] ?? 0)
                    for ky in 0..<kh {
                        for kx in 0..<kw {
                            let (iy, ix) = (oy * stride - padTop + ky, ox * stride - padLeft + kx)
                            guard (0..<h).contains(iy), (0..<wd).contains(ix) else { continue }
                            for ci in 0..<cin {
                                sum += Double(xs[(iy * wd + ix) * cin + ci]) * Double(ws[((co * kh + ky) * kw + kx) * cin + ci])
                            }
                        }
                    }
                    out[(oy * outW + ox) * cout + co] = min(max(Float(sum), low), high)
                }
            }
        }
        return out
    }

    @Test(arguments: KernelISA.supported)
    func matchesNaiveLoops(_ isa: KernelISA) throws {
        var rng = SeededGenerator(seed: 31)
        // (h, w, cin, cout, k, stride, padTop, padLeft): pose_landmark_full's mask head (8 → 1, 3×3),
        // channel counts around the vector widths, a window wider than the image.
        let cases: [(Int, Int, Int, Int, Int, Int, Int, Int)] = [
            (16, 16, 8, 1, 3, 1, 1, 1), (9, 13, 3, 2, 3, 2, 1, 0), (7, 6, 17, 4, 5, 1, 2, 2), (5, 4, 33, 1, 3, 2, 0, 1),
            (2, 3, 8, 1, 5, 1, 2, 4), (1, 1, 24, 3, 3, 1, 1, 1), (11, 10, 16, 1, 2, 1, 0, 0),
        ]
        for (h, w, cin, cout, k, stride, padTop, padLeft) in cases {
            let x = randomTensor([h, w, cin], &rng, in: -3...3)
            let weights = randomTensor([cout, k, k, cin], &rng)
            let bias = randomTensor([cout], &rng)
            // The output a TF SAME or VALID layer would have, or as many rows as the padding allows.
            let outH = (h + padTop - 1) / stride + 1, outW = (w + padLeft - 1) / stride + 1
            for activation in [Activation.none, .relu6] {
                for threads in [1, 2] {
                    let got = try Tensor(shape: [outH, outW, cout], values: Array(repeating: .nan, count: outH * outW * cout))
                    try Convolution.fewChannels(x, weightsOHWI: weights, bias: cout == 2 ? nil : bias, stride: stride, padTop: padTop,
                                                padLeft: padLeft, activation: activation, into: got, threads: threads, isa: isa)
                    let want = Self.naive(x, weights, cout == 2 ? nil : bias, stride: stride, padTop: padTop, padLeft: padLeft,
                                          outH: outH, outW: outW, activation: activation)
                    let worst = zip(got.scalars, want).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? 0
                    #expect(worst <= 1e-5, "\(isa) \(h)x\(w)x\(cin) -> \(cout) k\(k) s\(stride) pad \(padTop),\(padLeft) \(activation) t\(threads): \(worst)")
                }
            }
        }
    }
}
