import Foundation

extension TensorNonlinearities {
    /// Softmax over the last axis: each run of `shape.last` values becomes
    /// `e^(x - max) / Σ e^(x - max)` (the max is subtracted so large logits cannot overflow).
    /// `output` may be `input` (in place).
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when the shapes differ.
    public static func softmax(_ input: Tensor, into output: Tensor) throws {
        try output.requireShape(input.shape, "softmax output")
        let n = input.shape[input.rank - 1], rows = input.count / n
        withExtendedLifetime((input, output)) {
            let src = input.basePointer, dst = output.mutableBasePointer
            for r in 0..<rows {
                let x = src + r * n, y = dst + r * n
                var largest = -Float.infinity
                for i in 0..<n { largest = max(largest, x[i]) }
                var sum: Float = 0
                for i in 0..<n {
                    let e = expf(x[i] - largest)
                    y[i] = e
                    sum += e
                }
                let scale = 1 / sum
                for i in 0..<n { y[i] *= scale }
            }
        }
    }

    /// Allocating form of ``softmax(_:into:)``.
    public static func softmax(_ input: Tensor) throws -> Tensor {
        let output = try Tensor(zeros: input.shape)
        try softmax(input, into: output)
        return output
    }
}
