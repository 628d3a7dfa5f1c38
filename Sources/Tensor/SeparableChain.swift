extension Convolution {
    /// Floats of scratch ``separableChain(_:_:into:workspace:skippingZeroChannels:threads:)``
    /// needs on `threads` cores: each core's depthwise band of every block. `geometries` are the
    /// blocks' depthwise windows over their inputs.
    public static func separableChainWorkspaceCount(_ blocks: [SeparableBlock], _ geometries: [ConvolutionGeometry],
                                                    threads: Int) -> Int {
        max(1, threads) * zip(blocks, geometries).reduce(0) { $0 + $1.0.bandFloats($1.1) }
    }

    /// MobileNet blocks in a row, each reading the one before's output as it is made: the values of
    /// ``separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:skippingRows:skippingColumns:skippingZeroChannels:threads:)``
    /// run block after block, in another order.
    ///
    /// Why: PoseNet's early activations (12.7 MiB after block 1 at its 513 input) are larger than
    /// the last-level cache of the CPUs it runs on (8 MiB on a Zen 1 EPYC), so the next block read
    /// them back from memory: block 2's depthwise took 2.0 ms from memory against 0.57 ms from
    /// cache on one Zen 1 core (docs/speed.md). Here each core makes a few rows of a block's output
    /// and at once the next block's rows that read them, while they are in its cache.
    ///
    /// The last block's rows are split into one contiguous run per core. Going back block by
    /// block, a core owns the rows of each output from the first one its rows of the next output
    /// read up to the first the next core's read, and makes them in bands, each band just before
    /// the next block needs it. A row that reads rows another core owns (a few at the end of each
    /// core's share, per block) is made after the cores have finished, block by block. Every row
    /// of every output is written, so each holds what its block alone gives.
    ///
    /// - Parameters:
    ///   - input: `[H, W, C]`, the first block's input.
    ///   - blocks: the blocks, in order (at least one).
    ///   - outputs: each block's output (SAME geometry), the next block's input; none may overlap
    ///     another or `input`.
    ///   - workspace: scratch, grown to ``separableChainWorkspaceCount(_:_:threads:)`` if smaller.
    ///   - skippingZeroChannels: as for ``separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:skippingRows:skippingColumns:skippingZeroChannels:threads:)``.
    ///   - threads: cores to use (≥ 1).
    /// - Throws: ``TensorError`` on shape mismatches, overlapping tensors or unsupported strides.
    public static func separableChain(
        _ input: Tensor, _ blocks: [SeparableBlock], into outputs: [Tensor],
        workspace: ConvolutionWorkspace, skippingZeroChannels: Bool = true, threads: Int = Parallelism.defaultThreads
    ) throws {
        let n = blocks.count
        guard n >= 1, outputs.count == n else {
            throw TensorError.shapeMismatch("a separable chain takes one output per block: \(n) blocks, \(outputs.count) outputs")
        }
        try withUnsafeTemporaryAllocation(of: ConvolutionGeometry.self, capacity: n) { g in
            for i in 0..<n {
                (g.baseAddress! + i).initialize(to: try blocks[i].geometry(input: i == 0 ? input : outputs[i - 1], output: outputs[i]))
                try outputs[i].requireDisjoint(from: input, "separable chain output \(i)")
                for j in 0..<i { try outputs[i].requireDisjoint(from: outputs[j], "separable chain output \(i)") }
            }
            let last = g[n - 1].outputHeight
            let workers = max(1, min(threads, last))
            let bandFloats = zip(blocks, g).reduce(0) { $0 + $1.0.bandFloats($1.1) }
            workspace.reserve(count: workers * bandFloats)
            // start[w · n + b]: the first row of block b's output that core w owns (core `workers`: the end).
            withUnsafeTemporaryAllocation(of: Int.self, capacity: (workers + 1) * n * 2) { table in
                let start = table.baseAddress!, limit = start + (workers + 1) * n
                for w in 0...workers {
                    for b in stride(from: n - 1, through: 0, by: -1) {
                        let first: Int
                        if w == 0 { first = 0 }
                        else if w == workers { first = g[b].outputHeight }
                        else if b == n - 1 { first = Parallelism.bandRange(w, of: workers, count: last).lowerBound }
                        else {
                            let next = start[w * n + b + 1]
                            first = next < g[b + 1].outputHeight ? g[b + 1].inputRows(readBy: next..<(next + 1)).lowerBound
                                                                 : g[b].outputHeight
                        }
                        start[w * n + b] = first
                    }
                }
                // limit[w · n + b]: the end of the rows of block b core w can make alone (it owns
                // them and they read only rows it can make).
                for w in 0..<workers {
                    for b in 0..<n {
                        let owned = start[w * n + b]..<max(start[w * n + b], start[(w + 1) * n + b])
                        var end = owned.upperBound
                        if b > 0 {
                            while end > owned.lowerBound && g[b].inputRows(readBy: owned.lowerBound..<end).upperBound > limit[w * n + b - 1] {
                                end -= 1
                            }
                        }
                        limit[w * n + b] = end
                    }
                }
                withExtendedLifetime((input, blocks, outputs, workspace)) {
                    withUnsafeTemporaryAllocation(of: SeparableRows.self, capacity: n) { rowsOf in
                        for b in 0..<n {
                            (rowsOf.baseAddress! + b).initialize(to: SeparableRows(
                                blocks[b], g[b], input: b == 0 ? input.basePointer : outputs[b - 1].basePointer,
                                output: outputs[b].mutableBasePointer, skippingColumns: 0..<0))
                        }
                        let rows = UnsafeBufferPointer(rowsOf), scratch = workspace.base
                        // Block b's band in core w's slice of the workspace.
                        func band(_ w: Int, _ b: Int) -> UnsafeMutablePointer<Float> {
                            scratch + w * bandFloats + (0..<b).reduce(0) { $0 + blocks[$1].bandFloats(g[$1]) }
                        }
                        Parallelism.forEachBand(workers) { w in
                            withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { made in
                              withUnsafeTemporaryAllocation(of: Bool.self, capacity: n) { skipping in
                                let made = made.baseAddress!, skipping = skipping.baseAddress!
                                for b in 0..<n { made[b] = start[w * n + b] }
                                // Per block: whether its 1×1 products still skip zero channels.
                                skipping.initialize(repeating: skippingZeroChannels, count: n)
                                // Makes block b's rows up to `end`, band by band, each after the rows it reads.
                                func make(_ b: Int, upTo end: Int) {
                                    while made[b] < end {
                                        let next = min(made[b] + rows[b].bandRows, end)
                                        if b > 0 { make(b - 1, upTo: g[b].inputRows(readBy: made[b]..<next).upperBound) }
                                        rows[b].compute(made[b]..<next, band: band(w, b), skipping: &skipping[b])
                                        made[b] = next
                                    }
                                }
                                make(n - 1, upTo: limit[w * n + n - 1])
                                for b in 0..<n { make(b, upTo: limit[w * n + b]) }
                              }
                            }
                        }
                        // What reads rows of another core's, block by block.
                        for b in 0..<n {
                            var skipping = skippingZeroChannels
                            for w in 0..<workers where limit[w * n + b] < start[(w + 1) * n + b] {
                                rows[b].compute(limit[w * n + b]..<start[(w + 1) * n + b], band: band(0, b), skipping: &skipping)
                            }
                        }
                    }
                }
            }
        }
    }
}
