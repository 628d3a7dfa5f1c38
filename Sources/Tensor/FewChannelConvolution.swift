extension Convolution {
    /// k×k convolution for layers with **few output channels** (a segmentation head's 3×3 to one
    /// channel), computed directly with explicit zero padding and fused bias + activation.
    ///
    /// The GEMM kernels vectorise over output channels, so one output channel uses one lane in 16
    /// of the packed GEMM. Here each output value is a dot product instead: a window row is
    /// `kW·Cin` contiguous input floats (NHWC), multiplied with the matching contiguous weights of
    /// `weights` in **OHWI** order (`[Cout, kH, kW, Cin]`), 16 lanes at a time, one horizontal sum
    /// per output value. Taps outside the input are left out (zero padding); the output's shape
    /// says how many rows and columns there are. Output rows are split over `threads` cores.
    ///
    /// - Parameters:
    ///   - input: `[H, W, Cin]`.
    ///   - weights: `[Cout, kH, kW, Cin]` (the argument label `weightsOHWI:` names the layout).
    ///   - bias: `[Cout]`, or nil.
    ///   - stride: ≥ 1 (both axes).
    ///   - padTop: zero rows above the input, in `0..<kH`.
    ///   - padLeft: zero columns left of the input, in `0..<kW`.
    ///   - activation: applied after the bias.
    ///   - output: `[outH, outW, Cout]`; must not overlap `input`.
    ///   - threads: how many cores share the output rows.
    /// - Throws: ``TensorError`` when the shapes or the padding do not fit.
    public static func fewChannels(
        _ input: Tensor, weightsOHWI weights: Tensor, bias: Tensor?, stride: Int, padTop: Int, padLeft: Int,
        activation: Activation = .none, into output: Tensor, threads: Int = Parallelism.defaultThreads
    ) throws {
        try input.requireRank(3, "convolution input")
        try weights.requireRank(4, "convolution weights (OHWI)")
        try output.requireRank(3, "convolution output")
        let (h, w, cin) = (input.shape[0], input.shape[1], input.shape[2])
        let (cout, kh, kw) = (weights.shape[0], weights.shape[1], weights.shape[2])
        let (oh, ow) = (output.shape[0], output.shape[1])
        guard weights.shape[3] == cin, output.shape[2] == cout, stride >= 1, (0..<kh).contains(padTop), (0..<kw).contains(padLeft),
              (oh - 1) * stride - padTop < h, (ow - 1) * stride - padLeft < w else {
            throw TensorError.shapeMismatch("convolution of \(input.shape) with OHWI weights \(weights.shape), stride \(stride), padding top \(padTop) left \(padLeft) into \(output.shape)")
        }
        try Tensor.requireBias(bias, channels: cout)
        try output.requireDisjoint(from: input, "convolution output")
        let (low, high) = activation.bounds
        let workers = max(1, min(threads, oh))
        withExtendedLifetime((input, weights, bias, output)) {
            let src = input.basePointer, wts = weights.basePointer, biasPointer = bias?.basePointer
            let dst = output.mutableBasePointer
            Parallelism.forEachBand(workers) { worker in
                for oy in Parallelism.bandRange(worker, of: workers, count: oh) {
                    let iy0 = oy * stride - padTop
                    let rows = max(0, -iy0)..<min(kh, h - iy0)
                    for ox in 0..<ow {
                        let ix0 = ox * stride - padLeft
                        let columns = max(0, -ix0)..<min(kw, w - ix0)
                        let length = columns.count * cin
                        let window = src + (iy0 * w + ix0 + columns.lowerBound) * cin
                        for co in 0..<cout {
                            let filter = wts + (co * kh * kw + columns.lowerBound) * cin
                            var sum = biasPointer?[co] ?? 0
                            sum += windowDot(window, rowStride: w * cin, filter, filterRowStride: kw * cin,
                                             rows: rows, length: length)
                            dst[(oy * ow + ox) * cout + co] = sum < low ? low : (sum > high ? high : sum)
                        }
                    }
                }
            }
        }
    }

    /// `Σ over rows ky of Σ_{i < length} a[ky·rowStride + i] · b[ky·filterRowStride + i]`, 16
    /// lanes at a time with one horizontal sum at the end.
    @inline(__always)
    static func windowDot(
        _ a: UnsafePointer<Float>, rowStride: Int, _ b: UnsafePointer<Float>, filterRowStride: Int,
        rows: Range<Int>, length: Int
    ) -> Float {
        typealias V = SIMD16<Float>
        typealias H = SIMD8<Float>
        var wide = V(), half = H(), scalar: Float = 0
        for ky in rows {
            let x = a + ky * rowStride, y = b + ky * filterRowStride
            var i = 0
            while i + 16 <= length {
                wide.multiplyAdd(UnsafeRawPointer(x + i).loadUnaligned(as: V.self), UnsafeRawPointer(y + i).loadUnaligned(as: V.self))
                i += 16
            }
            if i + 8 <= length {
                half.multiplyAdd(UnsafeRawPointer(x + i).loadUnaligned(as: H.self), UnsafeRawPointer(y + i).loadUnaligned(as: H.self))
                i += 8
            }
            while i < length { scalar += x[i] * y[i]; i += 1 }
        }
        return wide.sum() + half.sum() + scalar
    }
}
