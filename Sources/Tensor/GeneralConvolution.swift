import COpenBLAS

/// Scratch memory for ``Convolution/general(_:weights:bias:stride:dilation:padding:activation:into:workspace:threads:)``:
/// the im2col rows of one band per thread.
///
/// Create one per network (or per concurrent caller; a workspace must not be used by two calls
/// at once) and pass it to every call: it grows to the largest size any call needed and is then
/// reused, so steady-state inference allocates nothing. ``reserve(for:inputChannels:threads:)``
/// sizes it up front.
public final class ConvolutionWorkspace: @unchecked Sendable {
    private var storage: TensorStorage

    /// An empty workspace; it grows on first use.
    public init() { storage = TensorStorage(count: 0) }

    /// Floats currently held.
    public var capacity: Int { storage.buffer.count }

    /// Floats a call with this geometry needs: `threads` bands of im2col rows.
    public static func requiredCount(for geometry: ConvolutionGeometry, inputChannels: Int, threads: Int) -> Int {
        let k = geometry.kernelHeight * geometry.kernelWidth * inputChannels
        let m = geometry.outputHeight * geometry.outputWidth
        let bands = Convolution.im2colBands(m: m, k: k, threads: threads)
        return min(max(1, threads), bands.count) * bands.rows * k
    }

    /// Grows the workspace (if needed) so that a call with this geometry allocates nothing.
    public func reserve(for geometry: ConvolutionGeometry, inputChannels: Int, threads: Int) {
        reserve(count: Self.requiredCount(for: geometry, inputChannels: inputChannels, threads: threads))
    }

    /// Grows the workspace (if needed) to hold at least `count` floats.
    public func reserve(count: Int) {
        if storage.buffer.count < count { storage = TensorStorage(count: count) }
    }

    var base: UnsafeMutablePointer<Float> { storage.buffer.baseAddress! }
}

