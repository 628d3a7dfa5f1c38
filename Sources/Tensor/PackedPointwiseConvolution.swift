/// Weights and bias of a 1×1 convolution, packed once for
/// ``Convolution/pointwise(_:packed:activation:into:skippingZeroChannels:threads:)`` in the layout of the GEMM
/// ``kernel`` that will multiply them.
///
/// ``GEMMKernel/blas``: the weights stay the row-major `Cin × Cout` matrix OpenBLAS reads.
///
/// ``GEMMKernel/packed`` (`V` = the vector lanes of ``isa``: 16 with AVX-512, 8 with AVX2, 4 on the baseline): the `Cout` output channels are
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
    /// The instruction set whose packed microkernel multiplies them (its vector width sets the
    /// panels'); chosen at run time (``KernelISA/preferred``).
    public let isa: KernelISA
    /// That instruction set's microkernel.
    let microkernel: PackedMicrokernel
    /// Output pixels one microkernel call computes.
    var tileRows: Int { microkernel.tileRows }
    /// Width of a full panel (two vectors).
    var panelWidth: Int { microkernel.panelWidth }
    /// Panels `n` output channels take (the last one may be partial) with panels `panelWidth` wide.
    static func panelCount(outputChannels n: Int, panelWidth: Int = KernelISA.preferred.packedGEMM.panelWidth) -> Int {
        (n + panelWidth - 1) / panelWidth
    }
    /// The packed panels, or the row-major matrix for OpenBLAS (layouts above), 64-byte aligned.
    let panels: TensorStorage
    /// The bias, zero when none was given, padded to a multiple of the microkernel's vector.
    let bias: TensorStorage
    /// The same weights in int8 or bf16 panels when ``converted(to:kernel:)`` (ReducedPrecisionGEMM.swift); nil for fp32.
    var reduced: ReducedPrecisionPanels? = nil

    /// Packs `weights` (`[1, 1, Cin, Cout]` HWIO, or `[Cin, Cout]`) and `bias` (`[Cout]` or nil)
    /// for `kernel` and the microkernel of `isa` (by default the ones preferred on this CPU).
    ///
    /// - Throws: ``TensorError`` when the weights are not 1×1 or the bias length is not Cout, or
    ///   when `isa` is not one this CPU runs (``KernelISA/supported``).
    public init(weights: Tensor, bias: Tensor?, kernel: GEMMKernel = .preferred, isa: KernelISA = .preferred) throws {
        let (cin, cout): (Int, Int)
        switch weights.shape.count {
        case 4 where weights.shape[0] == 1 && weights.shape[1] == 1: (cin, cout) = (weights.shape[2], weights.shape[3])
        case 2: (cin, cout) = (weights.shape[0], weights.shape[1])
        default: throw TensorError.shapeMismatch("pointwise weights must be [1, 1, Cin, Cout] or [Cin, Cout], got \(weights.shape)")
        }
        try Tensor.requireBias(bias, channels: cout)
        self = try withExtendedLifetime((weights, bias)) {
            try PackedPointwiseWeights(matrix: weights.basePointer, rows: cin, columns: cout, bias: bias?.basePointer,
                                       kernel: kernel, isa: isa)
        }
    }

    /// Packs the row-major `rows × columns` matrix at `matrix` (Cin × Cout: a weight matrix, or any
    /// right-hand operand used more than once, such as Create ML's im2col columns) and `bias`
    /// (`columns` floats, or nil) for `kernel` and the microkernel of `isa`.
    ///
    /// - Throws: ``TensorError`` when a size is not positive or `isa` is not one this CPU runs.
    public init(matrix: UnsafePointer<Float>, rows cin: Int, columns cout: Int, bias: UnsafePointer<Float>?,
                kernel: GEMMKernel = .preferred, isa: KernelISA = .preferred) throws {
        guard cin > 0, cout > 0 else { throw TensorError.shapeMismatch("packed matrix \(cin)x\(cout) is empty") }
        guard KernelISA.supported.contains(isa) else {
            throw TensorError.unsupported("packed GEMM for \(isa.name): this CPU lacks it")
        }
        inputChannels = cin
        outputChannels = cout
        self.kernel = kernel
        self.isa = isa
        microkernel = isa.packedGEMM
        let v = microkernel.vectorLanes, full = microkernel.panelWidth
        let paddedWidth = (cout + v - 1) / v * v
        // Every float is written below (a last panel's padding with zeros): no zero-filling pass.
        panels = TensorStorage(uninitializedCount: cin * (kernel == .packed ? paddedWidth : cout))
        self.bias = TensorStorage(count: paddedWidth)
        let dst = panels.buffer.baseAddress!
        if kernel == .packed {
            var column = 0
            while column < cout {
                let width = min(full, paddedWidth - column)
                let panel = dst + cin * column  // every earlier panel is full width
                let stored = min(width, cout - column)
                for k in 0..<cin {
                    // Vector moves: a library memmove call per panel row costs more than its 16–32 floats.
                    copyFloats(from: matrix + k * cout + column, to: panel + k * width, count: stored)
                    for j in stored..<width { panel[k * width + j] = 0 }
                }
                column += width
            }
        } else {
            dst.update(from: matrix, count: cin * cout)
        }
        if let bias { self.bias.buffer.baseAddress!.update(from: bias, count: cout) }
    }
}

