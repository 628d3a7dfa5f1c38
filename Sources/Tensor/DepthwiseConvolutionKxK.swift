extension Convolution {
    /// Interior output pixels the k×k kernel computes together (sharing each weight load), as the
    /// 3×3 kernel's groups in `CKernels` do.
    static let depthwiseGroupPixels = 4

    /// Depthwise k×k convolution (one filter per channel, depth multiplier 1) with **explicit**
    /// zero padding, any stride, fused bias + activation: the 5×5 layers of MediaPipe's models and
    /// every depthwise layer whose padding is neither TF SAME nor VALID (a `PAD` folded in).
    ///
    /// Output pixel `(oy, ox)` reads input rows `oy·stride − padTop + ky` and columns
    /// `ox·stride − padLeft + kx` for `ky, kx` in `0..<k`; taps outside the input read zero. The
    /// output's shape says how many rows and columns there are, so the bottom / right padding is
    /// whatever the last windows hang over (TF SAME's odd pixel included).
    ///
    /// NHWC keeps a pixel's channels contiguous, so the kernel vectorises over channels (16 lanes
    /// with AVX-512, then 8, then single channels). Output pixels whose window columns lie inside
    /// the image go in groups of four, each group sweeping all channels with four accumulators
    /// (four independent multiply-add chains); only the window rows inside the image are read.
    /// Pixels at the left and right edges take a per-pixel path over their in-image taps.
    /// Accumulation starts from the bias and goes row by row, left to right, on every path; the
    /// activation is a clamp at the end. Output rows are split over `threads` cores.
    ///
    /// - Parameters:
    ///   - input: `[H, W, C]`.
    ///   - weights: `[k, k, C]` (or `[k, k, C, 1]`), `k` ≥ 1.
    ///   - bias: `[C]`, or nil.
    ///   - stride: ≥ 1 (both axes).
    ///   - padTop: zero rows above the input (0 ≤ padTop < k).
    ///   - padLeft: zero columns left of the input (0 ≤ padLeft < k).
    ///   - activation: applied to every output value.
    ///   - output: `[outH, outW, C]`; must not overlap `input`.
    ///   - threads: cores the output rows are split over.
    /// - Throws: ``TensorError`` on shape mismatches, a non-square kernel or an out-of-range padding.
    public static func depthwise(
        _ input: Tensor, weights: Tensor, bias: Tensor?, stride: Int, padTop: Int, padLeft: Int,
        activation: Activation = .none, into output: Tensor, threads: Int = Parallelism.defaultThreads
    ) throws {
        try input.requireRank(3, "depthwise input")
        try output.requireRank(3, "depthwise output")
        let (h, w, c) = (input.shape[0], input.shape[1], input.shape[2])
        guard weights.rank >= 3, weights.shape[0] == weights.shape[1], weights.shape[0] >= 1,
              weights.shape[2] == c, weights.rank == 3 || (weights.rank == 4 && weights.shape[3] == 1) else {
            throw TensorError.shapeMismatch("depthwise weights must be [k, k, \(c)] for input \(input.shape), got \(weights.shape)")
        }
        let k = weights.shape[0]
        guard stride >= 1 else { throw TensorError.invalidDimension("depthwise stride is \(stride)") }
        guard (0..<k).contains(padTop), (0..<k).contains(padLeft) else {
            throw TensorError.shapeMismatch("depthwise padding top \(padTop), left \(padLeft) must each be in 0..<\(k)")
        }
        try Tensor.requireBias(bias, channels: c)
        let (oh, ow) = (output.shape[0], output.shape[1])
        guard output.shape[2] == c, (oh - 1) * stride - padTop < h, (ow - 1) * stride - padLeft < w else {
            throw TensorError.shapeMismatch("depthwise output \(output.shape) does not fit input \(input.shape) with a \(k)x\(k) window, stride \(stride), padding top \(padTop) left \(padLeft)")
        }
        try output.requireDisjoint(from: input, "depthwise output")
        let geometry = DepthwiseKxKGeometry(inputHeight: h, inputWidth: w, channels: c, kernel: k, stride: stride,
                                            padTop: padTop, padLeft: padLeft, outputHeight: oh, outputWidth: ow)
        // On small maps (a 5×5 window on 7×7 or 14×14) most pixels are border pixels, whose
        // per-pixel path is several times slower than the groups: pad a copy of the input with the
        // zeros instead, so every pixel is interior and every window row is read.
        let padBottom = max(0, (oh - 1) * stride + k - padTop - h), padRight = max(0, (ow - 1) * stride + k - padLeft - w)
        let interior = geometry.interiorColumns.count
        if padTop + padLeft + padBottom + padRight > 0, interior < depthwiseGroupPixels || 2 * interior < ow {
            let padded = try Tensor(zeros: [h + padTop + padBottom, w + padLeft + padRight, c])
            withExtendedLifetime((input, padded)) {
                let src = input.basePointer, dst = padded.mutableBasePointer
                let paddedRow = (w + padLeft + padRight) * c
                for y in 0..<h { (dst + (y + padTop) * paddedRow + padLeft * c).update(from: src + y * w * c, count: w * c) }
            }
            return try depthwise(padded, weights: weights, bias: bias, stride: stride, padTop: 0, padLeft: 0,
                                 activation: activation, into: output, threads: threads)
        }
        let (low, high) = activation.bounds
        let workers = max(1, min(threads, oh))
        withExtendedLifetime((input, weights, bias, output)) {
            let src = input.basePointer, wts = weights.basePointer
            let biasPointer = bias?.basePointer, dst = output.mutableBasePointer
            Parallelism.forEachBand(workers) { worker in
                let rows = Parallelism.bandRange(worker, of: workers, count: oh)
                // Kernel size and stride as compile-time constants for the models' combinations,
                // so the tap loops unroll and the tap offsets are constant multiples of `c`.
                switch (k, stride) {
                case (3, 1): depthwiseKxKRows(src, wts, biasPointer, geometry, k: 3, stride: 1, low, high, rows: rows, into: dst)
                case (3, 2): depthwiseKxKRows(src, wts, biasPointer, geometry, k: 3, stride: 2, low, high, rows: rows, into: dst)
                case (5, 1): depthwiseKxKRows(src, wts, biasPointer, geometry, k: 5, stride: 1, low, high, rows: rows, into: dst)
                case (5, 2): depthwiseKxKRows(src, wts, biasPointer, geometry, k: 5, stride: 2, low, high, rows: rows, into: dst)
                default: depthwiseKxKRows(src, wts, biasPointer, geometry, k: k, stride: stride, low, high, rows: rows, into: dst)
                }
            }
        }
    }

    /// Output rows `rows` of ``depthwise(_:weights:bias:stride:padTop:padLeft:activation:into:threads:)``.
    @inline(__always)
    static func depthwiseKxKRows(
        _ src: UnsafePointer<Float>, _ wts: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
        _ g: DepthwiseKxKGeometry, k: Int, stride s: Int, _ low: Float, _ high: Float,
        rows: Range<Int>, into dst: UnsafeMutablePointer<Float>
    ) {
        let (h, w, c) = (g.inputHeight, g.inputWidth, g.channels)
        let rowStride = w * c
        let group = depthwiseGroupPixels
        // Output columns whose windows lie inside the image horizontally.
        let interior = g.interiorColumns
        for oy in rows {
            let iy0 = oy * s - g.padTop
            let firstRow = max(0, -iy0), lastRow = min(k, h - iy0)  // window rows inside the image
            let outRow = dst + oy * g.outputWidth * c
            func borderPixel(_ ox: Int) {
                let ix0 = ox * s - g.padLeft
                let firstColumn = max(0, -ix0), lastColumn = min(k, w - ix0)
                depthwiseKxKPixel(src + (iy0 * w + ix0) * c, rowStride: rowStride, wts, bias, k: k, c: c,
                                  rows: firstRow..<lastRow, columns: firstColumn..<lastColumn, low, high,
                                  into: outRow + ox * c)
            }
            guard firstRow < lastRow else {
                // No window row inside the image (padding alone): bias, activated.
                for ox in 0..<g.outputWidth { depthwiseKxKPixel(src, rowStride: rowStride, wts, bias, k: k, c: c,
                                                                rows: 0..<0, columns: 0..<0, low, high, into: outRow + ox * c) }
                continue
            }
            for ox in 0..<interior.lowerBound { borderPixel(ox) }
            if interior.count >= group {
                let windowRows = lastRow - firstRow
                let rowWeights = wts + firstRow * k * c
                var first = interior.lowerBound
                while first < interior.upperBound {
                    // A last partial group is the whole group ending at the run's end (a few
                    // pixels computed twice, with the same values).
                    let start = min(first, interior.upperBound - group)
                    let window = src + ((iy0 + firstRow) * w + start * s - g.padLeft) * c
                    // Whole windows (most rows) with the row count a constant, so the taps unroll.
                    if windowRows == k {
                        depthwiseKxKGroup(window, rowStride: rowStride, rowWeights, windowRows: k, bias,
                                          k: k, c: c, stride: s, low, high, into: outRow + start * c)
                    } else {
                        depthwiseKxKGroup(window, rowStride: rowStride, rowWeights, windowRows: windowRows, bias,
                                          k: k, c: c, stride: s, low, high, into: outRow + start * c)
                    }
                    first = start + group
                }
            } else {
                for ox in interior { borderPixel(ox) }
            }
            for ox in interior.upperBound..<g.outputWidth { borderPixel(ox) }
        }
    }

    /// ``depthwiseGroupPixels`` interior pixels over all channels: vector blocks (16 lanes with
    /// AVX-512, then 8), then single channels. `window` is the first pixel's window corner in its
    /// first in-image row, `wts` that row's weights.
    @inline(__always)
    static func depthwiseKxKGroup(
        _ window: UnsafePointer<Float>, rowStride: Int, _ wts: UnsafePointer<Float>, windowRows: Int,
        _ bias: UnsafePointer<Float>?, k: Int, c: Int, stride s: Int, _ low: Float, _ high: Float,
        into out: UnsafeMutablePointer<Float>
    ) {
        var ch = 0
        #if POSEKIT_AVX512
        depthwiseKxKBlocks(SIMD16<Float>.self, window, rowStride: rowStride, wts, windowRows: windowRows, bias,
                           k: k, c: c, stride: s, clamp: { $0.clampedLanes(low, high) }, into: out, channel: &ch)
        #endif
        depthwiseKxKBlocks(SIMD8<Float>.self, window, rowStride: rowStride, wts, windowRows: windowRows, bias,
                           k: k, c: c, stride: s, clamp: { $0.clampedLanes(low, high) }, into: out, channel: &ch)
        while ch < c {
            for j in 0..<depthwiseGroupPixels {
                var acc = bias?[ch] ?? 0
                var row = window + j * s * c + ch, weight = wts + ch
                for _ in 0..<windowRows {
                    for kx in 0..<k { acc += row[kx * c] * weight[kx * c] }
                    row += rowStride
                    weight += k * c
                }
                out[j * c + ch] = acc < low ? low : (acc > high ? high : acc)
            }
            ch += 1
        }
    }

    /// The group's channel blocks of `V.scalarCount` from `channel` while a whole block fits;
    /// advances `channel`. Four accumulators plus one weight vector per tap of a window row.
    @inline(__always)
    static func depthwiseKxKBlocks<V: SIMD>(
        _: V.Type, _ window: UnsafePointer<Float>, rowStride: Int, _ wts: UnsafePointer<Float>, windowRows: Int,
        _ bias: UnsafePointer<Float>?, k: Int, c: Int, stride s: Int,
        clamp: (V) -> V, into out: UnsafeMutablePointer<Float>, channel ch: inout Int
    ) where V.Scalar == Float {
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        @inline(__always) func store(_ x: V, _ p: UnsafeMutablePointer<Float>) {
            UnsafeMutableRawPointer(p).storeBytes(of: clamp(x), as: V.self)
        }
        while ch + V.scalarCount <= c {
            let b = bias.map { load($0 + ch) } ?? V()
            var a0 = b, a1 = b, a2 = b, a3 = b
            var row = window + ch, weight = wts + ch
            for _ in 0..<windowRows {
                for kx in 0..<k {
                    let wv = load(weight + kx * c)
                    a0.multiplyAdd(load(row + kx * c), wv)
                    a1.multiplyAdd(load(row + (s + kx) * c), wv)
                    a2.multiplyAdd(load(row + (2 * s + kx) * c), wv)
                    a3.multiplyAdd(load(row + (3 * s + kx) * c), wv)
                }
                row += rowStride
                weight += k * c
            }
            store(a0, out + ch)
            store(a1, out + c + ch)
            store(a2, out + 2 * c + ch)
            store(a3, out + 3 * c + ch)
            ch += V.scalarCount
        }
    }

    /// One output pixel over all channels, reading only the taps `rows` × `columns` of its window
    /// (those inside the image); `window` is the window's corner (possibly outside the image:
    /// only in-image taps are dereferenced).
    @inline(never)
    static func depthwiseKxKPixel(
        _ window: UnsafePointer<Float>, rowStride: Int, _ wts: UnsafePointer<Float>, _ bias: UnsafePointer<Float>?,
        k: Int, c: Int, rows: Range<Int>, columns: Range<Int>, _ low: Float, _ high: Float,
        into out: UnsafeMutablePointer<Float>
    ) {
        typealias V = SIMD8<Float>
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        var ch = 0
        while ch + V.scalarCount <= c {
            var acc = bias.map { load($0 + ch) } ?? V()
            for ky in rows {
                for kx in columns {
                    acc.multiplyAdd(load(window + ky * rowStride + kx * c + ch), load(wts + (ky * k + kx) * c + ch))
                }
            }
            UnsafeMutableRawPointer(out + ch).storeBytes(of: acc.clampedLanes(low, high), as: V.self)
            ch += V.scalarCount
        }
        while ch < c {
            var acc = bias?[ch] ?? 0
            for ky in rows {
                for kx in columns { acc += window[ky * rowStride + kx * c + ch] * wts[(ky * k + kx) * c + ch] }
            }
            out[ch] = acc < low ? low : (acc > high ? high : acc)
            ch += 1
        }
    }
}

/// The sizes of one ``Convolution/depthwise(_:weights:bias:stride:padTop:padLeft:activation:into:threads:)`` call.
struct DepthwiseKxKGeometry {
    let inputHeight: Int, inputWidth: Int, channels: Int
    let kernel: Int, stride: Int, padTop: Int, padLeft: Int
    let outputHeight: Int, outputWidth: Int

    /// Output columns whose window columns all lie inside the input (possibly empty).
    var interiorColumns: Range<Int> {
        let first = min(outputWidth, (padLeft + stride - 1) / stride)  // ox·s − padLeft ≥ 0
        let available = inputWidth - kernel + padLeft  // ox·s ≤ available
        let last = available < 0 ? -1 : min(outputWidth - 1, available / stride)
        return first <= last ? first..<(last + 1) : first..<first
    }
}
