/// The vector one half of a packed weight panel fills: one zmm register (16 lanes) when the
/// Tensor target is compiled for AVX-512 (`-D POSEKIT_AVX512`, see Package.swift), else 8 lanes
/// (one ymm register on AVX2; two xmm on the SSE2 baseline).
#if POSEKIT_AVX512
typealias PanelVector = SIMD16<Float>
#else
typealias PanelVector = SIMD8<Float>
#endif

/// Weights and bias of a 1×1 convolution, packed once for
/// ``Convolution/pointwise(_:packed:activation:into:skippingZeroChannels:threads:)`` in the layout of the GEMM
/// ``kernel`` that will multiply them.
///
/// ``GEMMKernel/blas``: the weights stay the row-major `Cin × Cout` matrix OpenBLAS reads.
///
/// ``GEMMKernel/packed`` (`V` = `PanelVector` lanes, 16 with AVX-512, else 8): the `Cout` output channels are
/// cut into **panels** of `2V` channels; panel `p` stores, for k = 0..<Cin, the `2V` weights
/// `W[k, p·2V ..< p·2V + 2V]` contiguously (K-major), so the microkernel reads each panel as one
/// sequential stream of two vector loads per k. The last panel is only `V` wide when at most `V`
/// channels remain, and zero-padded to its width. The bias is zero-padded to the panels' total
/// width.
///
/// Packing costs one pass over the weights; a network packs each layer once when it is built
/// (OpenBLAS's `sgemm` re-packs its `B` operand on every call instead).
public struct PackedPointwiseWeights: @unchecked Sendable {
    /// Cin.
    public let inputChannels: Int
    /// Cout.
    public let outputChannels: Int
    /// The GEMM these weights are laid out for.
    public let kernel: GEMMKernel
    /// Width of a full panel, `2 · PanelVector.scalarCount`.
    static let panelWidth = 2 * PanelVector.scalarCount
    /// Panels `n` output channels take (the last one may be partial).
    static func panelCount(outputChannels n: Int) -> Int { (n + panelWidth - 1) / panelWidth }
    /// The packed panels, or the row-major matrix for OpenBLAS (layouts above), 64-byte aligned.
    let panels: TensorStorage
    /// The bias, zero when none was given, padded to a multiple of ``PanelVector``.
    let bias: TensorStorage

    /// Packs `weights` (`[1, 1, Cin, Cout]` HWIO, or `[Cin, Cout]`) and `bias` (`[Cout]` or nil)
    /// for `kernel` (by default the one this build prefers on this CPU).
    ///
    /// - Throws: ``TensorError`` when the weights are not 1×1 or the bias length is not Cout.
    public init(weights: Tensor, bias: Tensor?, kernel: GEMMKernel = .preferred) throws {
        let (cin, cout): (Int, Int)
        switch weights.shape.count {
        case 4 where weights.shape[0] == 1 && weights.shape[1] == 1: (cin, cout) = (weights.shape[2], weights.shape[3])
        case 2: (cin, cout) = (weights.shape[0], weights.shape[1])
        default: throw TensorError.shapeMismatch("pointwise weights must be [1, 1, Cin, Cout] or [Cin, Cout], got \(weights.shape)")
        }
        try Tensor.requireBias(bias, channels: cout)
        inputChannels = cin
        outputChannels = cout
        self.kernel = kernel
        let v = PanelVector.scalarCount, full = PackedPointwiseWeights.panelWidth
        let paddedWidth = (cout + v - 1) / v * v
        panels = TensorStorage(count: cin * (kernel == .packed ? paddedWidth : cout))
        self.bias = TensorStorage(count: paddedWidth)
        let dst = panels.buffer, biasDst = self.bias.buffer
        weights.withUnsafeBufferPointer { src in
            guard kernel == .packed else {
                for i in 0..<(cin * cout) { dst[i] = src[i] }
                return
            }
            var column = 0
            while column < cout {
                let width = min(full, paddedWidth - column)
                let panel = cin * column  // every earlier panel is full width
                for k in 0..<cin {
                    for j in 0..<width where column + j < cout {
                        dst[panel + k * width + j] = src[k * cout + column + j]
                    }
                }
                column += width
            }
        }
        bias?.withUnsafeBufferPointer { src in for j in 0..<cout { biasDst[j] = src[j] } }
    }
}

