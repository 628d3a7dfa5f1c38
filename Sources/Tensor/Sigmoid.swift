import Foundation

/// Output nonlinearities applied to whole tensors (network heads), as opposed to the fused
/// per-layer ``Activation`` epilogues.
public enum TensorNonlinearities {}

extension TensorNonlinearities {
    /// `output = 1 / (1 + e^(-input))`, element by element. `output` may be `input` (in place).
    ///
    /// Saturates cleanly: large negative inputs give 0 (e^x overflows to ∞), large positive 1.
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when the shapes differ.
    public static func sigmoid(_ input: Tensor, into output: Tensor) throws {
        try output.requireShape(input.shape, "sigmoid output")
        withExtendedLifetime((input, output)) {
            let src = input.basePointer, dst = output.mutableBasePointer
            for i in 0..<input.count { dst[i] = 1 / (1 + expf(-src[i])) }
        }
    }

    /// Allocating form of ``sigmoid(_:into:)``.
    public static func sigmoid(_ input: Tensor) throws -> Tensor {
        let output = try Tensor(zeros: input.shape)
        try sigmoid(input, into: output)
        return output
    }
}
