extension Convolution {
    /// Depthwise 3×3 convolution (one filter per channel), stride 1 or 2, any dilation ≥ 1,
    /// SAME or VALID padding, with fused bias + activation.
    ///
    /// NHWC keeps a pixel's channels contiguous, so the kernel vectorises over channels. Interior
    /// pixels (window fully inside the image) are swept along each output row once per block of
    /// 8 channels (`SIMD8<Float>`) with that block's 9 weight
    /// vectors held in registers; channels past the last multiple of 8 use scalars. Border pixels accumulate only their in-bounds
    /// taps (`SIMD16`, `SIMD8`, then scalars). Accumulation starts from the bias and the
    /// activation is a clamp at the end: every output value is written exactly once, activated.
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
    ///
    /// Pixels whose 3×3 window lies inside the image (the interior, nearly all of them) take the
    /// fast path: for each block of 8 channels the 9 weight vectors and the bias are loaded into
    /// registers once and swept along the row, so each tap costs one load and one multiply-add.
    /// Border pixels gather their in-bounds taps into a small list and take the general path.
    ///
    /// Output columns in `skippingColumns` are not computed (their floats in `dst` are left as they are).
    static func depthwiseRows(
        _ src: UnsafePointer<Float>, _ wts: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
        _ g: ConvolutionGeometry, _ c: Int, _ low: Float, _ high: Float,
        outputRows: Range<Int>, skippingColumns: Range<Int> = 0..<0, into dst: UnsafeMutablePointer<Float>
    ) {
        let columns = SkippedRows(count: g.outputWidth, skipping: skippingColumns)
        let s = g.stride, d = g.dilation
        // Interior columns: ox·s − padLeft ≥ 0 and ox·s − padLeft + 2d ≤ W − 1.
        let interiorStart = min((g.padLeft + s - 1) / s, g.outputWidth)
        let lastFit = g.inputWidth - 1 - 2 * d + g.padLeft
        let interiorEnd = lastFit < 0 ? interiorStart : max(interiorStart, min(lastFit / s + 1, g.outputWidth))
        let rowStride = g.inputWidth * c
        // Per pixel, the in-bounds taps as (input offset, weight offset) pairs: at most 9.
        withUnsafeTemporaryAllocation(of: (Int, Int).self, capacity: 9) { taps in
            let tapList = UnsafePointer(taps.baseAddress!)
            func borderPixel(_ oy: Int, _ ox: Int, _ out: UnsafeMutablePointer<Float>) {
                var n = 0
                for ky in 0..<3 {
                    let iy = oy * s - g.padTop + ky * d
                    guard iy >= 0 && iy < g.inputHeight else { continue }
                    for kx in 0..<3 {
                        let ix = ox * s - g.padLeft + kx * d
                        guard ix >= 0 && ix < g.inputWidth else { continue }
                        taps[n] = ((iy * g.inputWidth + ix) * c, (ky * 3 + kx) * c)
                        n += 1
                    }
                }
                depthwisePixel(src, wts, bias, tapList, n, c, low, high, out)
            }
            for (r, oy) in outputRows.enumerated() {
                let outRow = dst + r * g.outputWidth * c
                let iy0 = oy * s - g.padTop
                guard iy0 >= 0 && iy0 + 2 * d < g.inputHeight else {
                    columns.forEachKept(0..<g.outputWidth) { for ox in $0 { borderPixel(oy, ox, outRow + ox * c) } }
                    continue
                }
                columns.forEachKept(0..<interiorStart) { for ox in $0 { borderPixel(oy, ox, outRow + ox * c) } }
                columns.forEachKept(interiorStart..<interiorEnd) { run in
                    // Top-left input pixel of the run's first window.
                    let window = src + iy0 * rowStride + (run.lowerBound * s - g.padLeft) * c
                    depthwiseInterior(window, rowStride: rowStride, wts, bias, c: c, stride: s, dilation: d,
                                      pixels: run.count, low, high, into: outRow + run.lowerBound * c)
                }
                columns.forEachKept(interiorEnd..<g.outputWidth) { for ox in $0 { borderPixel(oy, ox, outRow + ox * c) } }
            }
        }
    }

    /// `pixels` consecutive interior output pixels of one row; `window` is the top-left input
    /// pixel of the first one's 3×3 window.
    @inline(__always)
    static func depthwiseInterior(
        _ window: UnsafePointer<Float>, rowStride: Int, _ wts: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
        c: Int, stride s: Int, dilation d: Int, pixels: Int, _ low: Float, _ high: Float,
        into out: UnsafeMutablePointer<Float>
    ) {
        let dx = d * c, dy = d * rowStride, step = s * c
        var ch = 0
        // Stride and dilation become compile-time constants for PoseNet's combinations, so the
        // tap offsets inside a 4-pixel group are small multiples of `c` the compiler can share.
        @inline(__always) func blocks(_ s: Int, _ d: Int) {
            #if POSEKIT_AVX512
            depthwiseInteriorBlocks(SIMD16<Float>.self, window, rowStride: rowStride, stride: s, dilation: d, wts, bias,
                                    c: c, pixels: pixels, clamp: { $0.clampedLanes(low, high) }, into: out, channel: &ch)
            #endif
            depthwiseInteriorBlocks(SIMD8<Float>.self, window, rowStride: rowStride, stride: s, dilation: d, wts, bias,
                                    c: c, pixels: pixels, clamp: { $0.clampedLanes(low, high) }, into: out, channel: &ch)
        }
        switch (s, d) {
        case (1, 1): blocks(1, 1)
        case (2, 1): blocks(2, 1)
        case (1, 2): blocks(1, 2)
        case (1, 4): blocks(1, 4)
        default: blocks(s, d)
        }
        while ch < c {  // channel tail, one channel at a time
            let w = wts + ch
            let w0 = w[0], w1 = w[c], w2 = w[2 * c], w3 = w[3 * c], w4 = w[4 * c]
            let w5 = w[5 * c], w6 = w[6 * c], w7 = w[7 * c], w8 = w[8 * c]
            let b = bias?[ch] ?? 0
            var p = window + ch, o = out + ch
            for _ in 0..<pixels {
                var acc = b
                acc += p[0] * w0
                acc += p[dx] * w1
                acc += p[2 * dx] * w2
                acc += p[dy] * w3
                acc += p[dy + dx] * w4
                acc += p[dy + 2 * dx] * w5
                acc += p[2 * dy] * w6
                acc += p[2 * dy + dx] * w7
                acc += p[2 * dy + 2 * dx] * w8
                o.pointee = acc < low ? low : (acc > high ? high : acc)
                p += step
                o += c
            }
            ch += 1
        }
    }

