import PoseCore
import Tensor

/// The four head tensors of a PoseNet forward pass, ready for decoding.
///
/// All four share one output grid of `height × width` cells; cell `(y, x)` sits over model-input
/// pixel `(y · outputStride, x · outputStride)`. Layouts are HWC (channel fastest):
///
/// | head | shape | channel meaning |
/// |---|---|---|
/// | ``heatmapScores`` | `[H, W, 17]` | keypoint score **after** the sigmoid, ``/PoseCore/BodyPart`` order |
/// | ``offsets`` | `[H, W, 34]` | ch `k` = dy, ch `k + 17` = dx of keypoint `k`, model-input pixels |
/// | ``displacementsFwd`` | `[H, W, 32]` | ch `e` = dy, ch `e + 16` = dx along ``/PoseCore/Skeleton/treeEdges``[e], parent→child |
/// | ``displacementsBwd`` | `[H, W, 32]` | as above, child→parent |
///
/// The initializer checks shapes and values once, so the decoders can read the tensors through
/// raw pointers without further checks.
public struct PoseNetOutput: Sendable {
    /// Keypoint scores in 0...1, `[H, W, 17]`.
    public let heatmapScores: Tensor
    /// Short-range offsets from a cell to each keypoint, `[H, W, 34]`, in model-input pixels.
    public let offsets: Tensor
    /// Mid-range displacements from each edge's parent to its child, `[H, W, 32]`.
    public let displacementsFwd: Tensor
    /// Mid-range displacements from each edge's child to its parent, `[H, W, 32]`.
    public let displacementsBwd: Tensor
    /// Model-input pixels per grid cell (8, 16 or 32 for PoseNet).
    public let outputStride: Int

    /// Grid rows.
    public var height: Int { heatmapScores.shape[0] }
    /// Grid columns.
    public var width: Int { heatmapScores.shape[1] }

    /// Number of keypoints (heatmap channels).
    public static let keypointCount = BodyPart.count
    /// Number of skeleton edges (displacement channel pairs).
    public static let edgeCount = Skeleton.treeEdges.count

    /// Wraps the four heads after checking that they fit together.
    ///
    /// - Throws: ``PoseDecodingError/inconsistentShapes(_:)`` when a head is not rank 3, has the
    ///   wrong channel count or a different grid than the heatmap;
    ///   ``PoseDecodingError/nonFiniteValue(_:)`` when any head holds NaN or ±infinity;
    ///   ``PoseDecodingError/parameterOutOfRange(_:)`` when `outputStride` is not positive.
    public init(heatmapScores: Tensor, offsets: Tensor, displacementsFwd: Tensor,
                displacementsBwd: Tensor, outputStride: Int) throws {
        guard outputStride > 0 else {
            throw PoseDecodingError.parameterOutOfRange("outputStride must be positive, got \(outputStride)")
        }
        guard heatmapScores.rank == 3 else {
            throw PoseDecodingError.inconsistentShapes("heatmap must be [H, W, 17], got \(heatmapScores.shape)")
        }
        let h = heatmapScores.shape[0], w = heatmapScores.shape[1]
        let expected: [(String, Tensor, Int)] = [
            ("heatmap", heatmapScores, PoseNetOutput.keypointCount),
            ("offsets", offsets, 2 * PoseNetOutput.keypointCount),
            ("displacementsFwd", displacementsFwd, 2 * PoseNetOutput.edgeCount),
            ("displacementsBwd", displacementsBwd, 2 * PoseNetOutput.edgeCount),
        ]
        for (name, tensor, channels) in expected where tensor.shape != [h, w, channels] {
            throw PoseDecodingError.inconsistentShapes(
                "\(name) must be [\(h), \(w), \(channels)] to match the heatmap grid, got \(tensor.shape)")
        }
        for (name, tensor, _) in expected {
            if let index = PoseNetOutput.firstNonFinite(tensor) {
                let c = tensor.shape[2], cell = index / c
                throw PoseDecodingError.nonFiniteValue(
                    "\(name)[\(cell / w), \(cell % w), \(index % c)] is \(tensor.withUnsafeBufferPointer { $0[index] })")
            }
        }
        self.heatmapScores = heatmapScores
        self.offsets = offsets
        self.displacementsFwd = displacementsFwd
        self.displacementsBwd = displacementsBwd
        self.outputStride = outputStride
    }

    /// Index of the first NaN or infinity, or `nil`. A float is non-finite exactly when its 8
    /// exponent bits are all ones; `(bits & mask) ≤ mask` always, so the maximum over the tensor
    /// equals `mask` iff some value is non-finite. That max is a branch-free integer reduction
    /// the compiler vectorises, so the check costs a few microseconds per frame.
    static func firstNonFinite(_ tensor: Tensor) -> Int? {
        let exponentMask: UInt32 = 0x7f80_0000
        return tensor.withUnsafeBufferPointer { values -> Int? in
            let largest = UnsafeRawBufferPointer(values).withMemoryRebound(to: UInt32.self) { bits in
                bits.reduce(0) { max($0, $1 & exponentMask) }
            }
            guard largest == exponentMask else { return nil }
            return values.firstIndex { !$0.isFinite }
        }
    }

    /// Calls `body` with raw read-only views of the four heads (valid only inside `body`).
    func withHeads<R>(_ body: (DecodingHeads) throws -> R) rethrows -> R {
        try heatmapScores.withUnsafeBufferPointer { scores in
            try offsets.withUnsafeBufferPointer { offsets in
                try displacementsFwd.withUnsafeBufferPointer { fwd in
                    try displacementsBwd.withUnsafeBufferPointer { bwd in
                        try body(DecodingHeads(
                            scores: HeadView(scores, width: width, channels: PoseNetOutput.keypointCount),
                            offsets: HeadView(offsets, width: width, channels: 2 * PoseNetOutput.keypointCount),
                            displacementsFwd: HeadView(fwd, width: width, channels: 2 * PoseNetOutput.edgeCount),
                            displacementsBwd: HeadView(bwd, width: width, channels: 2 * PoseNetOutput.edgeCount),
                            height: height, width: width, outputStride: Double(outputStride)))
                    }
                }
            }
        }
    }
}
