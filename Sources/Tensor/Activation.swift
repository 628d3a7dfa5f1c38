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

    /// The activation as a clamp: `y = min(max(x, low), high)`.
    @inlinable
    public var bounds: (low: Float, high: Float) {
        switch self {
        case .none: return (-.infinity, .infinity)
        case .relu: return (0, .infinity)
        case .relu6: return (0, 6)
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
        case .relu: return x.clampedLanes(0, .infinity)
        case .relu6: return x.clampedLanes(0, 6)
        }
    }
}

extension SIMD where Scalar == Float {
    /// `self += a * b`, as one fused multiply-add instruction when the target has FMA
    /// (`-D POSEKIT_FMA`, set by Package.swift in a tuned build, POSEKIT_TARGET_CPU), else multiply
    /// then add (a software fma would be a libm call per lane).
    @inlinable @inline(__always)
    mutating func multiplyAdd(_ a: Self, _ b: Self) {
        #if POSEKIT_FMA
        addProduct(a, b)
        #else
        self += a * b
        #endif
    }

    /// Each lane clamped to `low...high` (NaN lanes pass through).
    ///
    /// Written as a per-lane ternary on purpose: the optimizer turns it into vector
    /// compare/min/blend instructions, whereas the standard library's `pointwiseMin`/`clamped`
    /// and `replacing(with:where:)` (IEEE `minimum` semantics, generic masks) compile to a scalar
    /// loop through the stack, which made the epilogues several times slower than the GEMM.
    @inlinable @inline(__always)
    func clampedLanes(_ low: Float, _ high: Float) -> Self {
        var result = self
        for i in indices {
            let x = self[i]
            result[i] = x < low ? low : (x > high ? high : x)
        }
        return result
    }
}

extension SIMD16 where Scalar == Float {
    /// Each lane clamped to `low...high` (NaN lanes pass through), for 16-lane vectors.
    ///
    /// The generic per-lane form above is a 16-iteration loop that the optimizer then declines
    /// to inline for 16 lanes; the out-of-line call forces every live vector register (all are
    /// caller-saved) to the stack, which in the GEMM and depthwise epilogues cost more than the
    /// clamp. Written with whole-vector compares and bit selects instead, it is a handful of
    /// AVX-512 instructions and always inlines. Concrete `SIMD16<Float>` code picks this overload.
    @inlinable @inline(__always)
    func clampedLanes(_ low: Float, _ high: Float) -> Self {
        let lowV = Self(repeating: low), highV = Self(repeating: high)
        let below = unsafeBitCast(self .< lowV, to: SIMD16<Int32>.self)
        let above = unsafeBitCast(self .> highV, to: SIMD16<Int32>.self)
        let bits = (unsafeBitCast(self, to: SIMD16<Int32>.self) & ~(below | above))
            | (unsafeBitCast(lowV, to: SIMD16<Int32>.self) & below)
            | (unsafeBitCast(highV, to: SIMD16<Int32>.self) & above)
        return unsafeBitCast(bits, to: Self.self)
    }
}