extension Convolution {
    /// General k×k 2-D convolution (stride, dilation, SAME/VALID padding) via banded im2col + sgemm,
    /// with fused bias + activation.
    ///
    /// Output pixels are processed in cache-sized bands: a band's im2col rows
    /// (`rows × kH·kW·Cin`, zero where the window hangs over the padded border, column order
    /// `(ky, kx, ci)` to match HWIO weights) are written to the workspace, multiplied by the
    /// weights as the `(kH·kW·Cin) × Cout` matrix with single-threaded `cblas_sgemm`, and the
    /// band's bias + activation is applied at once. Bands are spread over `threads` cores.
    /// When both `kH·kW·Cin` and `Cout` are at most ``smallGEMMLimit`` (PoseNet's first layer:
    /// 27 × 24), the band product uses `smallGEMMWithEpilogue(_:rows:k:_:n:_:bias:activation:)`
    /// instead of sgemm, whose packing and blocking do not pay off at that size.
    /// A 1×1 kernel with stride 1 goes straight to ``pointwise(_:weights:bias:activation:into:threads:)``.
    /// With ``GEMMKernel/preferred`` `.packed` (the default), larger products pack the weights for
    /// this call and run ``general(_:packed:kernelHeight:kernelWidth:stride:dilation:padding:activation:into:workspace:skippingRows:skippingColumns:threads:)``.
    ///
    /// - Parameters:
    ///   - input: `[H, W, Cin]`.
    ///   - weights: `[kH, kW, Cin, Cout]` (HWIO).
    ///   - bias: `[Cout]`, or nil.
    ///   - stride: ≥ 1 (both axes).
    ///   - dilation: ≥ 1 (both axes).
    ///   - padding: ``Padding/same`` (TF's SAME) or ``Padding/valid``.
    ///   - activation: applied to every output value as its band is finished.
    ///   - output: `[outH, outW, Cout]` as given by ``ConvolutionGeometry``; must not overlap `input`.
    ///   - workspace: reusable scratch; nil allocates a temporary one for this call.
    ///   - threads: cores the bands are spread over.
    /// - Throws: ``TensorError`` on shape mismatches or non-positive stride / dilation.
    public static func general(
        _ input: Tensor, weights: Tensor, bias: Tensor?, stride: Int = 1, dilation: Int = 1,
        padding: Padding = .same, activation: Activation = .none, into output: Tensor,
        workspace: ConvolutionWorkspace? = nil, threads: Int = Parallelism.defaultThreads
    ) throws {
        try input.requireRank(3, "convolution input")
        try weights.requireRank(4, "convolution weights (HWIO)")
        let (h, w, cin) = (input.shape[0], input.shape[1], input.shape[2])
        let (kh, kw, wcin, cout) = (weights.shape[0], weights.shape[1], weights.shape[2], weights.shape[3])
        guard wcin == cin else {
            throw TensorError.shapeMismatch("convolution weights \(weights.shape) expect \(wcin) input channels, input \(input.shape) has \(cin)")
        }
        let g = try ConvolutionGeometry(
            inputHeight: h, inputWidth: w, kernelHeight: kh, kernelWidth: kw,
            stride: stride, dilation: dilation, padding: padding)
        try Tensor.requireBias(bias, channels: cout)
        try output.requireShape([g.outputHeight, g.outputWidth, cout], "convolution output")
        try output.requireDisjoint(from: input, "convolution output")
        try output.requireDisjoint(from: weights, "convolution output")
        if kh == 1 && kw == 1 && stride == 1 {
            return try pointwise(input, weights: weights, bias: bias, activation: activation, into: output, threads: threads)
        }

        let k = kh * kw * cin
        if GEMMKernel.preferred == .packed && !(k <= smallGEMMLimit && cout <= smallGEMMLimit) {
            // Packing costs one pass over the weights, as sgemm's own packing of them on every band.
            let packed = try PackedPointwiseWeights(weights: weights.reshaped([k, cout]), bias: bias)
            return try general(input, packed: packed, kernelHeight: kh, kernelWidth: kw, stride: stride,
                               dilation: dilation, padding: padding, activation: activation, into: output,
                               workspace: workspace, threads: threads)
        }
        BLASThreads.ensureSingleThreaded()
        let useSmallGEMM = k <= smallGEMMLimit && cout <= smallGEMMLimit
        withExtendedLifetime((input, weights, bias, output)) {
            let wts = weights.basePointer, dst = output.mutableBasePointer
            let biasPointer = bias?.basePointer
            forEachIm2colBand(input, g, threads: threads, workspace: workspace) { columns, row0, rows in
                if useSmallGEMM {
                    smallGEMMWithEpilogue(columns, rows: rows, k: k, wts, n: cout, dst + row0 * cout,
                                          bias: biasPointer, activation: activation)
                } else {
                    cblas_sgemm(
                        CblasRowMajor, CblasNoTrans, CblasNoTrans,
                        Int32(rows), Int32(cout), Int32(k), 1, columns, Int32(k), wts, Int32(cout),
                        0, dst + row0 * cout, Int32(cout))
                    applyEpilogue(dst + row0 * cout, rows: rows, columns: cout, rowStride: cout,
                                  bias: biasPointer, epilogue: KernelEpilogue(activation))
                }
            }
        }
    }

    /// Banded im2col: for each band of output pixels (``im2colBands(m:k:threads:)``, spread over
    /// `threads` cores), writes the band's im2col rows into that core's slice of `workspace`
    /// (nil: a temporary one) and calls `body(columns, firstPixel, pixels)` on the same core.
    static func forEachIm2colBand(
        _ input: Tensor, _ g: ConvolutionGeometry, threads: Int, workspace: ConvolutionWorkspace?,
        skippingPixels: Range<Int> = 0..<0, _ body: (UnsafeMutablePointer<Float>, Int, Int) -> Void
    ) {
        let cin = input.shape[2]
        let k = g.kernelHeight * g.kernelWidth * cin
        let pixelsToCompute = SkippedRows(count: g.outputHeight * g.outputWidth, skipping: skippingPixels)
        let m = pixelsToCompute.computed
        guard m > 0 else { return }
        let (bandRows, bands) = im2colBands(m: m, k: k, threads: threads)
        let workers = max(1, min(threads, bands))
        let scratch = workspace ?? ConvolutionWorkspace()
        scratch.reserve(count: workers * bandRows * k)
        withExtendedLifetime((input, scratch)) {
            let src = input.basePointer, scratchBase = scratch.base
            Parallelism.forEachBand(workers) { worker in
                let columns = scratchBase + worker * bandRows * k
                for band in Parallelism.bandRange(worker, of: workers, count: bands) {
                    let row0 = band * bandRows
                    pixelsToCompute.forEachRun(row0..<min(row0 + bandRows, m)) { run in
                        im2colRows(src, g, cin, firstPixel: run.lowerBound, pixels: run.count, into: columns)
                        body(columns, run.lowerBound, run.count)
                    }
                }
            }
        }
    }

