extension Convolution {
    /// Depthwise 3×3 convolution (one filter per channel), stride 1 or 2, any dilation ≥ 1,
    /// SAME or VALID padding, with fused bias + activation.
    ///
    /// NHWC keeps a pixel's channels contiguous, so the kernel vectorises over channels. Output
    /// pixels whose window columns lie inside the image go in groups of eight, each group sweeping
    /// all channels in vector blocks with eight accumulators, then a half vector, then single
    /// channels (CKernels' copy for the CPU's best instruction set, ``KernelISA/preferred``:
    /// 16-lane blocks with AVX-512, 8 with AVX2, 4 on the baseline); in the first and last rows only the window rows inside the image are
    /// read. Pixels at the left and right edges accumulate only their in-bounds taps (32 channels
    /// at a time, then 16, 8 and single channels). Accumulation starts from the bias, taps go in window order (row by row,
    /// left to right) on every path, and the activation is a clamp at the end: every output value
    /// is written activated. Output rows are split over `threads` cores. See `posekit bench
    /// kernels` for its speed.
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
    ///   - padding: ``Padding/same`` (TF's SAME: the output is `ceil(H / stride)` rows) or ``Padding/valid``.
    ///   - activation: applied to every output value (ReLU6 in MobileNet).
    ///   - output: `[outH, outW, C]`, or `[outputRows.count, outW, C]` when `outputRows` is given;
    ///     must not overlap `input`.
    ///   - outputRows: the band of output rows to compute; nil for all.
    ///   - threads: cores the output rows are split over.
    /// - Throws: ``TensorError`` on shape mismatches, unsupported kernel sizes or strides.
    public static func depthwise3x3(
        _ input: Tensor, weights: Tensor, bias: Tensor?, stride: Int = 1, dilation: Int = 1,
        padding: Padding = .same, activation: Activation = .none, into output: Tensor,
        outputRows: Range<Int>? = nil, threads: Int = Parallelism.defaultThreads
    ) throws {
        try depthwise3x3(input, weights: weights, bias: bias, stride: stride, dilation: dilation, padding: padding,
                         activation: activation, into: output, outputRows: outputRows, threads: threads, isa: .preferred)
    }

    /// ``depthwise3x3(_:weights:bias:stride:dilation:padding:activation:into:outputRows:threads:)``
    /// with the interior sweep of `isa` (one of ``KernelISA/supported``), for tests and benchmarks.
    static func depthwise3x3(
        _ input: Tensor, weights: Tensor, bias: Tensor?, stride: Int, dilation: Int, padding: Padding,
        activation: Activation, into output: Tensor, outputRows: Range<Int>?, threads: Int, isa: KernelISA
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
                              isa: isa, into: dst + band.lowerBound * g.outputWidth * c)
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
    /// Pixels whose window columns lie inside the image (nearly all of them) take the fast path,
    /// the copy of the interior sweep compiled for `isa` (CKernels' `depthwise_interior`, chosen
    /// at run time; a pixel's value does not depend on the run it is in); in
    /// the first and last rows it reads only the window rows inside the image, so SAME padding's
    /// zero rows cost nothing. Pixels at the left and right edges gather their in-bounds taps into
    /// a small list and take the general path.
    ///
    /// Output columns in `skippingColumns` are not computed (their floats in `dst` are left as they are).
    static func depthwiseRows(
        _ src: UnsafePointer<Float>, _ wts: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
        _ g: ConvolutionGeometry, _ c: Int, _ low: Float, _ high: Float,
        outputRows: Range<Int>, skippingColumns: Range<Int> = 0..<0, isa: KernelISA = .preferred,
        into dst: UnsafeMutablePointer<Float>
    ) {
        let interior = isa.depthwiseInterior
        let columns = SkippedRows(count: g.outputWidth, skipping: skippingColumns)
        let s = g.stride, d = g.dilation
        // Interior columns: ox·s − padLeft ≥ 0 and ox·s − padLeft + 2d ≤ W − 1.
        let interiorStart = min((g.padLeft + s - 1) / s, g.outputWidth)
        let lastFit = g.inputWidth - 1 - 2 * d + g.padLeft
        let interiorEnd = lastFit < 0 ? interiorStart : max(interiorStart, min(lastFit / s + 1, g.outputWidth))
        let rowStride = g.inputWidth * c
        // Per pixel, the in-bounds taps as (input offset, weight offset) pairs: at most 9.
        withUnsafeTemporaryAllocation(of: (Int, Int).self, capacity: 9) { taps in
            let tapList = taps.baseAddress!
            func borderPixel(_ oy: Int, _ ox: Int, _ out: UnsafeMutablePointer<Float>) {
                depthwiseBorderPixel(src, wts, bias, g, c, low, high, oy, ox, tapList, out)
            }
            for (r, oy) in outputRows.enumerated() {
                let outRow = dst + r * g.outputWidth * c
                // The window rows inside the image: a contiguous run of the 3.
                let iy0 = oy * s - g.padTop
                let firstRow = iy0 >= 0 ? 0 : min(3, (-iy0 + d - 1) / d)
                let lastRow = min(2, (g.inputHeight - 1 - iy0) >= 0 ? (g.inputHeight - 1 - iy0) / d : -1)
                guard firstRow <= lastRow else {
                    columns.forEachKept(0..<g.outputWidth) { for ox in $0 { borderPixel(oy, ox, outRow + ox * c) } }
                    continue
                }
                columns.forEachKept(0..<interiorStart) { for ox in $0 { borderPixel(oy, ox, outRow + ox * c) } }
                columns.forEachKept(interiorStart..<interiorEnd) { run in
                    // Left input pixel of the run's first window, in its first in-image row.
                    let window = src + (iy0 + firstRow * d) * rowStride + (run.lowerBound * s - g.padLeft) * c
                    // The instruction set's copy of the sweep (CKernels' depthwise_template.h).
                    interior(window, rowStride, wts + firstRow * 3 * c, lastRow - firstRow + 1, bias, c, s, d,
                             run.count, low, high, outRow + run.lowerBound * c)
                }
                columns.forEachKept(interiorEnd..<g.outputWidth) { for ox in $0 { borderPixel(oy, ox, outRow + ox * c) } }
            }
        }
    }