extension Convolution {
    /// Output pixels one call of the preferred microkernel computes (one row of the GEMM each):
    /// 8 with AVX-512's 32 vector registers, 6 with 16 (AVX2, SSE2). Weights carry their own
    /// (``PackedPointwiseWeights/isa``).
    static var packedTileRows: Int { KernelISA.preferred.packedGEMM.tileRows }

    /// Which copy of the packed GEMM microkernel runs on this CPU, for benchmark reports,
    /// e.g. `"8x32 tile, 16-lane vectors (AVX-512)"`.
    public static var packedKernelDescription: String { packedKernelDescription(KernelISA.preferred) }

    /// The packed GEMM microkernel of `isa`, e.g. `"6x16 tile, 8-lane vectors (AVX2+FMA)"`.
    public static func packedKernelDescription(_ isa: KernelISA) -> String {
        let kernel = isa.packedGEMM
        return "\(kernel.tileRows)x\(kernel.panelWidth) tile, \(kernel.vectorLanes)-lane vectors (\(isa.name))"
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
        try pointwise(input, packed: packed, epilogue: Epilogue(activation: activation), into: output,
                      skippingZeroChannels: skippingZeroChannels, threads: threads)
    }

    /// ``pointwise(_:packed:activation:into:skippingZeroChannels:threads:)`` with a whole
    /// ``Epilogue``: a residual added and a PReLU applied as each tile is stored (a graph's
    /// `CONV_2D` → `ADD` → `PRELU` in one pass).
    ///
    /// - Throws: ``TensorError`` when shapes disagree, the output overlaps the input, or the
    ///   epilogue does not fit the output.
    public static func pointwise(
        _ input: Tensor, packed: PackedPointwiseWeights, epilogue: Epilogue,
        into output: Tensor, skippingZeroChannels: Bool = true, threads: Int = Parallelism.defaultThreads
    ) throws {
        try input.requireRank(3, "pointwise input")
        let (h, w, cin) = (input.shape[0], input.shape[1], input.shape[2])
        guard cin == packed.inputChannels else {
            throw TensorError.shapeMismatch("pointwise input \(input.shape) has \(cin) channels, packed weights expect \(packed.inputChannels)")
        }
        try output.requireShape([h, w, packed.outputChannels], "pointwise output")
        try output.requireDisjoint(from: input, "pointwise output")
        try epilogue.check(output: output)
        withExtendedLifetime((input, packed, output)) {
            epilogue.withKernelEpilogue { epilogue in
                _ = packedGEMM(a: input.basePointer, m: h * w, packed: packed, c: output.mutableBasePointer,
                               epilogue: epilogue, threads: threads, skippingZeroChannels: skippingZeroChannels)
            }
        }
    }

