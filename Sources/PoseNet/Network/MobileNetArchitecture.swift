import PoseCore
/// The MobileNetV1 backbone's layer plan for one output stride.
///
/// Block 0 is a full 3×3 convolution; blocks 1–13 are depthwise 3×3 + pointwise 1×1, each
/// followed by ReLU6. PoseNet's 0.50/0.75 checkpoints keep stride 1 in block 12 (their last
/// layers stay at block 11's width); 1.0 has a fourth stride-2 there.
public struct MobileNetArchitecture: Sendable, Equatable {
    /// One block's stride and the dilation of its 3×3 convolution.
    public struct Block: Sendable, Equatable {
        public var stride: Int
        public var dilation: Int
    }

    /// Strides of blocks 0–13 of the 0.50 and 0.75 PoseNet checkpoints.
    public static let strides050And075 = [2, 1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1]
    /// Strides of blocks 0–13 of the 1.0 checkpoint.
    public static let strides100 = [2, 1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1]

    /// Each block's stride and dilation once the output stride is applied.
    public let blocks: [Block]
    /// Input pixels per output cell.
    public let outputStride: Int

    /// Applies TF.js `toOutputStridedLayers`: once the accumulated stride equals
    /// `outputStride`, later stride-2 blocks run at stride 1 and every later block's 3×3
    /// convolution is dilated by the stride it gave up (cumulatively), so the receptive field
    /// stays the same while the grid stays fine.
    ///
    /// - Throws: ``PoseNetError/invalidConfiguration(_:)`` when the strides never reach
    ///   `outputStride` or it is not a power of two.
    public init(blockStrides: [Int], outputStride: Int) throws {
        guard outputStride > 0, outputStride & (outputStride - 1) == 0 else {
            throw PoseNetError.invalidConfiguration("output stride must be a power of two, got \(outputStride)")
        }
        let total = blockStrides.reduce(1, *)
        guard outputStride <= total else {
            throw PoseNetError.invalidConfiguration("output stride \(outputStride) exceeds the backbone's total stride \(total)")
        }
        var accumulated = 1, rate = 1
        var blocks: [Block] = []
        for stride in blockStrides {
            if accumulated == outputStride {
                blocks.append(Block(stride: 1, dilation: rate))
                rate *= stride
            } else {
                blocks.append(Block(stride: stride, dilation: 1))
                accumulated *= stride
            }
        }
        self.blocks = blocks
        self.outputStride = outputStride
    }
}
