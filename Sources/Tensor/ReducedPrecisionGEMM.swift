import CKernels

/// A 1×1 convolution's weights in the panels of one ``ReducedPrecisionKernel`` (layouts in CKernels'
/// posekit_reduced_precision.h): int8 (8-bit, or widened to 16 bits for `vpmaddwd`) with a scale
/// and a weight sum per output channel, or bf16.
/// Made once per layer by ``PackedPointwiseWeights/converted(to:kernel:)``; read-only afterwards.
final class ReducedPrecisionPanels: @unchecked Sendable {
    let kernel: ReducedPrecisionKernel
    let inputChannels: Int, outputChannels: Int
    /// Input channels rounded up to the kernel's group (4 for 8-bit int8, 2 for 16-bit int8 and
    /// bf16): a row's length in stored values.
    let paddedInputChannels: Int
    /// Bytes of one stored activation or weight (1 or 2).
    let elementBytes: Int
    let tileRows: Int, vectorLanes: Int
    /// int8 or bf16 panels, 64-byte aligned.
    let panels: UnsafeMutableRawPointer
    /// Per output channel, zero-padded to the panels' width: the int8 scale `t_j` and `Σ_k wq[k, j]`
    /// (int8 only), and the bias.
    let columnScale: TensorStorage, columnSum: TensorStorage, bias: TensorStorage

    /// Packs the row-major `k × n` `weights` and `bias` (`n` floats or nil) for `kernel`.
    init(weights: UnsafePointer<Float>, k: Int, n: Int, bias: UnsafePointer<Float>?, kernel: ReducedPrecisionKernel) {
        self.kernel = kernel
        inputChannels = k
        outputChannels = n
        (tileRows, vectorLanes) = kernel.tileShape
        let (group, elementBytes) = kernel.grouping
        self.elementBytes = elementBytes
        paddedInputChannels = (k + group - 1) / group * group
        let paddedWidth = (n + vectorLanes - 1) / vectorLanes * vectorLanes
        panels = UnsafeMutableRawPointer.allocate(byteCount: max(1, paddedInputChannels * paddedWidth * elementBytes),
                                                  alignment: TensorStorage.alignment)
        columnScale = TensorStorage(count: paddedWidth)
        columnSum = TensorStorage(count: paddedWidth)
        self.bias = TensorStorage(count: paddedWidth)
        if let bias { self.bias.buffer.baseAddress!.update(from: bias, count: n) }
        switch kernel.precision {
        case .int8:
            var table = kernel.int8Table!
            posekit_pack_int8_panels_for(&table, weights, k, n, panels, columnScale.buffer.baseAddress!, columnSum.buffer.baseAddress!)
        default:
            posekit_pack_bf16_panels(weights, k, n, vectorLanes, panels.bindMemory(to: UInt16.self, capacity: paddedInputChannels * paddedWidth))
        }
    }

    deinit { panels.deallocate() }
}

extension PackedPointwiseWeights {
    /// The arithmetic these weights run in: `fp32`, or the reduced precision they were
    /// ``converted(to:kernel:)`` to.
    public var precision: Precision { reduced?.kernel.precision ?? .fp32 }

    /// These weights with their GEMM in `precision` (resolved as ``Precision/resolved()``: `auto`
    /// becomes ``Precision/automatic``), in `kernel`'s copy or the preferred one. `fp32` returns
    /// them as they are. The float32 panels stay (the reduced copy is a quarter (int8) or half
    /// (bf16) of their size).
    ///
    /// - Throws: ``PrecisionUnavailable`` when this CPU lacks the precision's instructions;
    ///   ``TensorError`` for a `kernel` of another precision or one this CPU lacks.
    public func converted(to precision: Precision, kernel: ReducedPrecisionKernel? = nil) throws -> PackedPointwiseWeights {
        let resolved = try precision.resolved()
        guard resolved != .fp32 else { var copy = self; copy.reduced = nil; return copy }
        guard let chosen = kernel ?? ReducedPrecisionKernel.preferred(for: resolved) else {
            throw PrecisionUnavailable(message: resolved.unavailability ?? "\(resolved.rawValue): no kernel")
        }
        guard chosen.precision == resolved, ReducedPrecisionKernel.supported.contains(chosen) else {
            throw TensorError.unsupported("reduced-precision kernel \(chosen.rawValue) for \(resolved.rawValue): this CPU lacks it or it computes another precision")
        }
        let matrix = rowMajorWeights()
        var copy = self
        copy.reduced = matrix.withUnsafeBufferPointer { w in
            ReducedPrecisionPanels(weights: w.baseAddress!, k: inputChannels, n: outputChannels,
                                   bias: bias.buffer.baseAddress!, kernel: chosen)
        }
        return copy
    }

    /// The weights as the row-major `Cin × Cout` matrix, read back from either layout.
    func rowMajorWeights() -> [Float] {
        let (k, n) = (inputChannels, outputChannels)
        let source = panels.buffer
        guard kernel == .packed else { return Array(source.prefix(k * n)) }
        var matrix = [Float](repeating: 0, count: k * n)
        let v = microkernel.vectorLanes, full = microkernel.panelWidth
        let paddedWidth = (n + v - 1) / v * v
        var column = 0
        while column < n {
            let width = min(full, paddedWidth - column)
            for row in 0..<k {
                for j in 0..<min(width, n - column) { matrix[row * n + column + j] = source[k * column + row * width + j] }
            }
            column += width
        }
        return matrix
    }
}

