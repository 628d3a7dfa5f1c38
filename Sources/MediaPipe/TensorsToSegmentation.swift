import Foundation

/// MediaPipe's `TensorsToSegmentationCalculator` (CPU, activation SIGMOID, no output size): the
/// landmark model's segmentation logits `[1, 256, 256, 1]` → a 256×256 mask of probabilities in
/// the crop, `1 / (1 + exp(−logit))` in float32.
public enum TensorsToSegmentation {
    /// BlazePose's mask side (`Identity_2` is `[1, 256, 256, 1]`).
    public static let poseMaskSide = 256

    public static func mask(logits: UnsafeBufferPointer<Float>, width: Int = poseMaskSide, height: Int = poseMaskSide) throws -> SegmentationMask {
        guard logits.count == width * height else {
            throw MediaPipeError.outputSize(name: "segmentation", count: logits.count, expected: width * height)
        }
        var values = [Float](repeating: 0, count: width * height)
        values.withUnsafeMutableBufferPointer { out in
            for i in 0..<out.count { out[i] = 1 / (1 + expf(-logits[i])) }
        }
        return SegmentationMask(width: width, height: height, values: values)
    }
}