    /// General k×k convolution with weights packed once: banded im2col + PoseKit's packed GEMM
    /// microkernel (see ``pointwise(_:packed:activation:into:skippingZeroChannels:threads:)``), fused bias + activation.
    ///
    /// `packed` holds the HWIO weights `[kH, kW, Cin, Cout]` seen as the `(kH·kW·Cin) × Cout`
    /// matrix (the im2col column order `(ky, kx, ci)`), e.g.
    /// `PackedPointwiseWeights(weights: weights.reshaped([kH * kW * Cin, Cout]), bias: bias)`.
    ///
    /// With dilation 1 (PoseNet's first layer) there is no im2col copy for most pixels: a window
    /// row is `kW·Cin` contiguous input floats, so the microkernel reads 8 neighboring output
    /// pixels' windows straight from the input (`kH` runs per pixel, pixels `stride·Cin` floats
    /// apart). Only tiles that touch the padded border are gathered into a small im2col scratch.
    /// Output rows are split over `threads` cores. Other dilations, and weights packed for
    /// OpenBLAS, use banded im2col (bands whose im2col rows stay in L2, each band's GEMM on the
    /// core that wrote its rows).
    ///
    /// `skippingRows` are output rows not to compute (left as they are) and `skippingColumns`
    /// output columns that need not be (the packed kernel with dilation 1 skips them when that
    /// pays; their values afterwards are unspecified), as in ``separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:skippingRows:skippingColumns:skippingZeroChannels:threads:)``.
    ///
    /// - Throws: ``TensorError`` on shape mismatches or non-positive stride / dilation.
    public static func general(
        _ input: Tensor, packed: PackedPointwiseWeights, kernelHeight kh: Int, kernelWidth kw: Int,
        stride: Int = 1, dilation: Int = 1, padding: Padding = .same, activation: Activation = .none,
        into output: Tensor, workspace: ConvolutionWorkspace? = nil, skippingRows: Range<Int> = 0..<0,
        skippingColumns: Range<Int> = 0..<0, threads: Int = Parallelism.defaultThreads
    ) throws {
        try general(input, packed: packed, kernelHeight: kh, kernelWidth: kw, stride: stride, dilation: dilation,
                    padding: padding, epilogue: Epilogue(activation: activation), into: output, workspace: workspace,
                    skippingRows: skippingRows, skippingColumns: skippingColumns, threads: threads)
    }

    /// ``general(_:packed:kernelHeight:kernelWidth:stride:dilation:padding:activation:into:workspace:skippingRows:skippingColumns:threads:)``
    /// with a whole ``Epilogue``: a residual added and a PReLU applied as each tile is stored.
    ///
    /// - Throws: ``TensorError`` on shape mismatches, non-positive stride / dilation, or an
    ///   epilogue that does not fit the output.
    ///
    /// `strideWidth` (nil: `stride`) is the horizontal stride when it differs from the vertical
    /// `stride`: a Create ML temporal convolution steps 2 along time (rows) and 1 across joints.
    public static func general(
        _ input: Tensor, packed: PackedPointwiseWeights, kernelHeight kh: Int, kernelWidth kw: Int,
        stride: Int = 1, strideWidth: Int? = nil, dilation: Int = 1, padding: Padding = .same, epilogue: Epilogue,
        into output: Tensor, workspace: ConvolutionWorkspace? = nil, skippingRows: Range<Int> = 0..<0,
        skippingColumns: Range<Int> = 0..<0, threads: Int = Parallelism.defaultThreads
    ) throws {
        try input.requireRank(3, "convolution input")
        let (h, w, cin) = (input.shape[0], input.shape[1], input.shape[2])
        guard kh >= 1, kw >= 1, packed.inputChannels == kh * kw * cin else {
            throw TensorError.shapeMismatch("packed weights with \(packed.inputChannels) rows do not fit a \(kh)x\(kw) kernel over input \(input.shape)")
        }
        let g = try ConvolutionGeometry(
            inputHeight: h, inputWidth: w, kernelHeight: kh, kernelWidth: kw,
            stride: stride, strideWidth: strideWidth, dilation: dilation, padding: padding)
        let cout = packed.outputChannels
        try output.requireShape([g.outputHeight, g.outputWidth, cout], "convolution output")
        try output.requireDisjoint(from: input, "convolution output")
        try epilogue.check(output: output)
        epilogue.withKernelEpilogue { epilogue in
            packedGeneral(input, g, packed: packed, epilogue: epilogue, into: output, workspace: workspace,
                              skippingRows: skippingRows, skippingColumns: skippingColumns, threads: threads)
        }
    }