extension Convolution {
    /// Output pixels one microkernel call computes (one row of the GEMM each): 8 with AVX-512's
    /// 32 vector registers, 6 with AVX2's 16, 4 on the baseline, where an 8-lane vector is two
    /// of the 16 xmm registers (see ``packedTile(wide:a:lda:segments:segmentLength:segmentStride:rows:panel:panelWidth:bias:low:high:c:ldc:columns:)``).
    #if POSEKIT_AVX512
    static let packedTileRows = 8
    #elseif POSEKIT_FMA
    static let packedTileRows = 6
    #else
    static let packedTileRows = 4
    #endif

    /// Which build of the packed GEMM microkernel this binary holds, for benchmark reports,
    /// e.g. `"8x32 tile, 16-lane vectors (AVX-512)"`.
    public static var packedKernelDescription: String {
        #if POSEKIT_AVX512
        let isa = "AVX-512"
        #elseif POSEKIT_FMA
        let isa = "AVX2+FMA"
        #else
        let isa = "baseline, no FMA"
        #endif
        return "\(packedTileRows)x\(PackedPointwiseWeights.panelWidth) tile, \(PanelVector.scalarCount)-lane vectors (\(isa))"
    }

    /// 1×1 convolution (stride 1) with pre-packed weights, fused bias + activation.
    ///
    /// The same operation as ``pointwise(_:weights:bias:activation:into:threads:)``, computed by
    /// PoseKit's own register-blocked GEMM instead of OpenBLAS: the input `[H, W, Cin]` is read
    /// in place as the `(H·W) × Cin` matrix (each pixel's channels are contiguous, so the
    /// activations need no packing), and each call of the microkernel produces a `packedTileRows`-pixel ×
    /// one-panel tile of the output (8 × 32 floats with AVX-512: 16 zmm accumulators; 6 × 16
    /// with AVX2: 12 ymm), starting from the bias and accumulating over Cin with one broadcast and two fused multiply-adds per
    /// pixel and input channel; bias + activation are applied as the tile is stored.
    ///
    /// Work is split over `threads` cores by contiguous runs of tiles. Each core sweeps its tiles
    /// once per column chunk (`packedColumnChunk(inputChannels:)`, panels holding about
    /// 128 KiB of weights): a tile's inputs (tile rows × Cin floats) stay in L1 across the
    /// chunk's panels, and the chunk stays in L2 across the tiles.
    ///
    /// - Parameters:
    ///   - input: `[H, W, Cin]` (any row band of a larger activation works).
    ///   - packed: the layer's weights and bias.
    ///   - activation: applied after the bias.
    ///   - output: `[H, W, Cout]`, written completely; must not overlap `input`.
    ///   - skippingZeroChannels: leave out of each tile's product the input channels that are
    ///     zero in all of its pixels (ZeroChannels.swift); the same result with finite weights.
    ///     Only the packed GEMM skips, and only where a sample of the tiles shows that it pays
    ///     (enough zeros for the layer's output channels).
    ///   - threads: cores to use (≥ 1).
    /// - Throws: ``TensorError`` when shapes disagree or the output overlaps the input.
    public static func pointwise(
        _ input: Tensor, packed: PackedPointwiseWeights, activation: Activation = .none,
        into output: Tensor, skippingZeroChannels: Bool = true, threads: Int = Parallelism.defaultThreads
    ) throws {
        try input.requireRank(3, "pointwise input")
        let (h, w, cin) = (input.shape[0], input.shape[1], input.shape[2])
        guard cin == packed.inputChannels else {
            throw TensorError.shapeMismatch("pointwise input \(input.shape) has \(cin) channels, packed weights expect \(packed.inputChannels)")
        }
        try output.requireShape([h, w, packed.outputChannels], "pointwise output")
        try output.requireDisjoint(from: input, "pointwise output")
        withExtendedLifetime((input, packed, output)) {
            packedGEMM(a: input.basePointer, m: h * w, packed: packed, c: output.mutableBasePointer,
                       activation: activation, threads: threads, skippingZeroChannels: skippingZeroChannels)
        }
    }

