import PoseCore
import Tensor

/// The heads of a PoseNet forward pass, ready for decoding: the four heads packed cell by cell
/// in one tensor, as the network's head GEMM writes them.
///
/// All four share one output grid of `height × width` cells; cell `(y, x)` sits over model-input
/// pixel `(y · outputStride, x · outputStride)`. ``heads`` is `[H, W, 115]`, HWC (channel fastest):
/// each cell holds its 115 values in this order:
///
/// | channels | head | channel meaning |
/// |---|---|---|
/// | ``heatmapChannels`` `0..<17` | heatmap | keypoint score **after** the sigmoid, ``/PoseCore/BodyPart`` order |
/// | ``offsetChannels`` `17..<51` | short-range offsets | `17 + k` = dy, `34 + k` = dx of keypoint `k`, model-input pixels |
/// | ``displacementFwdChannels`` `51..<83` | mid-range displacements parent→child | `51 + e` = dy, `67 + e` = dx along ``/PoseCore/Skeleton/treeEdges``[e] |
/// | ``displacementBwdChannels`` `83..<115` | mid-range displacements child→parent | `83 + e` = dy, `99 + e` = dx |
///
/// The decoders read ``heads`` in place. ``heatmapScores``, ``offsets``, ``displacementsFwd``
/// and ``displacementsBwd`` are copies of one head each (`[H, W, 17]`, `[H, W, 34]`,
/// `[H, W, 32]`, `[H, W, 32]`), for tests and tools; ``init(heatmapScores:offsets:displacementsFwd:displacementsBwd:outputStride:)``
/// packs four such tensors.
///
/// The initializers check shapes and values once, so the decoders can read the tensor through
/// raw pointers without further checks.
public struct PoseNetOutput: Sendable {
    /// The four heads, `[H, W, 115]`, packed per cell as the table above says.
    public let heads: Tensor
    /// Model-input pixels per grid cell (8, 16 or 32 for PoseNet).
    public let outputStride: Int

    /// Grid rows.
    public var height: Int { heads.shape[0] }
    /// Grid columns.
    public var width: Int { heads.shape[1] }

    /// Number of keypoints (heatmap channels).
    public static let keypointCount = BodyPart.count
    /// Number of skeleton edges (displacement channel pairs).
    public static let edgeCount = Skeleton.treeEdges.count
    /// Channels per cell of ``heads``: 17 + 34 + 32 + 32.
    public static let channelCount = MobileNetArchitecture.headChannelTotal
    /// The heatmap's channels in ``heads``: `0..<17`.
    public static let heatmapChannels = headChannels(0)
    /// The short-range offsets' channels in ``heads``: `17..<51`.
    public static let offsetChannels = headChannels(1)
    /// The forward (parent→child) displacements' channels in ``heads``: `51..<83`.
    public static let displacementFwdChannels = headChannels(2)
    /// The backward (child→parent) displacements' channels in ``heads``: `83..<115`.
    public static let displacementBwdChannels = headChannels(3)

    /// Head `index`'s channels, in the order of ``MobileNetArchitecture/heads`` (the GEMM's).
    private static func headChannels(_ index: Int) -> Range<Int> {
        let start = MobileNetArchitecture.heads[..<index].reduce(0) { $0 + $1.channels }
        return start..<(start + MobileNetArchitecture.heads[index].channels)
    }

    /// Each head's name (in error messages) and channels.
    private static let headRanges = [("heatmap", heatmapChannels), ("offsets", offsetChannels),
                                     ("displacementsFwd", displacementFwdChannels), ("displacementsBwd", displacementBwdChannels)]

