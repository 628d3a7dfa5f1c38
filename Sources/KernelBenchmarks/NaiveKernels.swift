import Tensor
import Foundation

/// Naive reference kernels: plain nested loops written straight from the definitions, sharing
/// no code with the optimized kernels (not even ``ConvolutionGeometry``). Tests compare every
/// kernel with these; `posekit bench kernels` reports speed-ups over them. Slow on purpose —
/// never use them on a hot path.
public enum NaiveKernels {
    /// TF SAME / VALID output size and leading padding along one axis, from the definition.
    static func axis(_ size: Int, kernel: Int, stride: Int, dilation: Int, padding: Padding) -> (out: Int, padBefore: Int) {
        let span = (kernel - 1) * dilation + 1
        switch padding {
        case .same:
            let out = Int((Double(size) / Double(stride)).rounded(.up))
            let total = max((out - 1) * stride + span - size, 0)
            return (out, total / 2)
        case .valid:
            return (Int((Double(size - span + 1) / Double(stride)).rounded(.up)), 0)
        }
    }

    /// Direct (grouped) convolution: input `[H, W, Cin]`, weights HWIO `[kH, kW, Cin / groups, Cout]`,
    /// optional bias, then the activation. Returns `[outH, outW, Cout]`. Output channel `co`
    /// belongs to group `co / (Cout / groups)` and sees only that group's input channels.
    public static func convolution(
        _ input: Tensor, weights: Tensor, bias: Tensor?, stride: Int, dilation: Int,
        padding: Padding, activation: Activation, groups: Int = 1
    ) throws -> Tensor {
        let (h, w, cin) = (input.shape[0], input.shape[1], input.shape[2])
        let (kh, kw, groupIn, cout) = (weights.shape[0], weights.shape[1], weights.shape[2], weights.shape[3])
        precondition(cin == groupIn * groups && cout % groups == 0, "NaiveKernels.convolution: channels do not split into \(groups) groups")
        let groupOut = cout / groups
        let (oh, top) = axis(h, kernel: kh, stride: stride, dilation: dilation, padding: padding)
        let (ow, left) = axis(w, kernel: kw, stride: stride, dilation: dilation, padding: padding)
        let x = input.scalars, k = weights.scalars, b = bias?.scalars
        var y = [Float](repeating: 0, count: oh * ow * cout)
        for oy in 0..<oh {
            for ox in 0..<ow {
                for co in 0..<cout {
                    let firstIn = (co / groupOut) * groupIn
                    var acc: Float = b?[co] ?? 0
                    for ky in 0..<kh {
                        for kx in 0..<kw {
                            let iy = oy * stride + ky * dilation - top
                            let ix = ox * stride + kx * dilation - left
                            if iy < 0 || iy >= h || ix < 0 || ix >= w { continue }
                            for ci in 0..<groupIn {
                                acc += x[(iy * w + ix) * cin + firstIn + ci] * k[((ky * kw + kx) * groupIn + ci) * cout + co]
                            }
                        }
                    }
                    y[(oy * ow + ox) * cout + co] = activation.apply(acc)
                }
            }
        }
        return try Tensor(shape: [oh, ow, cout], values: y)
    }

    /// Depthwise convolution with a `[kH, kW, C]` filter per channel, optional bias, activation:
    /// the grouped convolution with one group per channel (`[kH, kW, C]` is `[kH, kW, 1, C]`).
    public static func depthwise(
        _ input: Tensor, weights: Tensor, bias: Tensor?, stride: Int, dilation: Int,
        padding: Padding, activation: Activation
    ) throws -> Tensor {
        let c = input.shape[2]
        return try convolution(input, weights: try weights.reshaped([weights.shape[0], weights.shape[1], 1, c]),
                               bias: bias, stride: stride, dilation: dilation, padding: padding,
                               activation: activation, groups: c)
    }

    /// Elementwise logistic function, in Double.
    public static func sigmoid(_ input: Tensor) throws -> Tensor {
        try Tensor(shape: input.shape, values: input.scalars.map { Float(1 / (1 + Foundation.exp(-Double($0)))) })
    }

    /// Softmax over the last axis, in Double.
    public static func softmax(_ input: Tensor) throws -> Tensor {
        let n = input.shape.last!, x = input.scalars
        var y = [Float](repeating: 0, count: x.count)
        for r in 0..<(x.count / n) {
            let row = x[(r * n)..<(r * n + n)].map(Double.init)
            let m = row.max()!
            let e = row.map { Foundation.exp($0 - m) }
            let s = e.reduce(0, +)
            for i in 0..<n { y[r * n + i] = Float(e[i] / s) }
        }
        return try Tensor(shape: input.shape, values: y)
    }

    /// Bilinear resize with half-pixel centers (see ``Resize/bilinear(_:into:threads:)``), in Double.
    public static func resizeBilinear(_ input: Tensor, height oh: Int, width ow: Int) throws -> Tensor {
        let (h, w, c) = (input.shape[0], input.shape[1], input.shape[2])
        let x = input.scalars
        var y = [Float](repeating: 0, count: oh * ow * c)
        func at(_ yy: Int, _ xx: Int, _ ch: Int) -> Double { Double(x[(yy * w + xx) * c + ch]) }
        for oy in 0..<oh {
            let sy = min(max((Double(oy) + 0.5) * Double(h) / Double(oh) - 0.5, 0), Double(h - 1))
            let y0 = Int(sy.rounded(.down)), y1 = min(y0 + 1, h - 1), fy = sy - Double(y0)
            for ox in 0..<ow {
                let sx = min(max((Double(ox) + 0.5) * Double(w) / Double(ow) - 0.5, 0), Double(w - 1))
                let x0 = Int(sx.rounded(.down)), x1 = min(x0 + 1, w - 1), fx = sx - Double(x0)
                for ch in 0..<c {
                    let v = (1 - fy) * ((1 - fx) * at(y0, x0, ch) + fx * at(y0, x1, ch))
                        + fy * ((1 - fx) * at(y1, x0, ch) + fx * at(y1, x1, ch))
                    y[(oy * ow + ox) * c + ch] = Float(v)
                }
            }
        }
        return try Tensor(shape: [oh, ow, c], values: y)
    }

    /// fp16 bit pattern → Float by decoding sign, exponent and mantissa by hand (no `Float16`).
    public static func halfToFloat(_ bits: UInt16) -> Float {
        let sign: Float = bits & 0x8000 != 0 ? -1 : 1
        let exponent = Int((bits >> 10) & 0x1F), mantissa = Int(bits & 0x3FF)
        switch exponent {
        case 0: return sign * Float(mantissa) * Float(pow(2.0, -24.0))
        case 31: return mantissa == 0 ? sign * .infinity : .nan
        default: return sign * Float(1024 + mantissa) * Float(pow(2.0, Double(exponent - 25)))
        }
    }
}
