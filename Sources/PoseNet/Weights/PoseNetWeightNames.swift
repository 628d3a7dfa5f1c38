/// The canonical tensor names, shapes and layouts of a PoseNet MobileNetV1 weight set.
///
/// Names follow the TF.js checkpoint (and the frozen TensorFlow graph), layouts are
/// TensorFlow's, so every importer produces the same manifest structure:
///
/// ```
/// MobilenetV1/Conv2d_0/weights                        [3,3,3,C0]       HWIO   full 3×3 conv, stride 2
/// MobilenetV1/Conv2d_0/biases                         [C0]             C
/// MobilenetV1/Conv2d_{i}_depthwise/depthwise_weights  [3,3,C(i-1),1]   HWCM   i = 1…13
/// MobilenetV1/Conv2d_{i}_depthwise/biases             [C(i-1)]         C
/// MobilenetV1/Conv2d_{i}_pointwise/weights            [1,1,C(i-1),Ci]  HWIO
/// MobilenetV1/Conv2d_{i}_pointwise/biases             [Ci]             C
/// MobilenetV1/{heatmap_2,offset_2,displacement_fwd_2,displacement_bwd_2}/weights  [1,1,C13,17|34|32|32]  HWIO
/// MobilenetV1/{…}/biases                              [17|34|32|32]    C
/// ```
///
/// Canonical order is block 0 (weights, biases), then per block depthwise weights, depthwise
/// biases, pointwise weights, pointwise biases, then the four heads (weights, biases) in the
/// order above: 62 tensors for the 14-block network.
public enum PoseNetWeightNames {
    /// Manifest ``WeightManifest/family`` of PoseNet on a MobileNetV1 backbone.
    public static let family = "posenet-mobilenet-v1"
    /// Number of backbone blocks (block 0 plus 13 depthwise-separable blocks).
    public static let blockCount = 14
    /// Head scopes, in canonical order.
    public static let heads = ["heatmap_2", "offset_2", "displacement_fwd_2", "displacement_bwd_2"]
    /// Output channels of each head: 17 keypoints, 2×17 offsets, 2×16 edges forward and backward.
    public static let headChannels = [17, 34, 32, 32]
    /// Block strides of the width 0.50 / 0.75 PoseNet checkpoints (no 4th stride-2 block).
    public static let blockStridesNarrow = [2, 1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1]
    /// Block strides of the width 1.0 checkpoints (stride 2 again at block 12).
    public static let blockStridesFull = [2, 1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1]

    public static let firstConvWeights = "MobilenetV1/Conv2d_0/weights"
    public static let firstConvBiases = "MobilenetV1/Conv2d_0/biases"
    public static func depthwiseWeights(_ block: Int) -> String { "MobilenetV1/Conv2d_\(block)_depthwise/depthwise_weights" }
    public static func depthwiseBiases(_ block: Int) -> String { "MobilenetV1/Conv2d_\(block)_depthwise/biases" }
    public static func pointwiseWeights(_ block: Int) -> String { "MobilenetV1/Conv2d_\(block)_pointwise/weights" }
    public static func pointwiseBiases(_ block: Int) -> String { "MobilenetV1/Conv2d_\(block)_pointwise/biases" }
    public static func headWeights(_ head: String) -> String { "MobilenetV1/\(head)/weights" }
    public static func headBiases(_ head: String) -> String { "MobilenetV1/\(head)/biases" }

    /// One expected tensor: canonical name, shape and layout.
    public struct Slot: Sendable, Equatable {
        public let name: String
        public let shape: [Int]
        public let layout: TensorLayout
    }

    /// The full tensor list, in canonical order, for a backbone whose block `i` outputs
    /// `blockChannels[i]` channels (14 entries).
    public static func slots(blockChannels: [Int]) -> [Slot] {
        precondition(blockChannels.count == blockCount, "PoseNet MobileNetV1 has \(blockCount) blocks")
        let c0 = blockChannels[0]
        var out = [Slot(name: firstConvWeights, shape: [3, 3, 3, c0], layout: .hwio),
                   Slot(name: firstConvBiases, shape: [c0], layout: .c)]
        for block in 1..<blockCount {
            let cin = blockChannels[block - 1], cout = blockChannels[block]
            out.append(Slot(name: depthwiseWeights(block), shape: [3, 3, cin, 1], layout: .hwcm))
            out.append(Slot(name: depthwiseBiases(block), shape: [cin], layout: .c))
            out.append(Slot(name: pointwiseWeights(block), shape: [1, 1, cin, cout], layout: .hwio))
            out.append(Slot(name: pointwiseBiases(block), shape: [cout], layout: .c))
        }
        let last = blockChannels[blockCount - 1]
        for (head, channels) in zip(heads, headChannels) {
            out.append(Slot(name: headWeights(head), shape: [1, 1, last, channels], layout: .hwio))
            out.append(Slot(name: headBiases(head), shape: [channels], layout: .c))
        }
        return out
    }

    /// Canonical tensor names in order (62 names).
    public static func canonicalOrder() -> [String] {
        slots(blockChannels: [Int](repeating: 1, count: blockCount)).map(\.name)
    }

    /// MobileNetV1 width multiplier from the first conv's channel count (`32 × width`).
    public static func widthMultiplier(firstConvChannels c0: Int) -> Double { Double(c0) / 32 }

    /// Architecture block strides for a backbone with these block widths: the full-width
    /// networks double their channels (and stride 2) at block 12, the narrow PoseNet
    /// checkpoints keep the block-11 width and stride 1 there.
    public static func blockStrides(blockChannels: [Int]) -> [Int] {
        blockChannels[12] == 2 * blockChannels[11] ? blockStridesFull : blockStridesNarrow
    }
}