    /// The body of ``general(_:packed:kernelHeight:kernelWidth:stride:strideWidth:dilation:padding:epilogue:into:workspace:skippingRows:skippingColumns:threads:)``
    /// once the shapes are checked.
    private static func packedGeneral(
        _ input: Tensor, _ g: ConvolutionGeometry, packed: PackedPointwiseWeights, epilogue: KernelEpilogue,
        into output: Tensor, workspace: ConvolutionWorkspace?, skippingRows: Range<Int>, skippingColumns: Range<Int>,
        threads: Int
    ) {
        let cin = input.shape[2]
        let (kh, kw, dilation) = (g.kernelHeight, g.kernelWidth, g.dilation)
        let cout = packed.outputChannels
        let k = kh * kw * cin
        let scratch = workspace ?? ConvolutionWorkspace()
        let rowsToCompute = SkippedRows(count: g.outputHeight, skipping: skippingRows)
        guard rowsToCompute.computed > 0 else { return }
        if dilation == 1 && packed.kernel == .packed {
            let tileRows = packed.tileRows, ow = g.outputWidth
            let columnsToCompute = SkippedRows(count: ow, skipping: skipsColumns(skippingColumns, packed) ? skippingColumns : 0..<0)
            let workers = max(1, min(threads, rowsToCompute.computed))
            scratch.reserve(count: workers * tileRows * k)
            withExtendedLifetime((input, packed, output, scratch)) {
                let src = input.basePointer, dst = output.mutableBasePointer, scratchBase = scratch.base
                Parallelism.forEachBand(workers) { worker in
                    let columns = scratchBase + worker * tileRows * k
                    let share = Parallelism.bandRange(worker, of: workers, count: rowsToCompute.computed)
                    rowsToCompute.forEachRun(share) { run in for oy in run {
                        columnsToCompute.forEachKept(0..<ow) { part in
                            packedConvolutionRow(src, g, cin, packed, row: oy, columns: part, epilogue,
                                                 scratch: columns, into: dst)
                        }
                    } }
                }
            }
            return
        }
        withExtendedLifetime((packed, output)) {
            let dst = output.mutableBasePointer
            let ow = g.outputWidth
            let pixels = (rowsToCompute.skipped.lowerBound * ow)..<(rowsToCompute.skipped.upperBound * ow)
            forEachIm2colBand(input, g, threads: threads, workspace: scratch, skippingPixels: pixels) { columns, row0, rows in
                _ = packedGEMM(a: columns, m: rows, packed: packed, c: dst + row0 * cout,
                               epilogue: epilogue.offset(by: row0 * cout), threads: 1)
            }
        }
    }

    /// Output pixels `columns` of output row `oy` of a packed-weight convolution with dilation 1:
    /// one microkernel call per `packed.tileRows` pixels, reading the windows in place (one
    /// segment per window row) where they lie inside the image, else through im2col rows in
    /// `scratch`.
    ///
    /// Its own function, never inlined: with this loop inlined into all of
    /// ``general(_:packed:kernelHeight:kernelWidth:stride:dilation:padding:activation:into:workspace:skippingRows:skippingColumns:threads:)``,
    /// the optimizer once left the microkernel's vector loads and stores there as calls, and the
    /// first layer of PoseNet ran three times slower.
    @inline(never)
    static func packedConvolutionRow(
        _ src: UnsafePointer<Float>, _ g: ConvolutionGeometry, _ cin: Int, _ packed: PackedPointwiseWeights,
        row oy: Int, columns: Range<Int>, _ epilogue: KernelEpilogue,
        scratch: UnsafeMutablePointer<Float>, into dst: UnsafeMutablePointer<Float>
    ) {
        let (w, kh, kw, strideX) = (g.inputWidth, g.kernelHeight, g.kernelWidth, g.strideWidth)
        let k = kh * kw * cin, ow = g.outputWidth, cout = packed.outputChannels
        let iy0 = oy * g.stride - g.padTop
        let rowInside = iy0 >= 0 && iy0 + kh <= g.inputHeight
        var ox = columns.lowerBound
        while ox < columns.upperBound {
            let pixels = min(packed.tileRows, columns.upperBound - ox)
            let ix0 = ox * strideX - g.padLeft
            let out = (oy * ow + ox) * cout
            if rowInside && ix0 >= 0 && (ox + pixels - 1) * strideX - g.padLeft + kw <= w {
                packedRowTile(a: src + (iy0 * w + ix0) * cin, lda: strideX * cin, segments: kh,
                              segmentLength: kw * cin, segmentStride: w * cin, rows: pixels,
                              packed: packed, epilogue: epilogue, at: out, c: dst)
            } else {
                im2colRows(src, g, cin, firstPixel: oy * ow + ox, pixels: pixels, into: scratch)
                packedRowTile(a: scratch, lda: k, segments: 1, segmentLength: k, segmentStride: 0,
                              rows: pixels, packed: packed, epilogue: epilogue, at: out, c: dst)
            }
            ox += pixels
        }
    }

