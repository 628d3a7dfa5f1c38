extension Convolution {
    /// Bytes of depthwise output a band of ``separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:skippingRows:skippingColumns:skippingZeroChannels:threads:)``
    /// holds: small enough that the band, its pointwise output and the pointwise panels share a
    /// core's L2 (1–2 MiB on current x86 cores).
    static let separableBandBytes = 96 * 1024

    /// Output rows per band of a separable block with output width `width` and `channels` depthwise channels:
    /// ~``separableBandBytes`` of depthwise output, but at least 128 pixels for the packed GEMM,
    /// because its microkernel computes whole 8-pixel tiles and a band's last partial tile is
    /// wasted work (one 33-pixel row would waste 7 of 40 pixels), and at least 512 for
    /// OpenBLAS, which re-packs the whole weight matrix on every call.
    static func separableBandRows(width: Int, channels: Int, kernel: GEMMKernel) -> Int {
        let byBytes = separableBandBytes / max(1, width * channels * MemoryLayout<Float>.stride)
        let minimumPixels = kernel == .packed ? 128 : 512
        return max(1, byBytes, (minimumPixels + width - 1) / max(1, width))
    }

    /// Floats of scratch ``separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:skippingRows:skippingColumns:skippingZeroChannels:threads:)``
    /// needs for an output `width` pixels wide with `channels` depthwise channels on `threads`
    /// cores, with pointwise weights packed for `kernel`.
    public static func separableWorkspaceCount(width: Int, channels: Int, threads: Int,
                                               kernel: GEMMKernel = .preferred) -> Int {
        max(1, threads) * separableBandRows(width: width, channels: channels, kernel: kernel) * width * channels
    }

    /// Whether skipping `columns` saves work with weights packed for `kernel`. Skipped columns cut
    /// every row's pixels into separate GEMM runs, and each run may end in a partial tile, which
    /// costs as much as a whole one: skipping pays when more columns than a tile's pixels are
    /// skipped. OpenBLAS re-packs the weights on every call, so one call per run never pays.
    static func skipsColumns(_ columns: Range<Int>, _ packed: PackedPointwiseWeights) -> Bool {
        packed.kernel == .packed && columns.count > packed.tileRows
    }

    /// A MobileNet block: depthwise 3×3 + bias + activation, then pointwise 1×1 + bias + activation,
    /// fused band by band so the depthwise output never leaves the core's cache.
    ///
    /// The output rows (all but `skippingRows`) are split into contiguous runs, one per core; each
    /// core walks its run in bands of a few rows (~96 KiB of depthwise output), computing the
    /// band's depthwise output into its own slice of `workspace` (``depthwise3x3(_:weights:bias:stride:dilation:padding:activation:into:outputRows:threads:)``'s
    /// row kernel) and at once the band's pointwise output with the packed GEMM microkernel
    /// (``pointwise(_:packed:activation:into:skippingZeroChannels:threads:)``). Compared with the two layers run one
    /// after the other, this saves writing and re-reading the whole depthwise activation (up to
    /// 6 MiB at PoseNet's 513 input) and one fork/join of the cores. Padding is SAME.
    ///
    /// - Parameters:
    ///   - input: `[H, W, C]`.
    ///   - depthwiseWeights: `[3, 3, C]` (or `[3, 3, C, 1]`).
    ///   - depthwiseBias: `[C]`, or nil.
    ///   - stride: depthwise stride, 1 or 2.
    ///   - dilation: depthwise dilation, ≥ 1.
    ///   - packed: the pointwise weights and bias, `C → Cout`.
    ///   - activation: applied after each of the two convolutions (ReLU6 in MobileNet).
    ///   - output: `[outH, outW, Cout]` (SAME geometry); must not overlap `input`.
    ///   - workspace: scratch, grown to ``separableWorkspaceCount(width:channels:threads:kernel:)`` floats
    ///     if smaller; one workspace must not be used by two calls at once.
    ///   - skippingRows: output rows not to compute; they are left as they are. A network skips
    ///     rows it knows equal another one (``ConvolutionGeometry/outputRows(readingOnly:)``).
    ///   - skippingColumns: output columns that need not be computed (equal to another one in
    ///     every row, ``ConvolutionGeometry/outputColumns(readingOnly:)``); their values afterwards
    ///     are unspecified. They are skipped only when that pays (`skipsColumns(_:_:)`).
    ///   - skippingZeroChannels: leave out of the pointwise products the depthwise output
    ///     channels that are zero in all of a tile's pixels, as ``pointwise(_:packed:activation:into:skippingZeroChannels:threads:)``.
    ///   - threads: cores to use (≥ 1).
    /// - Throws: ``TensorError`` on shape mismatches or unsupported strides.
    public static func separable(
        _ input: Tensor, depthwiseWeights: Tensor, depthwiseBias: Tensor?, stride: Int = 1, dilation: Int = 1,
        packed: PackedPointwiseWeights, activation: Activation = .none, into output: Tensor,
        workspace: ConvolutionWorkspace, skippingRows: Range<Int> = 0..<0, skippingColumns: Range<Int> = 0..<0,
        skippingZeroChannels: Bool = true, threads: Int = Parallelism.defaultThreads
    ) throws {
        let block = SeparableBlock(depthwiseWeights: depthwiseWeights, depthwiseBias: depthwiseBias, stride: stride,
                                   dilation: dilation, packed: packed, activation: activation)
        let g = try block.geometry(input: input, output: output)
        let rowsToCompute = SkippedRows(count: g.outputHeight, skipping: skippingRows)
        let columns = SkippedRows(count: g.outputWidth, skipping: skipsColumns(skippingColumns, packed) ? skippingColumns : 0..<0)
        guard rowsToCompute.computed > 0 else { return }
        let workers = max(1, min(threads, rowsToCompute.computed))
        workspace.reserve(count: workers * block.bandFloats(g))
        withExtendedLifetime((input, block, output, workspace)) {
            let rows = SeparableRows(block, g, input: input.basePointer, output: output.mutableBasePointer,
                                     skippingColumns: columns.skipped)
            let scratchBase = workspace.base
            Parallelism.forEachBand(workers) { worker in
                let share = Parallelism.bandRange(worker, of: workers, count: rowsToCompute.computed)
                var skipping = skippingZeroChannels
                rowsToCompute.forEachRun(share) { run in
                    rows.compute(run, band: scratchBase + worker * block.bandFloats(g), skipping: &skipping)
                }
            }
        }
    }
}
