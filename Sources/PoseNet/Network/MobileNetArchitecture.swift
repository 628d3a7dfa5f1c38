import PoseCore
/// The facts of PoseNet's MobileNetV1 backbone and heads, in one place (the model, the importers,
/// ``PoseNetWeightNames`` and `posekit bench kernels` read them here), and its layer plan for
/// one output stride.
///
/// Block 0 is a full 3×3 convolution; blocks 1–13 are depthwise 3×3 + pointwise 1×1, each
/// followed by ReLU6. PoseNet's 0.50/0.75 checkpoints keep stride 1 in block 12 (their last
/// layers stay at block 11's width); 1.0 has a fourth stride-2 there. Four 1×1 heads read the
/// last block.
public struct MobileNetArchitecture: Sendable, Equatable {
    /// Backbone blocks: block 0 plus 13 depthwise-separable blocks.
    public static let blockCount = 14
    /// Output channels of each block at width (depth multiplier) 1.0.
    public static let fullWidthChannels = [32, 64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024, 1024]
    /// The heads, in the order their weights are stored and packed into one GEMM: 17 keypoint
    /// heatmaps, 2×17 offsets, 2×16 edge displacements forward and backward.
    public static let heads: [(name: String, channels: Int)] = [
        ("heatmap_2", 17), ("offset_2", 34), ("displacement_fwd_2", 32), ("displacement_bwd_2", 32),
    ]
    /// Output channels of all heads together.
    public static var headChannelTotal: Int { heads.reduce(0) { $0 + $1.channels } }

    /// One block's stride and the dilation of its 3×3 convolution.
    public struct Block: Sendable, Equatable {
        public var stride: Int
        public var dilation: Int
    }

    /// Strides of blocks 0–13 of the 0.50 and 0.75 PoseNet checkpoints.
    public static let strides050And075 = [2, 1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1]
    /// Strides of blocks 0–13 of the 1.0 checkpoint.
    public static let strides100 = [2, 1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1]

    /// Each block's output channels for a width (depth multiplier): `fullWidthChannels × width`;
    /// the 0.50 and 0.75 checkpoints keep block 11's width in blocks 12 and 13.
    public static func blockChannels(widthMultiplier: Double) -> [Int] {
        let narrow = widthMultiplier < 1
        return fullWidthChannels.indices.map { block in
            Int((Double(fullWidthChannels[narrow ? min(block, 11) : block]) * widthMultiplier).rounded())
        }
    }

    /// Block strides for a backbone with these block widths: a block 12 that doubles block 11's
    /// width means the 1.0 architecture (stride 2 there), else the 0.50/0.75 one (as TF.js infers it).
    public static func blockStrides(blockChannels: [Int]) -> [Int] {
        blockChannels[12] == 2 * blockChannels[11] ? strides100 : strides050And075
    }

    /// MobileNetV1 width multiplier from block 0's channel count (`32 × width`).
    public static func widthMultiplier(firstConvChannels: Int) -> Double {
        Double(firstConvChannels) / Double(fullWidthChannels[0])
    }

    /// One block's shapes in a planned network (SAME padding): its input is
    /// `inputSide × inputSide × inputChannels`, its output `outputSide × outputSide × outputChannels`.
    public struct BlockShape: Sendable, Equatable {
        public var inputSide: Int, inputChannels: Int
        public var outputSide: Int, outputChannels: Int
        public var stride: Int, dilation: Int
    }

    /// The shapes of blocks 0–13 for a square input of `inputSize` and these block widths.
    public func blockShapes(inputSize: Int, blockChannels: [Int]) -> [BlockShape] {
        var side = inputSize, channels = 3
        return zip(blocks, blockChannels).map { block, outputChannels in
            let outputSide = (side + block.stride - 1) / block.stride
            defer { side = outputSide; channels = outputChannels }
            return BlockShape(inputSide: side, inputChannels: channels, outputSide: outputSide,
                              outputChannels: outputChannels, stride: block.stride, dilation: block.dilation)
        }
    }

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