    /// `C = act(A·W + bias)` for row-major `A: m×Cin`, `C: m×Cout`, on `threads` cores, with
    /// the GEMM the weights were packed for; with `skippingZeroChannels`, the packed GEMM leaves
    /// out the input channels that are zero in all of a tile's pixels (ZeroChannels.swift).
    static func packedGEMM(
        a: UnsafePointer<Float>, m: Int, packed: PackedPointwiseWeights, c: UnsafeMutablePointer<Float>,
        activation: Activation, threads: Int, skippingZeroChannels: Bool = false
    ) {
        guard packed.kernel == .packed else {
            gemmWithEpilogue(a: a, m: m, k: packed.inputChannels, b: UnsafePointer(packed.panels.buffer.baseAddress!),
                             n: packed.outputChannels, c: c, bias: UnsafePointer(packed.bias.buffer.baseAddress!),
                             activation: activation, threads: threads, maxRows: 1024)
            return
        }
        let tileRows = packedTileRows
        let tiles = (m + tileRows - 1) / tileRows
        let workers = max(1, min(threads, tiles))
        let k = packed.inputChannels, n = packed.outputChannels
        let (low, high) = activation.bounds
        let chunk = packedColumnChunk(inputChannels: k)
        let panels = PackedPointwiseWeights.panelCount(outputChannels: n)
        let tileFloats = tileRows * k
        let groupSize = max(1, zeroChannelGroupBytes / (tileFloats * MemoryLayout<Float>.stride))
        Parallelism.forEachBand(workers) { worker in
            let share = Parallelism.bandRange(worker, of: workers, count: tiles)
            // Every tile of `run` times each column chunk in turn (the chunk stays in L2).
            func multiplyInFull(_ run: Range<Int>) {
                var columns = 0
                while columns < n {
                    let chunkColumns = columns..<min(n, columns + chunk)
                    for tile in run {
                        let row0 = tile * tileRows
                        packedRowTile(a: a + row0 * k, lda: k, segments: 1, segmentLength: k, segmentStride: 0,
                                      rows: min(tileRows, m - row0), packed: packed, columns: chunkColumns,
                                      low: low, high: high, c: c + row0 * n)
                    }
                    columns = chunkColumns.upperBound
                }
            }
            guard skippingZeroChannels else { return multiplyInFull(share) }
            // Groups of tiles: compact each tile's inputs to its nonzero channels once, then sweep
            // the column chunks over the group (the compacted inputs stay in L2). The first group
            // is also the sample that decides whether scanning pays for the rest of the share.
            let tilesPerGroup = min(groupSize, share.count)
            withUnsafeTemporaryAllocation(of: Float.self, capacity: tilesPerGroup * tileFloats) { compacted in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: tilesPerGroup * k + 8) { channelLists in
                    withUnsafeTemporaryAllocation(of: Int?.self, capacity: tilesPerGroup) { counts in
                        let compacted = compacted.baseAddress!, channelLists = channelLists.baseAddress!
                        let counts = counts.baseAddress!
                        var first = share.lowerBound
                        while first < share.upperBound {
                            // The sample is a short first group, so a layer where scanning does
                            // not pay scans little of each call.
                            let size = first == share.lowerBound ? min(tilesPerGroup, zeroChannelSampleTiles) : tilesPerGroup
                            let group = first..<min(share.upperBound, first + size)
                            var zeroPairs = 0
                            for (i, tile) in group.enumerated() {
                                let row0 = tile * tileRows
                                let scan = compactNonzeroChannels(
                                    a: a + row0 * k, lda: k, rows: min(tileRows, m - row0), channels: k,
                                    outputChannels: n, list: channelLists + i * k, into: compacted + i * tileFloats)
                                zeroPairs += k - scan.count
                                counts[i] = scan.isCompacted ? scan.count : nil
                            }
                            var columns = 0
                            while columns < n {
                                let chunkColumns = columns..<min(n, columns + chunk)
                                for (i, tile) in group.enumerated() {
                                    let row0 = tile * tileRows, rows = min(tileRows, m - row0)
                                    if let count = counts[i] {
                                        packedCompactedRowTile(
                                            a: compacted + i * tileFloats, rows: rows, channels: channelLists + i * k,
                                            count: count, packed: packed, columns: chunkColumns, low: low, high: high,
                                            c: c + row0 * n)
                                    } else {
                                        packedRowTile(a: a + row0 * k, lda: k, segments: 1, segmentLength: k, segmentStride: 0,
                                                      rows: rows, packed: packed, columns: chunkColumns,
                                                      low: low, high: high, c: c + row0 * n)
                                    }
                                }
                                columns = chunkColumns.upperBound
                            }
                            first = group.upperBound
                            if group.lowerBound == share.lowerBound
                                && !skippingPays(zeroPairs: zeroPairs, pairs: group.count * k, panels: panels) {
                                return multiplyInFull(first..<share.upperBound)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Weights per column chunk of ``packedGEMM(a:m:packed:c:activation:threads:)``: a quarter
    /// of a 512 KiB L2, which then also holds the tiles' inputs and outputs.
    static let packedColumnChunkBytes = 128 * 1024

    /// Output channels per column chunk for `k` input channels: whole panels, at least one.
    /// Why chunks: PoseNet's 384 → 384 layers have 576 KiB of weights, more than a 512 KiB L2,
    /// so sweeping every panel for each tile re-read them all from L3 for every six pixels. On a
    /// 512 KiB-L2 Zen 3 with a 32 MiB L3 the chunks measured 0–2% faster on those layers; cores
    /// with a smaller L2 or a busier L3 lose more to the re-reads.
    static func packedColumnChunk(inputChannels k: Int) -> Int {
        let full = PackedPointwiseWeights.panelWidth
        return max(1, packedColumnChunkBytes / max(1, k * full * MemoryLayout<Float>.stride)) * full
    }

    /// One row tile (≤ ``packedTileRows`` output pixels) times the panels of output channels
    /// `columns` (all when nil; a range starts on a panel boundary): `c[r, columns] = clamp(A(r)·W + bias)`.
    ///
    /// Row `r` of `A` is read as `segments` runs of `segmentLength` contiguous floats starting at
    /// `a + r·lda + s·segmentStride` (one run for a plain GEMM; for a convolution, the window rows
    /// of an output pixel read in place from the input image). `c` has row stride Cout.
    /// Only for weights packed for ``GEMMKernel/packed``.
    @inline(__always)
    static func packedRowTile(
        a: UnsafePointer<Float>, lda: Int, segments: Int, segmentLength: Int, segmentStride: Int, rows: Int,
        packed: PackedPointwiseWeights, columns: Range<Int>? = nil, low: Float, high: Float, c: UnsafeMutablePointer<Float>
    ) {
        let k = packed.inputChannels, ldc = packed.outputChannels
        let panels = UnsafePointer(packed.panels.buffer.baseAddress!)
        let bias = UnsafePointer(packed.bias.buffer.baseAddress!)
        let v = PanelVector.scalarCount, full = PackedPointwiseWeights.panelWidth
        var column = columns?.lowerBound ?? 0
        let end = columns?.upperBound ?? ldc
        while column < end {
            let remaining = end - column
            let panel = panels + k * column
            if remaining > v {
                packedTile(wide: true, a: a, lda: lda, segments: segments, segmentLength: segmentLength,
                           segmentStride: segmentStride, rows: rows, panel: panel, panelWidth: full,
                           bias: bias + column, low: low, high: high, c: c + column, ldc: ldc, columns: min(full, remaining))
                column += full
            } else {
                packedNarrowTile(a: a, lda: lda, segments: segments, segmentLength: segmentLength,
                                 segmentStride: segmentStride, rows: rows, panel: panel,
                                 bias: bias + column, low: low, high: high, c: c + column, ldc: ldc, columns: remaining)
                column += v
            }
        }
    }

    /// The microkernel for a last panel of one vector (``packedTile(wide:a:lda:segments:segmentLength:segmentStride:rows:panel:panelWidth:bias:low:high:c:ldc:columns:)``
    /// with `wide` false), compiled once on its own: inlining a second copy of the microkernel
    /// into every caller is more than the optimizer will do, and the copy it then calls decides
    /// `wide` inside the loop.
    @inline(never)
    static func packedNarrowTile(
        a: UnsafePointer<Float>, lda: Int, segments: Int, segmentLength: Int, segmentStride: Int,
        rows: Int, panel: UnsafePointer<Float>, bias: UnsafePointer<Float>, low: Float, high: Float,
        c: UnsafeMutablePointer<Float>, ldc: Int, columns: Int
    ) {
        packedTile(wide: false, a: a, lda: lda, segments: segments, segmentLength: segmentLength,
                   segmentStride: segmentStride, rows: rows, panel: panel, panelWidth: PanelVector.scalarCount,
                   bias: bias, low: low, high: high, c: c, ldc: ldc, columns: columns)
    }

    /// The microkernel: `rows` (≤ ``packedTileRows``) output pixels × one panel (`wide`: two vectors, else one).
    ///
    /// The rows × 2 accumulators (``TileAccumulators``) stay in registers for the whole k loop;
    /// with AVX2, 6 × 2 plus the two weight vectors and one broadcast fill all 16 ymm registers,
    /// the classic Haswell SGEMM shape (12 FMAs per 2 loads + 6 broadcasts; 8 rows spilled
    /// accumulators to the stack every step and ran 4× slower). Rows past `rows` re-read the
    /// tile's first pixel and are not stored, so a partial tile costs no branch inside the loop.
    /// `columns` may be less than the panel width only for the last panel; those lanes are not
    /// stored. (Statement order matters to the register allocator here: creating the
    /// accumulators after the row pointers made the dense layers 1.07–1.16× slower.)
    @inline(__always)
    static func packedTile(
        wide: Bool, a: UnsafePointer<Float>, lda: Int, segments: Int, segmentLength: Int, segmentStride: Int,
        rows: Int, panel: UnsafePointer<Float>, panelWidth: Int,
        bias: UnsafePointer<Float>, low: Float, high: Float,
        c: UnsafeMutablePointer<Float>, ldc: Int, columns: Int
    ) {
        typealias V = PanelVector
        let v = V.scalarCount
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        @inline(__always) func row(_ r: Int) -> UnsafePointer<Float> { a + (r < rows ? r : 0) * lda }
        var acc = TileAccumulators(bias: bias, wide: wide)
        var a0 = row(0), a1 = row(1), a2 = row(2), a3 = row(3)
        #if POSEKIT_FMA
        var a4 = row(4), a5 = row(5)
        #endif
        #if POSEKIT_AVX512
        var a6 = row(6), a7 = row(7)
        #endif
        var b = panel
        for _ in 0..<segments {
            if wide {
                for kk in 0..<segmentLength {
                    let w0 = load(b), w1 = load(b + v)
                    var x = V(repeating: a0[kk]); acc.c00.multiplyAdd(x, w0); acc.c01.multiplyAdd(x, w1)
                    x = V(repeating: a1[kk]); acc.c10.multiplyAdd(x, w0); acc.c11.multiplyAdd(x, w1)
                    x = V(repeating: a2[kk]); acc.c20.multiplyAdd(x, w0); acc.c21.multiplyAdd(x, w1)
                    x = V(repeating: a3[kk]); acc.c30.multiplyAdd(x, w0); acc.c31.multiplyAdd(x, w1)
                    #if POSEKIT_FMA
                    x = V(repeating: a4[kk]); acc.c40.multiplyAdd(x, w0); acc.c41.multiplyAdd(x, w1)
                    x = V(repeating: a5[kk]); acc.c50.multiplyAdd(x, w0); acc.c51.multiplyAdd(x, w1)
                    #endif
                    #if POSEKIT_AVX512
                    x = V(repeating: a6[kk]); acc.c60.multiplyAdd(x, w0); acc.c61.multiplyAdd(x, w1)
                    x = V(repeating: a7[kk]); acc.c70.multiplyAdd(x, w0); acc.c71.multiplyAdd(x, w1)
                    #endif
                    b += panelWidth
                }
            } else {
                for kk in 0..<segmentLength {
                    let w0 = load(b)
                    acc.c00.multiplyAdd(V(repeating: a0[kk]), w0)
                    acc.c10.multiplyAdd(V(repeating: a1[kk]), w0)
                    acc.c20.multiplyAdd(V(repeating: a2[kk]), w0)
                    acc.c30.multiplyAdd(V(repeating: a3[kk]), w0)
                    #if POSEKIT_FMA
                    acc.c40.multiplyAdd(V(repeating: a4[kk]), w0)
                    acc.c50.multiplyAdd(V(repeating: a5[kk]), w0)
                    #endif
                    #if POSEKIT_AVX512
                    acc.c60.multiplyAdd(V(repeating: a6[kk]), w0)
                    acc.c70.multiplyAdd(V(repeating: a7[kk]), w0)
                    #endif
                    b += panelWidth
                }
            }
            a0 += segmentStride; a1 += segmentStride; a2 += segmentStride; a3 += segmentStride
            #if POSEKIT_FMA
            a4 += segmentStride; a5 += segmentStride
            #endif
            #if POSEKIT_AVX512
            a6 += segmentStride; a7 += segmentStride
            #endif
        }
        acc.store(rows: rows, columns: columns, wide: wide, low: low, high: high, c: c, ldc: ldc)
    }
}