    /// Wraps packed heads (no copy) after checking them.
    ///
    /// - Throws: ``PoseDecodingError/inconsistentShapes(_:)`` unless `heads` is `[H, W, 115]`;
    ///   ``PoseDecodingError/nonFiniteValue(_:)`` when it holds NaN or ±infinity;
    ///   ``PoseDecodingError/parameterOutOfRange(_:)`` when `outputStride` is not positive.
    public init(heads: Tensor, outputStride: Int) throws {
        guard outputStride > 0 else {
            throw PoseDecodingError.parameterOutOfRange("outputStride must be positive, got \(outputStride)")
        }
        guard heads.rank == 3, heads.shape[2] == PoseNetOutput.channelCount else {
            throw PoseDecodingError.inconsistentShapes("packed heads must be [H, W, \(PoseNetOutput.channelCount)], got \(heads.shape)")
        }
        if let index = heads.firstNonFiniteIndex() {
            let (cell, channel) = index.quotientAndRemainder(dividingBy: PoseNetOutput.channelCount)
            let (name, channels) = PoseNetOutput.headRanges.first { $0.1.contains(channel) }!
            throw PoseDecodingError.nonFiniteValue(
                "\(name)[\(cell / heads.shape[1]), \(cell % heads.shape[1]), \(channel - channels.lowerBound)] is \(heads.withUnsafeBufferPointer { $0[index] })")
        }
        self.heads = heads
        self.outputStride = outputStride
    }

    /// Packs four separate heads into one tensor (a copy) and checks them, like ``init(heads:outputStride:)``.
    ///
    /// - Throws: ``PoseDecodingError/inconsistentShapes(_:)`` when a head is not rank 3, has the
    ///   wrong channel count or a different grid than the heatmap;
    ///   ``PoseDecodingError/nonFiniteValue(_:)`` when any head holds NaN or ±infinity;
    ///   ``PoseDecodingError/parameterOutOfRange(_:)`` when `outputStride` is not positive.
    public init(heatmapScores: Tensor, offsets: Tensor, displacementsFwd: Tensor,
                displacementsBwd: Tensor, outputStride: Int) throws {
        guard heatmapScores.rank == 3 else {
            throw PoseDecodingError.inconsistentShapes("heatmap must be [H, W, 17], got \(heatmapScores.shape)")
        }
        let h = heatmapScores.shape[0], w = heatmapScores.shape[1]
        for ((name, channels), tensor) in zip(PoseNetOutput.headRanges, [heatmapScores, offsets, displacementsFwd, displacementsBwd])
        where tensor.shape != [h, w, channels.count] {
            throw PoseDecodingError.inconsistentShapes(
                "\(name) must be [\(h), \(w), \(channels.count)] to match the heatmap grid, got \(tensor.shape)")
        }
        try self.init(heads: Tensor(concatenatingChannels: [heatmapScores, offsets, displacementsFwd, displacementsBwd]),
                      outputStride: outputStride)
    }

    /// Keypoint scores in 0...1, `[H, W, 17]`: a copy of ``heads``' ``heatmapChannels``.
    public var heatmapScores: Tensor { copy(PoseNetOutput.heatmapChannels) }
    /// Short-range offsets from a cell to each keypoint, `[H, W, 34]`, in model-input pixels: a copy.
    public var offsets: Tensor { copy(PoseNetOutput.offsetChannels) }
    /// Mid-range displacements from each edge's parent to its child, `[H, W, 32]`: a copy.
    public var displacementsFwd: Tensor { copy(PoseNetOutput.displacementFwdChannels) }
    /// Mid-range displacements from each edge's child to its parent, `[H, W, 32]`: a copy.
    public var displacementsBwd: Tensor { copy(PoseNetOutput.displacementBwdChannels) }

    private func copy(_ channels: Range<Int>) -> Tensor {
        try! heads.channels(channels)  // `heads` is [H, W, 115] (checked at init) and the ranges lie inside it
    }

    /// Calls `body` with raw read-only views of the four heads (valid only inside `body`).
    func withHeads<R>(_ body: (DecodingHeads) throws -> R) rethrows -> R {
        try heads.withUnsafeBufferPointer { packed in
            func view(_ channels: Range<Int>) -> HeadView { HeadView(packed, width: width, channels: channels) }
            return try body(DecodingHeads(
                scores: view(PoseNetOutput.heatmapChannels), offsets: view(PoseNetOutput.offsetChannels),
                displacementsFwd: view(PoseNetOutput.displacementFwdChannels),
                displacementsBwd: view(PoseNetOutput.displacementBwdChannels),
                height: height, width: width, outputStride: Double(outputStride)))
        }
    }
}