extension Convolution {
    /// Bytes of quantized (or bf16) activations one group of tiles holds: with the group's
    /// float32 inputs and the weights of a column chunk, within a core's L2.
    static let reducedPrecisionGroupBytes = 64 * 1024

    /// `C = epilogue(A·W + bias)` for row-major `A: m×Cin`, `C: m×Cout`, in the reduced precision of
    /// `panels`, on `threads` cores. The kernels clamp as they store; a residual or PReLU is applied
    /// to each group of rows right after it is stored (so here the residual must not be `C` itself). Each core converts a group of its tiles' rows (int8: per-row
    /// scale and zero point; bf16: rounding) into scratch once, then sweeps the weights' column
    /// chunks over the group. No zero-channel skipping: a quantized product is cheaper than the scan.
    static func reducedPrecisionGEMM(
        a: UnsafePointer<Float>, m: Int, panels: ReducedPrecisionPanels, c: UnsafeMutablePointer<Float>,
        epilogue: KernelEpilogue, threads: Int
    ) {
        let tileRows = panels.tileRows
        let tiles = (m + tileRows - 1) / tileRows
        guard tiles > 0 else { return }
        let workers = max(1, min(threads, tiles))
        let k = panels.inputChannels, kp = panels.paddedInputChannels, n = panels.outputChannels
        // The kernels store with the clamp; what else the epilogue asks follows each group (below).
        let (low, high) = epilogue.isClampOnly ? (epilogue.low, epilogue.high) : (-Float.infinity, Float.infinity)
        let isInt8 = panels.kernel.precision == .int8
        let elementBytes = panels.elementBytes
        let tilesPerGroup = max(1, reducedPrecisionGroupBytes / (tileRows * kp * elementBytes))
        // Whole panels of about 256 KiB of weights per chunk (a quarter or half of fp32's bytes per weight).
        let panelWidth = 2 * panels.vectorLanes
        let chunk = max(1, (256 * 1024) / max(1, kp * panelWidth * elementBytes)) * panelWidth
        let scale = UnsafePointer(panels.columnScale.buffer.baseAddress!), sums = UnsafePointer(panels.columnSum.buffer.baseAddress!)
        let bias = UnsafePointer(panels.bias.buffer.baseAddress!)
        let int8Table = panels.kernel.int8Table
        let bf16Table = isInt8 ? nil : posekit_bf16_gemm_kernel_for(Int32(POSEKIT_BF16_AVX512))!.pointee
        let quantizeRows = int8Table?.quantize_rows!, int8RowTile = int8Table?.row_tile!
        let toBF16Rows = bf16Table?.to_bf16_rows!, bf16RowTile = bf16Table?.row_tile!
        Parallelism.forEachBand(workers) { worker in
            let share = Parallelism.bandRange(worker, of: workers, count: tiles)
            let groupRows = min(tilesPerGroup, share.count) * tileRows
            withUnsafeTemporaryAllocation(byteCount: groupRows * kp * elementBytes + 64, alignment: 64) { scratch in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * groupRows) { rowParameters in
                    let scratch = scratch.baseAddress!
                    let rowScale = rowParameters.baseAddress!, rowZero = rowScale + groupRows
                    var first = share.lowerBound
                    while first < share.upperBound {
                        let group = first..<min(share.upperBound, first + tilesPerGroup)
                        let row0 = group.lowerBound * tileRows
                        let rows = min(m, group.upperBound * tileRows) - row0
                        if let quantizeRows {
                            quantizeRows(a + row0 * k, k, rows, k, kp, scratch.assumingMemoryBound(to: UInt8.self),
                                                    rowScale, rowZero)
                        } else if let toBF16Rows {
                            toBF16Rows(a + row0 * k, k, rows, k, kp, scratch.assumingMemoryBound(to: UInt16.self))
                        }
                        var columns = 0
                        while columns < n {
                            let col1 = min(n, columns + chunk)
                            for tile in group {
                                let r0 = tile * tileRows - row0, tileM = min(tileRows, m - tile * tileRows)
                                if let int8RowTile {
                                    int8RowTile(
                                        scratch.assumingMemoryBound(to: UInt8.self) + r0 * kp * elementBytes, kp, tileM, rowScale + r0, rowZero + r0,
                                        panels.panels.assumingMemoryBound(to: Int8.self), scale, sums, bias,
                                        n, columns, col1, low, high, c + (row0 + r0) * n)
                                } else if let bf16RowTile {
                                    bf16RowTile(
                                        scratch.assumingMemoryBound(to: UInt16.self) + r0 * kp, kp, tileM,
                                        panels.panels.assumingMemoryBound(to: UInt16.self), bias,
                                        n, columns, col1, low, high, c + (row0 + r0) * n)
                                }
                            }
                            columns = col1
                        }
                        if !epilogue.isClampOnly {
                            applyEpilogue(c + row0 * n, rows: rows, columns: n, rowStride: n, bias: nil,
                                          epilogue: epilogue.offset(by: row0 * n))
                        }
                        first = group.upperBound
                    }
                }
            }
        }
    }
}
