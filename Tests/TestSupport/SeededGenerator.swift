/// Deterministic random numbers for tests (SplitMix64): a seed gives the same numbers on every
/// machine, so a failing random case reproduces. The one generator the test targets share.
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [lo, hi), from the top 24 bits (every value a Float holds exactly).
    public mutating func float(_ lo: Float, _ hi: Float) -> Float {
        lo + (hi - lo) * Float(next() >> 40) / Float(1 << 24)
    }

    /// `n` values uniform in [lo, hi).
    public mutating func floats(_ n: Int, _ lo: Float = -1, _ hi: Float = 1) -> [Float] {
        (0..<n).map { _ in float(lo, hi) }
    }
}
