import Foundation
import Testing
@testable import ActionNet

/// Settings of the Core ML layers the two reference models do not use (their convolutions are k×1,
/// stride 1 across joints, no padding there), against direct loops written from the formulas.
struct CoreMLOperationTests {
    static func values(_ count: Int, seed: Int) -> [Float] {
        (0..<count).map { Float(($0 * 7919 + seed * 104_729) % 2003) / 1001.5 - 1 }
    }

    /// out[b, o, y, x] = bias[o] + Σ w[o, i, ky, kx] · in[b, i, y·sy + ky − top, x·sx + kx − left] (zero outside).
    @Test(arguments: [(3, 3, 2, 2, 1, 2, 1, 0), (2, 3, 1, 3, 0, 1, 2, 2), (1, 1, 2, 1, 1, 0, 0, 1), (1, 1, 1, 1, 0, 0, 0, 0)])
    func convolutionMatchesTheDefinition(kh: Int, kw: Int, sy: Int, sx: Int, top: Int, bottom: Int, left: Int, right: Int) throws {
        let (batch, cin, cout, h, w) = (2, 3, 4, 7, 6)
        let weights = Self.values(cout * cin * kh * kw, seed: 1), bias = Self.values(cout, seed: 2)
        let input = CoreMLArray(shape: [batch, cin, h, w], values: Self.values(batch * cin * h * w, seed: 3))
        let conv = try CoreMLConvolution(inputChannels: cin, outputChannels: cout, kernel: (kh, kw), stride: (sy, sx),
                                         padding: (top, bottom, left, right), oihw: weights, bias: bias)
        let out = try conv.run(input, layer: "test", threads: 1)
        let oh = (h + top + bottom - kh) / sy + 1, ow = (w + left + right - kw) / sx + 1
        #expect(out.shape == [batch, cout, oh, ow])
        var worst: Float = 0
        for b in 0..<batch {
            for o in 0..<cout {
                for y in 0..<oh {
                    for x in 0..<ow {
                        var sum = bias[o]
                        for i in 0..<cin {
                            for ky in 0..<kh {
                                for kx in 0..<kw {
                                    let iy = y * sy + ky - top, ix = x * sx + kx - left
                                    guard (0..<h).contains(iy), (0..<w).contains(ix) else { continue }
                                    sum += weights[((o * cin + i) * kh + ky) * kw + kx] * input.values[((b * cin + i) * h + iy) * w + ix]
                                }
                            }
                        }
                        worst = max(worst, abs(sum - out.values[((b * cout + o) * oh + y) * ow + x]))
                    }
                }
            }
        }
        #expect(worst < 1e-5)
    }

    /// Average pooling divides by the window inside the input (excludePadding) or by kH·kW; max ignores the padding.
    @Test func poolingMatchesTheDefinition() throws {
        let x = CoreMLArray(shape: [1, 1, 3, 3], values: [1, 2, 3, 4, 5, 6, 7, 8, 9])
        func pool(_ average: Bool, _ exclude: Bool) throws -> [Float] {
            try CoreMLPooling(average: average, global: false, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2,
                              padTop: 1, padBottom: 0, padLeft: 1, padRight: 0, excludePadding: exclude).run(x, layer: "p").values
        }
        #expect(try pool(true, true) == [1, 2.5, 5.5, 7])
        #expect(try pool(true, false) == [0.25, 1.25, 2.75, 7])
        #expect(try pool(false, false) == [1, 3, 7, 9])
    }

    @Test func layoutOperationsFollowNumPy() throws {
        let x = CoreMLArray(shape: [2, 3], values: [0, 1, 2, 3, 4, 5])
        #expect(try CoreMLLayoutOps.transpose(x, axes: [1, 0], layer: "t").values == [0, 3, 1, 4, 2, 5])
        let parts = try CoreMLLayoutOps.split(x, axis: -1, count: 2, sizes: [1, 2], layer: "s")
        #expect(parts.map(\.values) == [[0, 3], [1, 2, 4, 5]])
        #expect(try CoreMLLayoutOps.concat(parts.reversed(), axis: 1, layer: "c").values == [1, 2, 0, 4, 5, 3])
        #expect(try CoreMLLayoutOps.gather(x, CoreMLArray(shape: [2], values: [2, -3]), axis: 1, layer: "g").values == [2, 0, 5, 3])
        #expect(try CoreMLLayoutOps.pad(x, top: 1, bottom: 0, left: 0, right: 1, value: 9, layer: "p").values == [9, 9, 9, 9, 0, 1, 2, 9, 3, 4, 5, 9])
        #expect(try CoreMLLayoutOps.reshape(x, to: [3, -1], layer: "r").shape == [3, 2])
        #expect(try CoreMLLayoutOps.expandDims(x, axes: [0, -1], layer: "e").shape == [1, 2, 3, 1])
        #expect(throws: CoreMLModelError.self) { try CoreMLLayoutOps.reshape(x, to: [4, -1], layer: "r") }
    }
}