    /// The interior sweep for channel blocks of `V.scalarCount`, from `channel` while a whole
    /// block fits; advances `channel`. The block's 9 weight vectors and bias stay in registers.
    /// Four pixels are computed at once: each pixel's 9 taps form a chain of dependent
    /// multiply-adds, and four independent chains keep the FMA units busy instead of waiting
    /// on one chain's latency.
    @inline(__always)
    static func depthwiseInteriorBlocks<V: SIMD>(
        _: V.Type, _ window: UnsafePointer<Float>, rowStride: Int, stride s: Int, dilation d: Int,
        _ wts: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?, c: Int, pixels: Int,
        clamp: (V) -> V, into out: UnsafeMutablePointer<Float>, channel ch: inout Int
    ) where V.Scalar == Float {
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        let dx = d * c, dy = d * rowStride, step = s * c
        while ch + V.scalarCount <= c {
            let w0 = load(wts + ch), w1 = load(wts + c + ch), w2 = load(wts + 2 * c + ch)
            let w3 = load(wts + 3 * c + ch), w4 = load(wts + 4 * c + ch), w5 = load(wts + 5 * c + ch)
            let w6 = load(wts + 6 * c + ch), w7 = load(wts + 7 * c + ch), w8 = load(wts + 8 * c + ch)
            let b = bias.map { load($0 + ch) } ?? V()
            var p = window + ch, o = out + ch
            var left = pixels
            while left >= 4 {
                var a0 = b, a1 = b, a2 = b, a3 = b
                // One window row: pixel j, tap kx reads input column j·s + kx·d of the group.
                @inline(__always) func taps(_ r: UnsafePointer<Float>, _ wa: V, _ wb: V, _ wc: V) {
                    a0.multiplyAdd(load(r), wa)
                    a1.multiplyAdd(load(r + s * c), wa)
                    a2.multiplyAdd(load(r + 2 * s * c), wa)
                    a3.multiplyAdd(load(r + 3 * s * c), wa)
                    a0.multiplyAdd(load(r + d * c), wb)
                    a1.multiplyAdd(load(r + (s + d) * c), wb)
                    a2.multiplyAdd(load(r + (2 * s + d) * c), wb)
                    a3.multiplyAdd(load(r + (3 * s + d) * c), wb)
                    a0.multiplyAdd(load(r + 2 * d * c), wc)
                    a1.multiplyAdd(load(r + (s + 2 * d) * c), wc)
                    a2.multiplyAdd(load(r + (2 * s + 2 * d) * c), wc)
                    a3.multiplyAdd(load(r + (3 * s + 2 * d) * c), wc)
                }
                taps(p, w0, w1, w2)
                taps(p + dy, w3, w4, w5)
                taps(p + 2 * dy, w6, w7, w8)
                UnsafeMutableRawPointer(o).storeBytes(of: clamp(a0), as: V.self)
                UnsafeMutableRawPointer(o + c).storeBytes(of: clamp(a1), as: V.self)
                UnsafeMutableRawPointer(o + 2 * c).storeBytes(of: clamp(a2), as: V.self)
                UnsafeMutableRawPointer(o + 3 * c).storeBytes(of: clamp(a3), as: V.self)
                p += 4 * step
                o += 4 * c
                left -= 4
            }
            for _ in 0..<left {
                var acc = b
                acc.multiplyAdd(load(p), w0)
                acc.multiplyAdd(load(p + dx), w1)
                acc.multiplyAdd(load(p + 2 * dx), w2)
                acc.multiplyAdd(load(p + dy), w3)
                acc.multiplyAdd(load(p + dy + dx), w4)
                acc.multiplyAdd(load(p + dy + 2 * dx), w5)
                acc.multiplyAdd(load(p + 2 * dy), w6)
                acc.multiplyAdd(load(p + 2 * dy + dx), w7)
                acc.multiplyAdd(load(p + 2 * dy + 2 * dx), w8)
                UnsafeMutableRawPointer(o).storeBytes(of: clamp(acc), as: V.self)
                p += step
                o += c
            }
            ch += V.scalarCount
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
            acc.multiplyAdd(x, k)
        }
        acc = acc.clampedLanes(low, high)
        UnsafeMutableRawPointer(out + ch).storeBytes(of: acc, as: V.self)
    }
}