    /// `C = epilogue(A·W + bias)` for row-major `A: m×Cin`, `C: m×Cout`, on `threads` cores, with
    /// the GEMM the weights were packed for; with `skippingZeroChannels`, the packed GEMM leaves
    /// out the input channels that are zero in all of a tile's pixels (ZeroChannels.swift).
    /// The epilogue's residual is aligned with `c`.
    ///
    /// Returns whether skipping went on past its sample (with one core; with more, or without
    /// skipping, `skippingZeroChannels`): a caller cutting one layer into many calls (a band at a
    /// time) passes it to the next call, so the layer is sampled once, not in every band.
    @discardableResult
    static func packedGEMM(
        a: UnsafePointer<Float>, m: Int, packed: PackedPointwiseWeights, c: UnsafeMutablePointer<Float>,
        epilogue: KernelEpilogue, threads: Int, skippingZeroChannels: Bool = false
    ) -> Bool {
        if let reduced = packed.reduced {
            reducedPrecisionGEMM(a: a, m: m, panels: reduced, c: c, epilogue: epilogue, threads: threads)
            return skippingZeroChannels
        }
        guard packed.kernel == .packed else {
            gemmWithEpilogue(a: a, m: m, k: packed.inputChannels, b: UnsafePointer(packed.panels.buffer.baseAddress!),
                             n: packed.outputChannels, c: c, bias: UnsafePointer(packed.bias.buffer.baseAddress!),
                             epilogue: epilogue, threads: threads, maxRows: 1024)
            return skippingZeroChannels
        }
        let tileRows = packed.tileRows
        let tiles = (m + tileRows - 1) / tileRows
        // The rows spread evenly over the tiles: a 7×7 map's 49 pixels are 7 tiles of 7 rows, not
        // 6 of 8 and one of 1 (a tile costs in proportion to its rows, but a 1-row tile cannot keep
        // the multiply-add units busy).
        let rowsPerTile = (m + tiles - 1) / tiles
        let workers = max(1, min(threads, tiles))
        let k = packed.inputChannels, n = packed.outputChannels
        let chunk = packedColumnChunk(inputChannels: k, panelWidth: packed.panelWidth)
        let panels = PackedPointwiseWeights.panelCount(outputChannels: n, panelWidth: packed.panelWidth)
        let tileFloats = tileRows * k
        let groupSize = max(1, zeroChannelGroupBytes / (tileFloats * MemoryLayout<Float>.stride))
        var keptSkipping = skippingZeroChannels  // written only with one worker
        Parallelism.forEachBand(workers) { worker in
            let share = Parallelism.bandRange(worker, of: workers, count: tiles)
            // Every tile of `run` times each column chunk in turn (the chunk stays in L2).
            func multiplyInFull(_ run: Range<Int>) {
                var columns = 0
                while columns < n {
                    let chunkColumns = columns..<min(n, columns + chunk)
                    for tile in run {
                        let row0 = tile * rowsPerTile
                        packedRowTile(a: a + row0 * k, lda: k, segments: 1, segmentLength: k, segmentStride: 0,
                                      rows: min(rowsPerTile, m - row0), packed: packed, columns: chunkColumns,
                                      epilogue: epilogue, at: row0 * n, c: c)
                    }
                    columns = chunkColumns.upperBound
                }
            }
            guard skippingZeroChannels else { return multiplyInFull(share) }
            // Groups of tiles: list each tile's nonzero channels once, then sweep the column chunks
            // over the group (its tiles stay in L2). The first group is also the sample that
            // decides whether scanning pays for the rest of the share.
            let tilesPerGroup = min(groupSize, share.count)
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: tilesPerGroup * k + 8) { channelLists in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: tilesPerGroup) { counts in
                    let channelLists = channelLists.baseAddress!, counts = counts.baseAddress!
                    var first = share.lowerBound
                    while first < share.upperBound {
                        // The sample is a short first group, so a layer where scanning does
                        // not pay scans little of each call.
                        let size = first == share.lowerBound ? min(tilesPerGroup, zeroChannelSampleTiles) : tilesPerGroup
                        let group = first..<min(share.upperBound, first + size)
                        var zeroPairs = 0
                        for (i, tile) in group.enumerated() {
                            let row0 = tile * rowsPerTile
                            counts[i] = nonzeroChannels(a: a + row0 * k, lda: k, rows: min(rowsPerTile, m - row0),
                                                        channels: k, into: channelLists + i * k)
                            zeroPairs += k - counts[i]
                        }
                        var columns = 0
                        while columns < n {
                            let chunkColumns = columns..<min(n, columns + chunk)
                            for (i, tile) in group.enumerated() {
                                let row0 = tile * rowsPerTile, rows = min(rowsPerTile, m - row0)
                                if counts[i] < k {
                                    packedCompactedRowTile(
                                        a: a + row0 * k, lda: k, rows: rows, channels: channelLists + i * k,
                                        count: counts[i], packed: packed, columns: chunkColumns, epilogue: epilogue,
                                        at: row0 * n, c: c)
                                } else {
                                    packedRowTile(a: a + row0 * k, lda: k, segments: 1, segmentLength: k, segmentStride: 0,
                                                  rows: rows, packed: packed, columns: chunkColumns,
                                                  epilogue: epilogue, at: row0 * n, c: c)
                                }
                            }
                            columns = chunkColumns.upperBound
                        }
                        first = group.upperBound
                        if group.lowerBound == share.lowerBound
                            && !skippingPays(zeroPairs: zeroPairs, pairs: group.count * k, panels: panels) {
                            if workers == 1 { keptSkipping = false }
                            return multiplyInFull(first..<share.upperBound)
                        }
                    }
                }
            }
        }
        return keptSkipping
    }

    /// Weights per column chunk of `packedGEMM(a:m:packed:c:epilogue:threads:skippingZeroChannels:)`: a quarter
    /// of a 512 KiB L2, which then also holds the tiles' inputs and outputs.
    static let packedColumnChunkBytes = 128 * 1024

    /// Output channels per column chunk for `k` input channels: whole panels, at least one.
    /// Why chunks: PoseNet's 384 → 384 layers have 576 KiB of weights, more than a 512 KiB L2,
    /// so sweeping every panel for each tile re-read them all from L3 for every six pixels. On a
    /// 512 KiB-L2 Zen 3 with a 32 MiB L3 the chunks measured 0–2% faster on those layers; cores
    /// with a smaller L2 or a busier L3 lose more to the re-reads.
    static func packedColumnChunk(inputChannels k: Int, panelWidth full: Int) -> Int {
        return max(1, packedColumnChunkBytes / max(1, k * full * MemoryLayout<Float>.stride)) * full
    }

    /// One row tile (≤ the weights' `tileRows` output pixels) times the panels of output channels
    /// `columns` (all when nil; a range starts on a panel boundary): `c[r, columns] = epilogue(A(r)·W + bias)`.
    ///
    /// Row `r` of `A` is read as `segments` runs of `segmentLength` contiguous floats starting at
    /// `a + r·lda + s·segmentStride` (one run for a plain GEMM; for a convolution, the window rows
    /// of an output pixel read in place from the input image). The tile's output starts at
    /// `c + offset` (the epilogue's residual likewise, `epilogue` being aligned with `c`), row stride Cout.
    /// Only for weights packed for ``GEMMKernel/packed``: the weights' instruction set's copy of
    /// the microkernel (CKernels' packed_gemm_template.h) computes it.
    @inline(__always)
    static func packedRowTile(
        a: UnsafePointer<Float>, lda: Int, segments: Int, segmentLength: Int, segmentStride: Int, rows: Int,
        packed: PackedPointwiseWeights, columns: Range<Int>? = nil, epilogue: KernelEpilogue, at offset: Int,
        c: UnsafeMutablePointer<Float>
    ) {
        var tileEpilogue = epilogue.tile(offset)
        packed.microkernel.rowTile(
            a, lda, segments, segmentLength, segmentStride, rows,
            packed.panels.buffer.baseAddress!, packed.bias.buffer.baseAddress!, packed.inputChannels, packed.outputChannels,
            columns?.lowerBound ?? 0, columns?.upperBound ?? packed.outputChannels, &tileEpilogue, c + offset)
    }
}
