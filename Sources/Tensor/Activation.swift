/// The nonlinearity a kernel applies in its fused epilogue, right after adding the bias.
///
/// Epilogues run on a cache-resident tile just after the kernel produced it (a band of GEMM
/// output rows, one depthwise output pixel), so bias + activation never costs an extra pass
/// over memory.
public enum Activation: Sendable, Equatable, CustomStringConvertible {
    /// Identity: `y = x`.
    case none
    /// `y = max(x, 0)`.
    case relu
    /// `y = min(max(x, 0), 6)`, MobileNet's activation.
    case relu6

    public var description: String {
        switch self {
        case .none: return "none"
        case .relu: return "relu"
        case .relu6: return "relu6"
        }
    }

    /// Applies the activation to one value.
    @inlinable
    public func apply(_ x: Float) -> Float {
        switch self {
        case .none: return x
        case .relu: return max(x, 0)
        case .relu6: return min(max(x, 0), 6)
        }
    }

    /// Applies the activation lane-wise.
    @inlinable
    public func apply<V: SIMD>(_ x: V) -> V where V.Scalar == Float {
        switch self {
        case .none: return x
        case .relu: return x.replacing(with: 0, where: x .< 0)
        case .relu6: return x.replacing(with: 0, where: x .< 0).replacing(with: 6, where: x .> 6)
        }
    }
}

/// Bias + activation over a row-major `rows × columns` tile with row stride `rowStride`,
/// in place. `bias` has `columns` elements or is nil (no bias).
///
/// This is the GEMM epilogue: called on each band right after `cblas_sgemm` wrote it.
@inlinable
func applyEpilogue(
    _ tile: UnsafeMutablePointer<Float>, rows: Int, columns: Int, rowStride: Int,
    bias: UnsafePointer<Float>?, activation: Activation
) {
    if bias == nil && activation == .none { return }
    switch activation {
    case .none: epilogueRows(tile, rows, columns, rowStride, bias, Activation.none)
    case .relu: epilogueRows(tile, rows, columns, rowStride, bias, Activation.relu)
    case .relu6: epilogueRows(tile, rows, columns, rowStride, bias, Activation.relu6)
    }
}

// The activation is passed as a constant from each switch arm so the optimiser can specialise
// the inner loop for it (no per-element switch).
@inlinable @inline(__always)
func epilogueRows(
    _ tile: UnsafeMutablePointer<Float>, _ rows: Int, _ columns: Int, _ rowStride: Int,
    _ bias: UnsafePointer<Float>?, _ activation: Activation
) {
    typealias V = SIMD16<Float>
    let w = V.scalarCount
    let vectorEnd = columns - columns % w
    for r in 0..<rows {
        let row = tile + r * rowStride
        var c = 0
        while c < vectorEnd {
            var v = UnsafeRawPointer(row + c).loadUnaligned(as: V.self)
            if let bias { v += UnsafeRawPointer(bias + c).loadUnaligned(as: V.self) }
            UnsafeMutableRawPointer(row + c).storeBytes(of: activation.apply(v), as: V.self)
            c += w
        }
        while c < columns {
            row[c] = activation.apply(row[c] + (bias?[c] ?? 0))
            c += 1
        }
    }
}
