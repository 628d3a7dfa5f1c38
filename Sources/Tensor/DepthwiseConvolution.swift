extension Convolution {
    /// Depthwise 3×3 convolution (one filter per channel), stride 1 or 2, any dilation ≥ 1,
    /// SAME or VALID padding, with fused bias + activation.
    ///
    /// NHWC keeps a pixel's channels contiguous, so the kernel walks output pixels and, for each,
    /// accumulates its (up to) 9 in-bounds taps over the channels with `SIMD16<Float>` vectors
    /// (then one `SIMD8`, then scalars for the channel tail), starting from the bias and
    /// clamping once at the end: every output value is written exactly once, already activated.
    /// Output rows are split over `threads` cores. The kernel is memory-bound; see
    /// `posekit bench kernels` for its GB/s.
    ///
    /// `outputRows` computes only that band of output rows (into an `output` of shape
    /// `[outputRows.count, outW, C]`), so a network can produce a depthwise band and feed it to
    /// ``pointwise(_:weights:bias:activation:into:threads:)`` while it is still in cache.
    ///
    /// - Parameters:
    ///   - input: `[H, W, C]`.
    ///   - weights: `[3, 3, C]` (or `[3, 3, C, 1]`, TF's depthwise HWIO with multiplier 1).
    ///   - bias: `[C]`, or nil.
    ///   - stride: 1 or 2 (both axes).
    ///   - dilation: ≥ 1 (both axes; PoseNet uses 1, 2 and 4).
    ///   - output: `[outH, outW, C]`, or `[outputRows.count, outW, C]` when `outputRows` is given;
    ///     must not overlap `input`.
    ///   - outputRows: the band of output rows to compute; nil for all.
    /// - Throws: ``TensorError`` on shape mismatches, unsupported kernel sizes or strides.
    public static func depthwise3x3(
        _ input: Tensor, weights: Tensor, bias: Tensor?, stride: Int = 1, dilation: Int = 1,
        padding: Padding = .same, activation: Activation = .none, into output: Tensor,
        outputRows: Range<Int>? = nil, threads: Int = Parallelism.defaultThreads
    ) throws {
        try input.requireRank(3, "depthwise input")
        let (h, w, c) = (input.shape[0], input.shape[1], input.shape[2])
        guard weights.shape == [3, 3, c] || weights.shape == [3, 3, c, 1] else {
            if weights.rank >= 2 && (weights.shape[0] != 3 || weights.shape[1] != 3) {
                throw TensorError.unsupported("depthwise kernel \(weights.shape[0])x\(weights.shape[1]); only 3x3 is implemented")
            }
            throw TensorError.shapeMismatch("depthwise weights must be [3, 3, \(c)] for input \(input.shape), got \(weights.shape)")
        }
        guard stride == 1 || stride == 2 else {
            throw TensorError.unsupported("depthwise stride \(stride); only 1 and 2 are implemented")
        }
        let g = try ConvolutionGeometry(
            inputHeight: h, inputWidth: w, kernelHeight: 3, kernelWidth: 3,
            stride: stride, dilation: dilation, padding: padding)
        let rows = outputRows ?? 0..<g.outputHeight
        guard !rows.isEmpty, rows.lowerBound >= 0, rows.upperBound <= g.outputHeight else {
            throw TensorError.shapeMismatch("depthwise output rows \(rows) outside 0..<\(g.outputHeight)")
        }
        try Tensor.requireBias(bias, channels: c)
        try output.requireShape([rows.count, g.outputWidth, c], "depthwise output")
        try output.requireDisjoint(from: input, "depthwise output")

        let (low, high) = activation.bounds
        let workers = max(1, min(threads, rows.count))
        withExtendedLifetime((input, weights, bias, output)) {
            let src = input.basePointer, wts = weights.basePointer
            let biasPointer = bias?.basePointer, dst = output.mutableBasePointer
            Parallelism.forEachBand(workers) { worker in
                let band = Parallelism.bandRange(worker, of: workers, count: rows.count)
                depthwiseRows(src, wts, biasPointer, g, c, low, high,
                              outputRows: (rows.lowerBound + band.lowerBound)..<(rows.lowerBound + band.upperBound),
                              into: dst + band.lowerBound * g.outputWidth * c)
            }
        }
    }

    /// Allocating form of ``depthwise3x3(_:weights:bias:stride:dilation:padding:activation:into:outputRows:threads:)``
    /// (all output rows).
    public static func depthwise3x3(
        _ input: Tensor, weights: Tensor, bias: Tensor?, stride: Int = 1, dilation: Int = 1,
        padding: Padding = .same, activation: Activation = .none, threads: Int = Parallelism.defaultThreads
    ) throws -> Tensor {
        try input.requireRank(3, "depthwise input")
        let g = try ConvolutionGeometry(
            inputHeight: input.shape[0], inputWidth: input.shape[1], kernelHeight: 3, kernelWidth: 3,
            stride: stride, dilation: dilation, padding: padding)
        let output = try Tensor(zeros: [g.outputHeight, g.outputWidth, input.shape[2]])
        try depthwise3x3(input, weights: weights, bias: bias, stride: stride, dilation: dilation,
                         padding: padding, activation: activation, into: output, threads: threads)
        return output
    }

    /// Output rows `outputRows` of the depthwise convolution, written contiguously from `dst`.
    static func depthwiseRows(
        _ src: UnsafePointer<Float>, _ wts: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
        _ g: ConvolutionGeometry, _ c: Int, _ low: Float, _ high: Float,
        outputRows: Range<Int>, into dst: UnsafeMutablePointer<Float>
    ) {
        // Per pixel, the in-bounds taps as (input offset, weight offset) pairs: at most 9.
        withUnsafeTemporaryAllocation(of: (Int, Int).self, capacity: 9) { taps in
            var out = dst
            for oy in outputRows {
                for ox in 0..<g.outputWidth {
                    var n = 0
                    for ky in 0..<3 {
                        let iy = oy * g.stride - g.padTop + ky * g.dilation
                        guard iy >= 0 && iy < g.inputHeight else { continue }
                        for kx in 0..<3 {
                            let ix = ox * g.stride - g.padLeft + kx * g.dilation
                            guard ix >= 0 && ix < g.inputWidth else { continue }
                            taps[n] = ((iy * g.inputWidth + ix) * c, (ky * 3 + kx) * c)
                            n += 1
                        }
                    }
                    depthwisePixel(src, wts, bias, UnsafePointer(taps.baseAddress!), n, c, low, high, out)
                    out += c
                }
            }
        }
    }

    /// One output pixel: `clamp(bias + Σ taps input·weight, low, high)` over all channels.
    @inline(__always)
    static func depthwisePixel(
        _ src: UnsafePointer<Float>, _ wts: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
        _ taps: UnsafePointer<(Int, Int)>, _ n: Int, _ c: Int, _ low: Float, _ high: Float,
        _ out: UnsafeMutablePointer<Float>
    ) {
        var ch = 0
        while ch + 16 <= c {
            depthwiseVector(SIMD16<Float>.self, src, wts, bias, taps, n, ch, low, high, out)
            ch += 16
        }
        if ch + 8 <= c {
            depthwiseVector(SIMD8<Float>.self, src, wts, bias, taps, n, ch, low, high, out)
            ch += 8
        }
        while ch < c {
            var acc: Float = bias?[ch] ?? 0
            for t in 0..<n { acc += src[taps[t].0 + ch] * wts[taps[t].1 + ch] }
            out[ch] = min(max(acc, low), high)
            ch += 1
        }
    }

    @inline(__always)
    static func depthwiseVector<V: SIMD>(
        _: V.Type, _ src: UnsafePointer<Float>, _ wts: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
        _ taps: UnsafePointer<(Int, Int)>, _ n: Int, _ ch: Int, _ low: Float, _ high: Float,
        _ out: UnsafeMutablePointer<Float>
    ) where V.Scalar == Float {
        var acc = bias.map { UnsafeRawPointer($0 + ch).loadUnaligned(as: V.self) } ?? V()
        for t in 0..<n {
            let x = UnsafeRawPointer(src + taps[t].0 + ch).loadUnaligned(as: V.self)
            let k = UnsafeRawPointer(wts + taps[t].1 + ch).loadUnaligned(as: V.self)
            acc += x * k  // not addProduct: that is a true fma, a libm call per lane without FMA codegen
        }
        acc = acc.clampedLanes(low, high)
        UnsafeMutableRawPointer(out + ch).storeBytes(of: acc, as: V.self)
    }
}
