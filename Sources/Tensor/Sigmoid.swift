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

    /// The sigmoid applied in place to channels `range` of an `[H, W, C]` tensor, leaving the
    /// other channels alone: a network's heatmap inside heads packed per pixel (PoseNet's
    /// `[H, W, 115]`, heatmap in channels `0..<17`). Each value is `1 / (1 + e^(-x))` exactly as
    /// ``sigmoid(_:into:)`` computes it.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` unless the tensor has rank 3 and `range` lies in `0..<C`.
    public static func sigmoid(channels range: Range<Int>, inPlace tensor: Tensor) throws {
        guard tensor.rank == 3, range.lowerBound >= 0, range.upperBound <= tensor.shape[2] else {
            throw TensorError.shapeMismatch("sigmoid of channels \(range) of a tensor of shape \(tensor.shape) (needs [H, W, C] and a range in 0..<C)")
        }
        let (pixels, channels) = (tensor.shape[0] * tensor.shape[1], tensor.shape[2])
        withExtendedLifetime(tensor) {
            let values = tensor.mutableBasePointer
            for pixel in 0..<pixels {
                let p = values + pixel * channels
                for c in range { p[c] = 1 / (1 + expf(-p[c])) }
            }
        }
    }

    /// Allocating form of ``sigmoid(_:into:)``.
    public static func sigmoid(_ input: Tensor) throws -> Tensor {
        let output = try Tensor(zeros: input.shape)
        try sigmoid(input, into: output)
        return output
    }
}