    /// Allocating form of ``general(_:weights:bias:stride:dilation:padding:activation:into:workspace:threads:)``.
    public static func general(
        _ input: Tensor, weights: Tensor, bias: Tensor?, stride: Int = 1, dilation: Int = 1,
        padding: Padding = .same, activation: Activation = .none,
        workspace: ConvolutionWorkspace? = nil, threads: Int = Parallelism.defaultThreads
    ) throws -> Tensor {
        try input.requireRank(3, "convolution input")
        try weights.requireRank(4, "convolution weights (HWIO)")
        let g = try ConvolutionGeometry(
            inputHeight: input.shape[0], inputWidth: input.shape[1],
            kernelHeight: weights.shape[0], kernelWidth: weights.shape[1],
            stride: stride, dilation: dilation, padding: padding)
        let output = try Tensor(zeros: [g.outputHeight, g.outputWidth, weights.shape[3]])
        try general(input, weights: weights, bias: bias, stride: stride, dilation: dilation, padding: padding,
                    activation: activation, into: output, workspace: workspace, threads: threads)
        return output
    }

    /// Writes the im2col rows of output pixels `firstPixel ..< firstPixel + pixels` (row-major
    /// over the output grid): one row of `kH·kW·Cin` values per pixel, zeros for padding.
    static func im2colRows(
        _ src: UnsafePointer<Float>, _ g: ConvolutionGeometry, _ cin: Int,
        firstPixel: Int, pixels: Int, into columns: UnsafeMutablePointer<Float>
    ) {
        let k = g.kernelHeight * g.kernelWidth * cin
        for p in 0..<pixels {
            let pixel = firstPixel + p
            let oy = pixel / g.outputWidth, ox = pixel % g.outputWidth
            var dst = columns + p * k
            let ix0 = ox * g.strideWidth - g.padLeft
            // With dilation 1 a window row inside the image is kW·Cin contiguous input floats.
            let contiguousRow = g.dilation == 1 && ix0 >= 0 && ix0 + g.kernelWidth <= g.inputWidth
            for ky in 0..<g.kernelHeight {
                let iy = oy * g.stride - g.padTop + ky * g.dilation
                let rowInside = iy >= 0 && iy < g.inputHeight
                if rowInside && contiguousRow {
                    copyFloats(from: src + (iy * g.inputWidth + ix0) * cin, to: dst, count: g.kernelWidth * cin)
                    dst += g.kernelWidth * cin
                    continue
                }
                for kx in 0..<g.kernelWidth {
                    let ix = ox * g.strideWidth - g.padLeft + kx * g.dilation
                    if rowInside && ix >= 0 && ix < g.inputWidth {
                        let from = src + (iy * g.inputWidth + ix) * cin
                        // A library memcpy call costs more than a few floats (RGB input: 3).
                        if cin < 16 {
                            for c in 0..<cin { dst[c] = from[c] }
                        } else {
                            dst.update(from: from, count: cin)
                        }
                    } else {
                        for c in 0..<cin { dst[c] = 0 }
                    }
                    dst += cin
                }
            }
        }
    }
}

