import Testing
import TestSupport
@testable import Tensor

/// A tensor of uniform values in `range`.
func randomTensor(_ shape: [Int], _ rng: inout SeededGenerator, in range: ClosedRange<Float> = -1...1) -> Tensor {
    let n = shape.reduce(1, *)
    return try! Tensor(shape: shape, values: (0..<n).map { _ in Float.random(in: range, using: &rng) })
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

/// Every GEMM this CPU runs, each test on all of them: OpenBLAS, then PoseKit's packed microkernel
/// in the copy of each instruction set the CPU has (``KernelISA/supported``: the baseline, AVX2,
/// AVX-512), whatever the build.
let gemmVariants: [(kernel: GEMMKernel, isa: KernelISA)] = [(.blas, .preferred)] + KernelISA.supported.map { (.packed, $0) }
