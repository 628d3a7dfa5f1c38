import PoseCore
import Tensor

/// Multi-scale test-time augmentation: the same frame at several input sizes, heads resampled
/// onto the largest size's output grid and averaged, then decoded once (`posekit pose --accurate`).
///
/// Geometry (align-corners, so no half-pixel shifts): the frame is written into the largest
/// model's input (size `S0`); each smaller input of size `S` is resampled from it so that its
/// pixel `p` is the large input's pixel `p · (S0 − 1) / (S − 1)`. A head cell `g` sits at input
/// pixel `g · stride` at every size, so the smaller grid is resampled onto the large one by the
/// same ratio, and its offsets and displacements (input pixels) are multiplied by it. Large
/// people are found reliably at the smaller size, small people at the larger one; averaging
/// the heat maps keeps both.
public final class MultiScalePoseDetector: PoseFinding, FrameInputHolding, @unchecked Sendable {
    /// The networks, largest input first; all share one output stride.
    public let models: [PoseNetModel]
    /// Decoding; `flipAveraging` applies to every size.
    public var decoding: PoseDecoding
    /// The averaged heads on the largest model's grid.
    private let merged: [Tensor]
    /// One model's heads resampled onto that grid.
    private let resampled: [Tensor]

    /// How the one-call methods fit a frame into the largest model's input.
    public let geometry: InputPlacement.Fit
    /// The one-call methods' lock and planned frame-to-input writer.
    let frameInputWriters = FrameInputWriters()

    public var input: Tensor { models[0].input }
    /// Cores each model uses.
    public var threads: Int { models[0].threads }
    /// The largest model's input scaling (every scale is resampled from that input).
    public var inputScaling: InputScaling { models[0].inputScaling }

    /// - Throws: ``PoseNetError`` when the models do not share an output stride, are not ordered
    ///   largest first, or a size is not `stride · k + 1` (so grid cells sit on input pixels).
    public init(models: [PoseNetModel], decoding: PoseDecoding, geometry: InputPlacement.Fit = .letterbox) throws {
        guard let first = models.first else { throw PoseNetError.invalidConfiguration("multi-scale needs at least one model") }
        for model in models {
            guard model.outputStride == first.outputStride, model.inputSize <= first.inputSize,
                  (model.inputSize - 1) % model.outputStride == 0 else {
                throw PoseNetError.invalidConfiguration(
                    "multi-scale sizes must be stride·k+1, largest first, one output stride; got \(models.map(\.inputSize)) at strides \(models.map(\.outputStride))")
            }
        }
        self.models = models
        self.decoding = decoding
        self.geometry = geometry
        let heads = [first.heatmapScores, first.offsets, first.displacementsFwd, first.displacementsBwd]
        merged = try heads.map { try Tensor(zeros: $0.shape) }
        resampled = try heads.map { try Tensor(zeros: $0.shape) }
    }

    public func detect(mappingTo transform: ImageTransform, imageSize: (width: Int, height: Int)?,
                       afterNetwork: () -> Void) throws -> [Pose] {
        for (index, model) in models.enumerated() {
            if index > 0 { Self.resampleAlignCorners(models[0].input, into: model.input, scale: 1) }
            if decoding.flipAveraging { try model.runWithFlipAveraging() } else { try model.run() }
            let heads = [model.heatmapScores, model.offsets, model.displacementsFwd, model.displacementsBwd]
            // Heat maps are scores (no unit); offsets and displacements are this model's input pixels.
            let ratio = Float(models[0].inputSize - 1) / Float(model.inputSize - 1)
            for (h, head) in heads.enumerated() {
                let target = index == 0 ? merged[h] : resampled[h]
                Self.resampleAlignCorners(head, into: target, scale: h == 0 ? 1 : ratio)
                if index > 0 { Self.accumulate(resampled[h], into: merged[h]) }
            }
        }
        afterNetwork()
        if models.count > 1 {
            let share = 1 / Float(models.count)
            for head in merged { head.withUnsafeMutableBufferPointer { p in for i in p.indices { p[i] *= share } } }
        }
        let heads = try PoseNetOutput(heatmapScores: merged[0], offsets: merged[1], displacementsFwd: merged[2],
                                      displacementsBwd: merged[3], outputStride: models[0].outputStride)
        return try decoding.poses(from: heads, mappingTo: transform, imageSize: imageSize)
    }

    public func sharingWeights(threads: Int) throws -> MultiScalePoseDetector {
        try MultiScalePoseDetector(models: models.map {
            try PoseNetModel(weights: $0.weights, inputSize: $0.inputSize, outputStride: $0.outputStride, threads: threads)
        }, decoding: decoding, geometry: geometry)
    }

    /// Bilinear resize of `[H, W, C]` into `[h, w, C]` with corners aligned (output pixel `o`
    /// samples input `o · (H − 1) / (h − 1)`), every value times `scale`.
    static func resampleAlignCorners(_ source: Tensor, into target: Tensor, scale: Float) {
        let (h, w, c) = (source.shape[0], source.shape[1], source.shape[2])
        let (oh, ow) = (target.shape[0], target.shape[1])
        let ry = oh > 1 ? Float(h - 1) / Float(oh - 1) : 0, rx = ow > 1 ? Float(w - 1) / Float(ow - 1) : 0
        source.withUnsafeBufferPointer { src in
            target.withUnsafeMutableBufferPointer { dst in
                for oy in 0..<oh {
                    let sy = Float(oy) * ry
                    let y0 = min(Int(sy), h - 1), y1 = min(y0 + 1, h - 1), fy = sy - Float(y0)
                    for ox in 0..<ow {
                        let sx = Float(ox) * rx
                        let x0 = min(Int(sx), w - 1), x1 = min(x0 + 1, w - 1), fx = sx - Float(x0)
                        let p00 = (y0 * w + x0) * c, p01 = (y0 * w + x1) * c
                        let p10 = (y1 * w + x0) * c, p11 = (y1 * w + x1) * c
                        let out = (oy * ow + ox) * c
                        for ch in 0..<c {
                            let top = src[p00 + ch] + (src[p01 + ch] - src[p00 + ch]) * fx
                            let bottom = src[p10 + ch] + (src[p11 + ch] - src[p10 + ch]) * fx
                            dst[out + ch] = scale * (top + (bottom - top) * fy)
                        }
                    }
                }
            }
        }
    }

    private static func accumulate(_ source: Tensor, into target: Tensor) {
        source.withUnsafeBufferPointer { s in
            target.withUnsafeMutableBufferPointer { t in for i in t.indices { t[i] += s[i] } }
        }
    }
}