/// Copies a short run of floats (an im2col window row: 9 for a 3×3 RGB kernel) with 8-lane
/// vector moves; a library `memcpy` call, which a plain loop turns into, costs more than the copy.
@inline(__always)
func copyFloats(from: UnsafePointer<Float>, to: UnsafeMutablePointer<Float>, count: Int) {
    var i = 0
    while i + 8 <= count {
        UnsafeMutableRawPointer(to + i).storeBytes(of: UnsafeRawPointer(from + i).loadUnaligned(as: SIMD8<Float>.self),
                                                   as: SIMD8<Float>.self)
        i += 8
    }
    while i < count { to[i] = from[i]; i += 1 }
}

extension Convolution {
    /// Bands for the im2col path: as for 1×1 convolutions, but a band's im2col rows
    /// (`rows × k` floats) are also kept within 256 KiB so they stay in L2 while sgemm reads them.
    static func im2colBands(m: Int, k: Int, threads: Int) -> (rows: Int, count: Int) {
        gemmBands(m: m, threads: threads, maxRows: max(64, min(512, 65536 / max(1, k))))
    }

    /// Largest reduction length and output-channel count routed to the small-GEMM kernel.
    public static let smallGEMMLimit = 64

    /// `C = clamp(A·B + bias)` for a small `B` (`k × n`, both ≤ ``smallGEMMLimit``), row-major,
    /// with the bias and activation folded into the accumulators (no separate epilogue).
    ///
    /// Register blocking: 4 rows of `C` × 8 columns in `SIMD8`
    /// accumulators; per step of `k`, one row block of `B` is loaded and multiplied by 4 broadcast
    /// entries of `A`. `B` stays in L1. Remaining columns are done one at a time.
    static func smallGEMMWithEpilogue(
        _ a: UnsafePointer<Float>, rows m: Int, k: Int, _ b: UnsafePointer<Float>, n: Int,
        _ c: UnsafeMutablePointer<Float>, bias: UnsafePointer<Float>?, activation: Activation
    ) {
        let (low, high) = activation.bounds
        var j = 0
        smallGEMMColumns(SIMD8<Float>.self, a, rows: m, k: k, b, n: n, c, bias: bias, low, high, column: &j)
        while j < n {  // output-channel tail, one column at a time
            let start = bias?[j] ?? 0
            for r in 0..<m {
                var acc = start
                let ar = a + r * k
                for t in 0..<k { acc += ar[t] * b[t * n + j] }
                c[r * n + j] = acc < low ? low : (acc > high ? high : acc)
            }
            j += 1
        }
    }

    /// Columns of `C` in blocks of `V.scalarCount`, from `column` while a whole block fits;
    /// advances `column`. 4 rows × 1 block of accumulators per step.
    @inline(__always)
    static func smallGEMMColumns<V: SIMD>(
        _: V.Type, _ a: UnsafePointer<Float>, rows m: Int, k: Int, _ b: UnsafePointer<Float>, n: Int,
        _ c: UnsafeMutablePointer<Float>, bias: UnsafePointer<Float>?, _ low: Float, _ high: Float,
        column j: inout Int
    ) where V.Scalar == Float {
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        @inline(__always) func store(_ v: V, _ p: UnsafeMutablePointer<Float>) {
            UnsafeMutableRawPointer(p).storeBytes(of: v.clampedLanes(low, high), as: V.self)
        }
        while j + V.scalarCount <= n {
            let start = bias.map { load($0 + j) } ?? V()
            var r = 0
            while r + 4 <= m {
                var c0 = start, c1 = start, c2 = start, c3 = start
                let a0 = a + r * k, a1 = a0 + k, a2 = a1 + k, a3 = a2 + k
                for t in 0..<k {
                    let w = load(b + t * n + j)
                    c0.multiplyAdd(V(repeating: a0[t]), w)
                    c1.multiplyAdd(V(repeating: a1[t]), w)
                    c2.multiplyAdd(V(repeating: a2[t]), w)
                    c3.multiplyAdd(V(repeating: a3[t]), w)
                }
                store(c0, c + r * n + j); store(c1, c + (r + 1) * n + j)
                store(c2, c + (r + 2) * n + j); store(c3, c + (r + 3) * n + j)
                r += 4
            }
            while r < m {
                var acc = start
                let ar = a + r * k
                for t in 0..<k { acc.multiplyAdd(V(repeating: ar[t]), load(b + t * n + j)) }
                store(acc, c + r * n + j)
                r += 1
            }
            j += V.scalarCount
        }
    }
}
