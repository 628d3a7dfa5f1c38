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
        try input.requireRank(3, "separable input")
        let (h, w, c) = (input.shape[0], input.shape[1], input.shape[2])
        guard depthwiseWeights.count == 9 * c, depthwiseWeights.rank >= 3,
              depthwiseWeights.shape[0] == 3, depthwiseWeights.shape[1] == 3, depthwiseWeights.shape[2] == c else {
            throw TensorError.shapeMismatch("depthwise weights must be [3, 3, \(c)] for input \(input.shape), got \(depthwiseWeights.shape)")
        }
        guard stride == 1 || stride == 2 else {
            throw TensorError.unsupported("depthwise stride \(stride); only 1 and 2 are implemented")
        }
        try Tensor.requireBias(depthwiseBias, channels: c)
        guard packed.inputChannels == c else {
            throw TensorError.shapeMismatch("pointwise weights expect \(packed.inputChannels) channels, depthwise gives \(c)")
        }
        let g = try ConvolutionGeometry(
            inputHeight: h, inputWidth: w, kernelHeight: 3, kernelWidth: 3, stride: stride, dilation: dilation, padding: .same)
        let (oh, ow, cout) = (g.outputHeight, g.outputWidth, packed.outputChannels)
        try output.requireShape([oh, ow, cout], "separable output")
        try output.requireDisjoint(from: input, "separable output")

        let bandRows = separableBandRows(width: ow, channels: c, kernel: packed.kernel)
        let rowsToCompute = SkippedRows(count: oh, skipping: skippingRows)
        let columns = SkippedRows(count: ow, skipping: skipsColumns(skippingColumns, packed) ? skippingColumns : 0..<0)
        guard rowsToCompute.computed > 0 else { return }
        let workers = max(1, min(threads, rowsToCompute.computed))
        workspace.reserve(count: separableWorkspaceCount(width: ow, channels: c, threads: workers, kernel: packed.kernel))
        let (low, high) = activation.bounds
        withExtendedLifetime((input, depthwiseWeights, depthwiseBias, packed, output, workspace)) {
            let src = input.basePointer, wts = depthwiseWeights.basePointer, bias = depthwiseBias?.basePointer
            let dst = output.mutableBasePointer, scratchBase = workspace.base
            Parallelism.forEachBand(workers) { worker in
                let band = scratchBase + worker * bandRows * ow * c
                let share = Parallelism.bandRange(worker, of: workers, count: rowsToCompute.computed)
                rowsToCompute.forEachRun(share) { run in
                    var row = run.lowerBound
                    while row < run.upperBound {
                        let rows = min(bandRows, run.upperBound - row)
                        depthwiseRows(src, wts, bias, g, c, low, high, outputRows: row..<(row + rows),
                                      skippingColumns: columns.skipped, isa: packed.isa, into: band)
                        if columns.skipped.isEmpty {
                            packedGEMM(a: band, m: rows * ow, packed: packed, c: dst + row * ow * cout,
                                       epilogue: KernelEpilogue(activation), threads: 1, skippingZeroChannels: skippingZeroChannels)
                        } else {
                            // The kept pixels between one row's skipped columns and the next row's
                            // are contiguous (the row's right part, the next row's left part): one
                            // GEMM each, so a partial tile is wasted once per row, not per part.
                            func gemm(_ pixels: Range<Int>) {
                                guard !pixels.isEmpty else { return }
                                packedGEMM(a: band + pixels.lowerBound * c, m: pixels.count, packed: packed,
                                           c: dst + (row * ow + pixels.lowerBound) * cout, epilogue: KernelEpilogue(activation),
                                           threads: 1, skippingZeroChannels: skippingZeroChannels)
                            }
                            var start = 0
                            for r in 0..<rows {
                                gemm(start..<(r * ow + columns.skipped.lowerBound))
                                start = r * ow + columns.skipped.upperBound
                            }
                            gemm(start..<(rows * ow))
                        }
                        row += rows
                    }
                }
            }
        }
    }
}
