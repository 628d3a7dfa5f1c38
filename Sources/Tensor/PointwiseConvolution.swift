import COpenBLAS

/// Namespace of the convolution kernels. Layouts: activations `[H, W, C]` (NHWC without N),
/// weights HWIO `[kH, kW, Cin, Cout]`, depthwise weights `[kH, kW, C]`.
public enum Convolution {}

extension Convolution {
    /// How the `m` rows of a banded GEMM are cut: `count` bands of at most `rows` rows each.
    ///
    /// Each band is one `cblas_sgemm` call, and every call re-packs the whole `B` (weights)
    /// matrix, at roughly 1/50 of the speed the fast AVX-512 kernels multiply at; so bands are
    /// long (up to `maxRows`, 512 for 1×1 convolutions: < 10% packing overhead) and their number
    /// is a multiple of `threads` so the cores get equal shares. A 512-row output band of
    /// MobileNet's widest layer (384 channels) is 768 KiB, still L2-resident for the epilogue.
    static func gemmBands(m: Int, threads: Int, maxRows: Int) -> (rows: Int, count: Int) {
        let workers = max(1, min(threads, m))
        let rounds = (m + workers * maxRows - 1) / (workers * maxRows)
        let count = min(m, workers * rounds)
        let rows = (m + count - 1) / count
        return (rows, (m + rows - 1) / rows)
    }

    /// 1×1 convolution (stride 1) as a direct GEMM, with fused bias + activation.
    ///
    /// With ``GEMMKernel/preferred`` `.packed` (the default), the weights are packed for this call
    /// and multiplied by ``pointwise(_:packed:activation:into:skippingZeroChannels:threads:)``; a
    /// caller that runs the same weights again should pack them once itself. With `.blas`:
    /// the input `[H, W, Cin]` is read in place as the row-major `(H·W) × Cin` matrix and the
    /// weights `[1, 1, Cin, Cout]` (HWIO; `[Cin, Cout]` is accepted too) as the `Cin × Cout`
    /// matrix, so there is no im2col copy. The pixel rows are cut into bands (see
    /// `gemmBands(m:threads:maxRows:)`); each band is one single-threaded `cblas_sgemm` followed
    /// at once by bias + activation while the band is in cache. Bands are spread over `threads`
    /// cores (measured against OpenBLAS's own threading in `posekit bench kernels`).
    ///
    /// Any `[h, W, C]` row band of a larger activation (``Tensor/slice(_:)``) is a valid input or
    /// output, so a caller can run this band by band right after the producer of each band.
    ///
    /// - Parameters:
    ///   - input: `[H, W, Cin]`.
    ///   - weights: `[1, 1, Cin, Cout]` HWIO (or `[Cin, Cout]`).
    ///   - bias: `[Cout]`, or nil for no bias.
    ///   - activation: applied after the bias.
    ///   - output: `[H, W, Cout]`, written completely; must not overlap `input`.
    ///   - threads: cores to use (≥ 1).
    /// - Throws: ``TensorError`` when shapes disagree.
    public static func pointwise(
        _ input: Tensor, weights: Tensor, bias: Tensor?, activation: Activation = .none,
        into output: Tensor, threads: Int = Parallelism.defaultThreads
    ) throws {
        try input.requireRank(3, "pointwise input")
        let (h, w, cin) = (input.shape[0], input.shape[1], input.shape[2])
        let cout: Int
        switch weights.shape.count {
        case 4 where weights.shape[0] == 1 && weights.shape[1] == 1 && weights.shape[2] == cin:
            cout = weights.shape[3]
        case 2 where weights.shape[0] == cin:
            cout = weights.shape[1]
        default:
            throw TensorError.shapeMismatch("pointwise weights must be [1, 1, \(cin), Cout] for input \(input.shape), got \(weights.shape)")
        }
        try Tensor.requireBias(bias, channels: cout)
        try output.requireShape([h, w, cout], "pointwise output")
        try output.requireDisjoint(from: input, "pointwise output")
        try output.requireDisjoint(from: weights, "pointwise output")
        if GEMMKernel.preferred == .packed {
            // Packing costs one pass over the weights, as sgemm's own packing of them on every call.
            let packed = try PackedPointwiseWeights(weights: weights, bias: bias)
            return try pointwise(input, packed: packed, activation: activation, into: output,
                                 skippingZeroChannels: false, threads: threads)
        }
        withExtendedLifetime((input, weights, bias, output)) {
            gemmWithEpilogue(
                a: input.basePointer, m: h * w, k: cin, b: weights.basePointer, n: cout,
                c: output.mutableBasePointer, bias: bias?.basePointer, epilogue: KernelEpilogue(activation),
                threads: threads)
        }
    }

    /// Allocating form of ``pointwise(_:weights:bias:activation:into:threads:)``.
    public static func pointwise(
        _ input: Tensor, weights: Tensor, bias: Tensor?, activation: Activation = .none,
        threads: Int = Parallelism.defaultThreads
    ) throws -> Tensor {
        try input.requireRank(3, "pointwise input")
        guard let cout = weights.shape.last else { throw TensorError.shapeMismatch("pointwise weights have no axes") }
        let output = try Tensor(zeros: [input.shape[0], input.shape[1], cout])
        try pointwise(input, weights: weights, bias: bias, activation: activation, into: output, threads: threads)
        return output
    }

    /// `C = epilogue(A·B + bias)` for row-major `A: m×k`, `B: k×n`, `C: m×n`, banded over rows:
    /// each band is one single-threaded sgemm plus its epilogue; bands run on `threads` cores.
    /// `maxRows` bounds a band (see `gemmBands(m:threads:maxRows:)`).
    static func gemmWithEpilogue(
        a: UnsafePointer<Float>, m: Int, k: Int, b: UnsafePointer<Float>, n: Int,
        c: UnsafeMutablePointer<Float>, bias: UnsafePointer<Float>?, epilogue: KernelEpilogue,
        threads: Int, maxRows: Int = 512
    ) {
        BLASThreads.ensureSingleThreaded()
        // A residual in the output's own buffer (a graph's plan may put it there) would be
        // overwritten by sgemm before the epilogue reads it: sgemm adds it instead (beta 1).
        let inPlace = epilogue.residual != nil && epilogue.residual == UnsafePointer(c)
        let beta: Float = inPlace ? 1 : 0
        let epilogue = inPlace ? KernelEpilogue(low: epilogue.low, high: epilogue.high, residual: nil, slopes: epilogue.slopes)
                               : epilogue
        let (bandRows, bands) = gemmBands(m: m, threads: threads, maxRows: maxRows)
        let workers = max(1, min(threads, bands))
        Parallelism.forEachBand(workers) { worker in
            // Each worker owns a contiguous run of bands (one memory stream per core).
            for band in Parallelism.bandRange(worker, of: workers, count: bands) {
                let row0 = band * bandRows, rows = min(bandRows, m - row0)
                cblas_sgemm(
                    CblasRowMajor, CblasNoTrans, CblasNoTrans,
                    Int32(rows), Int32(n), Int32(k), 1, a + row0 * k, Int32(k), b, Int32(n),
                    beta, c + row0 * n, Int32(n))
                applyEpilogue(c + row0 * n, rows: rows, columns: n, rowStride: n, bias: bias,
                              epilogue: epilogue.offset(by: row0 * n))
            }
        }
    }
}