    /// One output pixel at the image border: its in-bounds taps gathered into `taps` (room for 9),
    /// then `depthwisePixel`. A function of its own (`@inline(never)`) so that the SIMD loads and
    /// stores stay inlined and specialized here, whatever the caller's closures do
    /// (scripts/check-codegen.py).
    @inline(never)
    static func depthwiseBorderPixel(
        _ src: UnsafePointer<Float>, _ wts: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
        _ g: ConvolutionGeometry, _ c: Int, _ low: Float, _ high: Float, _ oy: Int, _ ox: Int,
        _ taps: UnsafeMutablePointer<(Int, Int)>, _ out: UnsafeMutablePointer<Float>
    ) {
        let s = g.stride, d = g.dilation
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
        depthwisePixel(src, wts, bias, UnsafePointer(taps), n, c, low, high, out)
    }

    /// One output pixel: `clamp(bias + Σ taps input·weight, low, high)` over all channels.
    ///
    /// Channels go 32 at a time as two 16-lane accumulators (four independent multiply-add
    /// chains with AVX2's 8-lane registers: a pixel has at most 9 taps, too few to hide the FMA
    /// latency on one chain), then 16, 8 and single channels.
    @inline(__always)
    static func depthwisePixel(
        _ src: UnsafePointer<Float>, _ wts: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
        _ taps: UnsafePointer<(Int, Int)>, _ n: Int, _ c: Int, _ low: Float, _ high: Float,
        _ out: UnsafeMutablePointer<Float>
    ) {
        typealias V = SIMD16<Float>
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        var ch = 0
        while ch + 32 <= c {
            var acc0 = bias.map { load($0 + ch) } ?? V(), acc1 = bias.map { load($0 + ch + 16) } ?? V()
            for t in 0..<n {
                let x = src + taps[t].0 + ch, k = wts + taps[t].1 + ch
                acc0.multiplyAdd(load(x), load(k))
                acc1.multiplyAdd(load(x + 16), load(k + 16))
            }
            UnsafeMutableRawPointer(out + ch).storeBytes(of: acc0.clampedLanes(low, high), as: V.self)
            UnsafeMutableRawPointer(out + ch + 16).storeBytes(of: acc1.clampedLanes(low, high), as: V.self)
            ch += 32
        }
        if ch + 16 <= c {
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
