extension Convolution {
    /// Floats of scratch ``separableChain(_:_:into:_:into:workspace:skippingZeroChannels:threads:)``
    /// needs on `threads` cores: each core's depthwise band of both blocks.
    /// `first` and `second` are the blocks' depthwise windows over their inputs.
    public static func separableChainWorkspaceCount(_ firstBlock: SeparableBlock, _ first: ConvolutionGeometry,
                                                    _ secondBlock: SeparableBlock, _ second: ConvolutionGeometry,
                                                    threads: Int) -> Int {
        max(1, threads) * (firstBlock.bandFloats(first) + secondBlock.bandFloats(second))
    }

    /// Two MobileNet blocks in a row, the second reading the first's output as it is made: the
    /// values of ``separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:skippingRows:skippingColumns:skippingZeroChannels:threads:)``
    /// run twice, in another order.
    ///
    /// Why: PoseNet's early activations (12.7 MiB after block 1 at its 513 input) are larger than
    /// the last-level cache of the CPUs it runs on (8 MiB on a Zen 1 EPYC), so block 2's depthwise
    /// read its input back from memory: 2.0 ms against 0.57 ms from cache on one Zen 1 core
    /// (docs/speed.md). Here each core computes a few rows of `intermediate` and at once the rows
    /// of `output` that read them, while they are in its L2.
    ///
    /// The output rows are split into one contiguous run per core; a core owns the rows of
    /// `intermediate` from the first one its run reads up to the first the next core's run reads,
    /// and computes them all. An output row that reads a row the next core owns (the last of a
    /// run, one per core) is computed after the cores have finished. Every row of `intermediate`
    /// is written, so it holds what the first block alone gives.
    ///
    /// - Parameters:
    ///   - input: `[H, W, C]`, the first block's input.
    ///   - intermediate: the first block's output (SAME geometry); must not overlap `input` or `output`.
    ///   - output: the second block's output; must not overlap `intermediate` or `input`.
    ///   - workspace: scratch, grown to ``separableChainWorkspaceCount(_:_:_:_:threads:)`` if smaller.
    ///   - skippingZeroChannels: as for ``separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:skippingRows:skippingColumns:skippingZeroChannels:threads:)``.
    /// - Throws: ``TensorError`` on shape mismatches or unsupported strides.
    public static func separableChain(
        _ input: Tensor, _ first: SeparableBlock, into intermediate: Tensor, _ second: SeparableBlock, into output: Tensor,
        workspace: ConvolutionWorkspace, skippingZeroChannels: Bool = true, threads: Int = Parallelism.defaultThreads
    ) throws {
        let gA = try first.geometry(input: input, output: intermediate)
        let gB = try second.geometry(input: intermediate, output: output)
        try output.requireDisjoint(from: input, "separable chain output")
        let (rowsA, rowsB) = (gA.outputHeight, gB.outputHeight)
        let workers = max(1, min(threads, rowsB))
        let (bandA, bandB) = (first.bandFloats(gA), second.bandFloats(gB))
        workspace.reserve(count: workers * (bandA + bandB))
        // The first row of `intermediate` that core `worker`'s run reads (core `workers`: its end).
        func ownedStart(_ worker: Int) -> Int {
            guard worker > 0 else { return 0 }
            guard worker < workers else { return rowsA }
            let row = Parallelism.bandRange(worker, of: workers, count: rowsB).lowerBound
            return gB.inputRows(readBy: row..<(row + 1)).lowerBound
        }
        withExtendedLifetime((input, first, intermediate, second, output, workspace)) {
            let a = SeparableRows(first, gA, input: input.basePointer, output: intermediate.mutableBasePointer,
                                  skippingColumns: 0..<0, skippingZeroChannels: skippingZeroChannels)
            let b = SeparableRows(second, gB, input: intermediate.basePointer, output: output.mutableBasePointer,
                                  skippingColumns: 0..<0, skippingZeroChannels: skippingZeroChannels)
            let scratch = workspace.base
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: workers) { deferred in
                let deferred = deferred.baseAddress!
                Parallelism.forEachBand(workers) { worker in
                    let run = Parallelism.bandRange(worker, of: workers, count: rowsB)
                    let owned = ownedStart(worker)..<ownedStart(worker + 1)
                    let bandOfA = scratch + worker * (bandA + bandB), bandOfB = bandOfA + bandA
                    var madeA = owned.lowerBound, row = run.lowerBound
                    while row < run.upperBound {
                        // A band of output rows that read only rows this core owns.
                        var rows = min(b.bandRows, run.upperBound - row)
                        while rows > 0 && gB.inputRows(readBy: row..<(row + rows)).upperBound > owned.upperBound { rows -= 1 }
                        guard rows > 0 else { break }
                        let needed = gB.inputRows(readBy: row..<(row + rows)).upperBound
                        if needed > madeA {
                            a.compute(madeA..<needed, band: bandOfA)
                            madeA = needed
                        }
                        b.compute(row..<(row + rows), band: bandOfB)
                        row += rows
                    }
                    if madeA < owned.upperBound { a.compute(madeA..<owned.upperBound, band: bandOfA) }
                    (deferred + worker).initialize(to: row..<run.upperBound)
                }
                for worker in 0..<workers where !deferred[worker].isEmpty {
                    b.compute(deferred[worker], band: scratch + bandA)
                }
            }
        }
    }
}
