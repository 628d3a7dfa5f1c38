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
/// order above: 62 tensors for the 14-block network. Block count, strides, widths and heads are
/// ``MobileNetArchitecture``'s; this type only names the tensors.
public enum PoseNetWeightNames {
    /// The manifest's network ``PoseNetSection/family`` of PoseNet on a MobileNetV1 backbone.
    public static let family = "posenet-mobilenet-v1"
    /// Number of backbone blocks (``MobileNetArchitecture/blockCount``).
    public static var blockCount: Int { MobileNetArchitecture.blockCount }
    /// Head scopes, in canonical order (``MobileNetArchitecture/heads``).
    public static var heads: [String] { MobileNetArchitecture.heads.map(\.name) }

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
        for (head, channels) in MobileNetArchitecture.heads {
            out.append(Slot(name: headWeights(head), shape: [1, 1, last, channels], layout: .hwio))
            out.append(Slot(name: headBiases(head), shape: [channels], layout: .c))
        }
        return out
    }

    /// Canonical tensor names in order (62 names).
    public static func canonicalOrder() -> [String] {
        slots(blockChannels: [Int](repeating: 1, count: blockCount)).map(\.name)
    }
}
