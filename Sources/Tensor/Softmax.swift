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

    /// Softmax along `axis` of any rank: each line of values along it becomes
    /// `e^(x - max) / Σ e^(x - max)`, the exponentials and their sum in float64 (a class
    /// probability as close to the exact one as one rounding: a Create ML classifier's output).
    /// `output` may be `input` (in place).
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when the shapes differ or `axis` is outside them.
    public static func softmax(_ input: Tensor, axis: Int, into output: Tensor) throws {
        guard (0..<input.rank).contains(axis) else {
            throw TensorError.shapeMismatch("softmax axis \(axis) of \(input.shape)")
        }
        try output.requireShape(input.shape, "softmax output")
        let size = input.shape[axis], inner = input.shape[(axis + 1)...].reduce(1, *)
        let outer = input.count / max(size * inner, 1)
        withExtendedLifetime((input, output)) {
            let src = input.basePointer, dst = output.mutableBasePointer
            var exponentials = [Double](repeating: 0, count: size)
            for o in 0..<outer {
                for i in 0..<inner {
                    let x = src + o * size * inner + i, y = dst + o * size * inner + i
                    var largest = -Float.infinity
                    for k in 0..<size { largest = max(largest, x[k * inner]) }
                    var sum = 0.0
                    for k in 0..<size {
                        exponentials[k] = Foundation.exp(Double(x[k * inner] - largest))
                        sum += exponentials[k]
                    }
                    for k in 0..<size { y[k * inner] = Float(exponentials[k] / sum) }
                }
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
