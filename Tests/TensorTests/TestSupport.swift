import Testing
@testable import Tensor

/// Deterministic SplitMix64 so every random test case is reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A tensor of uniform values in `range`.
func randomTensor(_ shape: [Int], _ rng: inout SeededGenerator, in range: ClosedRange<Float> = -1...1) -> Tensor {
    let n = shape.reduce(1, *)
    return try! Tensor(shape: shape, values: (0..<n).map { _ in Float.random(in: range, using: &rng) })
}

/// `|a − b|`, or infinity when either is NaN: `max` and `<=` skip NaN (`max(0, .nan)` is 0), so a
/// NaN left in an output (an element never written) must count as the worst error there is.
func absoluteError(_ a: Float, _ b: Float) -> Float {
    let d = abs(a - b)
    return d.isNaN ? .infinity : d
}

/// Expects equal shapes and every element within 1e-4 relative of the reference
/// (relative to the larger of 1 and the reference's largest magnitude, so sums that cancel to
/// near zero are judged on the scale of the layer's values).
func expectClose(_ actual: Tensor, _ expected: Tensor, _ what: @autoclosure () -> String,
                 tolerance: Float = 1e-4, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(actual.shape == expected.shape, "\(what()): shape", sourceLocation: sourceLocation)
    guard actual.shape == expected.shape else { return }
    let a = actual.scalars, e = expected.scalars
    let scale = max(1, e.map { abs($0) }.max() ?? 0)
    var worst: Float = 0, worstIndex = 0
    for i in 0..<a.count {
        let d = absoluteError(a[i], e[i])
        if d > worst { worst = d; worstIndex = i }
    }
    #expect(worst <= tolerance * scale,
            "\(what()): max error \(worst) at \(worstIndex) (got \(a[worstIndex]), want \(e[worstIndex]))",
            sourceLocation: sourceLocation)
}

let allActivations: [Activation] = [.none, .relu, .relu6]
