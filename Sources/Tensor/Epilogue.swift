import CKernels

/// What a convolution does to each output value after adding its bias, inside the kernel that
/// computes the value (a fused epilogue):
///
///     y = prelu(clamp(conv + bias + residual))
///
/// the residual (a tensor of the output's shape, added value by value: a residual connection)
/// and the PReLU (one slope per output channel) each optional, the clamp the ``activation``.
///
/// One kernel per operation, the epilogue a parameter (as ggml fuses): a graph's residual `ADD`
/// and `PRELU` after a convolution then cost no pass over memory of their own. The operations and
/// their order are those of ``Elementwise/add(_:_:activation:into:threads:)`` and
/// ``Elementwise/prelu(_:slope:into:threads:)`` run after the convolution, so the values are theirs.
///
/// The packed-weight convolutions take it: ``Convolution/pointwise(_:packed:epilogue:into:skippingZeroChannels:threads:)``
/// and ``Convolution/general(_:packed:kernelHeight:kernelWidth:stride:strideWidth:dilation:padding:epilogue:into:workspace:skippingRows:skippingColumns:threads:)``.
public struct Epilogue: @unchecked Sendable {
    /// The clamp after the bias and the residual.
    public var activation: Activation
    /// Added after the bias, value by value; the output's shape. It may be the output itself
    /// (each value is read before it is written), else it must not overlap the output.
    public var residual: Tensor?
    /// PReLU after the clamp: `y = max(y, 0) + slope[c] · min(y, 0)`.
    public var prelu: PReLUSlopes?

    /// An epilogue of `activation`, an optional residual and optional PReLU slopes.
    public init(activation: Activation = .none, residual: Tensor? = nil, prelu: PReLUSlopes? = nil) {
        self.activation = activation
        self.residual = residual
        self.prelu = prelu
    }

    /// Checks the epilogue against a kernel's `output` (`[..., C]`).
    func check(output: Tensor) throws {
        if let residual {
            try residual.requireShape(output.shape, "epilogue residual")
            let sameTensor = residual.storage === output.storage && residual.offset == output.offset
            if !sameTensor { try output.requireDisjoint(from: residual, "epilogue residual") }
        }
        if let prelu, prelu.channels != output.shape.last {
            throw TensorError.shapeMismatch("PReLU epilogue of \(prelu.channels) slopes for output \(output.shape)")
        }
    }

    /// Runs `body` with the epilogue as the kernels take it (pointers valid for the call).
    func withKernelEpilogue<R>(_ body: (KernelEpilogue) throws -> R) rethrows -> R {
        try withExtendedLifetime((residual, prelu)) {
            let (low, high) = activation.bounds
            return try body(KernelEpilogue(low: low, high: high, residual: residual?.basePointer,
                                           slopes: prelu.map { UnsafePointer($0.storage.buffer.baseAddress!) }))
        }
    }
}

/// PReLU's slopes, one per channel, held zero-padded to whole vectors of any instruction set for
/// the kernels' epilogues (which load them as they load the bias). Made once per layer.
public struct PReLUSlopes: @unchecked Sendable {
    /// Channels (slopes given).
    public let channels: Int
    /// The slopes, then zeros up to a multiple of 16.
    let storage: TensorStorage

    /// The slopes of `slopes`, any shape (TFLite's `[1, 1, C]`, or `[C]`), one per channel.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when there are none.
    public init(_ slopes: Tensor) throws {
        guard slopes.count > 0 else { throw TensorError.shapeMismatch("PReLU slopes \(slopes.shape) are empty") }
        channels = slopes.count
        storage = TensorStorage(count: (channels + 15) / 16 * 16)
        slopes.withUnsafeBufferPointer { storage.buffer.baseAddress!.update(from: $0.baseAddress!, count: channels) }
    }
}

/// An ``Epilogue`` as the kernels take it: the clamp, the residual's first float (aligned with the
/// output's first float) and the padded slopes, or nil.
struct KernelEpilogue {
    let low: Float, high: Float
    let residual: UnsafePointer<Float>?
    let slopes: UnsafePointer<Float>?

    /// The clamp of `activation` alone.
    init(_ activation: Activation) {
        (low, high) = activation.bounds
        residual = nil
        slopes = nil
    }

    init(low: Float, high: Float, residual: UnsafePointer<Float>?, slopes: UnsafePointer<Float>?) {
        self.low = low; self.high = high; self.residual = residual; self.slopes = slopes
    }

    /// Whether only the clamp is left to do.
    var isClampOnly: Bool { residual == nil && slopes == nil }

    /// The same epilogue for the part of the output starting `offset` floats in.
    @inline(__always)
    func offset(by offset: Int) -> KernelEpilogue {
        KernelEpilogue(low: low, high: high, residual: residual.map { $0 + offset }, slopes: slopes)
    }

    /// CKernels' form for the output tile starting `offset` floats into the output.
    @inline(__always)
    func tile(_ offset: Int) -> posekit_epilogue {
        posekit_epilogue(low: low, high: high, residual: residual.map { $0 + offset }, slopes: slopes)
    }
}

/// Bias, then the epilogue, over a row-major `rows × columns` tile with row stride `rowStride`,
/// in place: `epilogue`'s residual is read at the tile's own offsets (the tile being the output
/// from its first float). `bias` has `columns` elements or is nil (no bias).
///
/// This is the GEMM epilogue of OpenBLAS's path: called on each band right after `cblas_sgemm`
/// wrote it, while the band is in cache (a residual in the output's own buffer is added by the
/// sgemm itself, with beta 1, since the sgemm overwrites it first). Every activation is a clamp to ``Activation/bounds``, so
/// one plain loop (which the optimizer vectorises to full-width compare/blend) serves them all.
func applyEpilogue(
    _ tile: UnsafeMutablePointer<Float>, rows: Int, columns: Int, rowStride: Int,
    bias: UnsafePointer<Float>?, epilogue: KernelEpilogue
) {
    let (low, high) = (epilogue.low, epilogue.high)
    guard epilogue.isClampOnly else {
        // A residual or PReLU with OpenBLAS (not the default GEMM): the order of the packed kernels.
        for r in 0..<rows {
            let row = tile + r * rowStride, residual = epilogue.residual.map { $0 + r * rowStride }
            for c in 0..<columns {
                var v = row[c]
                if let bias { v += bias[c] }
                if let residual { v += residual[c] }
                v = v < low ? low : (v > high ? high : v)
                if let slopes = epilogue.slopes { v = v > 0 ? v : slopes[c] * v }
                row[c] = v
            }
        }
        return
    }
    for r in 0..<rows {
        let row = tile + r * rowStride
        if let bias {
            for c in 0..<columns {
                let v = row[c] + bias[c]
                row[c] = v < low ? low : (v > high ? high : v)
            }
        } else if !(low == -.infinity && high == .infinity) {
            for c in 0..<columns {
                let v = row[c]
                row[c] = v < low ? low : (v > high ? high : v)
            }
        }
    }
}
