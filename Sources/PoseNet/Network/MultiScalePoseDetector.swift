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
    /// The networks at the configured sizes, largest input first; all share one output stride.
    public let models: [PoseNetModel]
    /// Decoding; `flipAveraging` applies to every size.
    public var decoding: PoseDecoding
    /// At most this many network-input pixels per frame pixel, or nil for the configured sizes
    /// whatever the frame. A size that would enlarge the frame more is replaced by the largest
    /// `stride · k + 1` size that does not (`1`: never past the frame's native size), so a
    /// 215-pixel photo runs at 209 rather than blown up to 769.
    public let maximumUpscale: Double?
    /// Networks at sizes the upscale limit chose, by size (the configured ones included); all on
    /// the configured models' weights.
    private var modelsBySize: [Int: PoseNetModel] = [:]
    /// The averaged heads and one model's resampled heads, by the output grid they are on.
    private var mergeBuffers: [Int: (merged: [Tensor], resampled: [Tensor])] = [:]

    /// How the one-call methods fit a frame into the largest model's input.
    public let geometry: InputPlacement.Fit
    /// The one-call methods' lock and planned frame-to-input writer.
    let frameInputWriters = FrameInputWriters()

    /// Input of the largest configured size: every size the frame runs at is resampled from it.
    public var input: Tensor { models[0].input }
    /// Cores each model uses.
    public var threads: Int { models[0].threads }
    /// The largest model's input scaling (every scale is resampled from that input).
    public var inputScaling: InputScaling { models[0].inputScaling }

    /// - Throws: ``PoseNetError`` when the models do not share an output stride, are not ordered
    ///   largest first, or a size is not `stride · k + 1` (so grid cells sit on input pixels), or
    ///   when `maximumUpscale` is not positive and finite.
    public init(models: [PoseNetModel], decoding: PoseDecoding, maximumUpscale: Double? = nil,
                geometry: InputPlacement.Fit = .letterbox) throws {
        guard let first = models.first else { throw PoseNetError.invalidConfiguration("multi-scale needs at least one model") }
        for model in models {
            guard model.outputStride == first.outputStride, model.inputSize <= first.inputSize,
                  (model.inputSize - 1) % model.outputStride == 0 else {
                throw PoseNetError.invalidConfiguration(
                    "multi-scale sizes must be stride·k+1, largest first, one output stride; got \(models.map(\.inputSize)) at strides \(models.map(\.outputStride))")
            }
        }
        if let maximumUpscale, !(maximumUpscale.isFinite && maximumUpscale > 0) {
            throw PoseNetError.invalidConfiguration("the largest upscale must be finite and positive, got \(maximumUpscale)")
        }
        self.models = models
        self.decoding = decoding
        self.geometry = geometry
        self.maximumUpscale = maximumUpscale
        for model in models { modelsBySize[model.inputSize] = model }
    }

    /// The input sizes a frame of `imageSize` runs at, largest first, without repeats: the
    /// configured ones, each capped by ``maximumUpscale``.
    public func inputSizes(imageSize: (width: Int, height: Int)?) -> [Int] {
        let configured = models.map(\.inputSize)
        guard let maximumUpscale, let imageSize else { return configured }
        let stride = models[0].outputStride
        // The frame's long side is what the square input holds (letterbox; stretch fills both axes).
        let limit = Double(max(imageSize.width, imageSize.height)) * maximumUpscale
        let aligned = Int(((limit - 1) / Double(stride)).rounded(.down)) * stride + 1
        let cap = max(aligned, Self.smallestInputSize)
        var sizes: [Int] = []
        for size in configured.map({ min($0, cap) }) where !sizes.contains(size) { sizes.append(size) }
        return sizes
    }

    /// The smallest input an upscale limit leads to (two output cells at stride 16).
    public static let smallestInputSize = 33

    public func detect(mappingTo transform: ImageTransform, imageSize: (width: Int, height: Int)?,
                       afterNetwork: () -> Void) throws -> [Pose] {
        let scales = try inputSizes(imageSize: imageSize).map(model(ofSize:))
        let (merged, resampled) = try buffers(for: scales[0])
        for (index, model) in scales.enumerated() {
            if model !== models[0] { Self.resampleAlignCorners(models[0].input, into: model.input, scale: 1) }
            if decoding.flipAveraging { try model.runWithFlipAveraging() } else { try model.run() }
            let heads = [model.heatmapScores, model.offsets, model.displacementsFwd, model.displacementsBwd]
            // Heat maps are scores (no unit); offsets and displacements are this model's input pixels.
            let ratio = Float(scales[0].inputSize - 1) / Float(model.inputSize - 1)
            for (h, head) in heads.enumerated() {
                let target = index == 0 ? merged[h] : resampled[h]
                Self.resampleAlignCorners(head, into: target, scale: h == 0 ? 1 : ratio)
                if index > 0 { Self.accumulate(resampled[h], into: merged[h]) }
            }
        }
        afterNetwork()
        if scales.count > 1 {
            let share = 1 / Float(scales.count)
            for head in merged { head.withUnsafeMutableBufferPointer { p in for i in p.indices { p[i] *= share } } }
        }
        let heads = try PoseNetOutput(heatmapScores: merged[0], offsets: merged[1], displacementsFwd: merged[2],
                                      displacementsBwd: merged[3], outputStride: models[0].outputStride)
        // Poses come in the pixels of the largest size run; the caller's transform takes the
        // configured largest size's pixels (align-corners: the corners are the same pixels).
        let toConfigured = Double(models[0].inputSize - 1) / Double(scales[0].inputSize - 1)
        let mapping = ImageTransform(scaleX: transform.scaleX * toConfigured, scaleY: transform.scaleY * toConfigured,
                                     offsetX: transform.offsetX, offsetY: transform.offsetY)
        return try decoding.poses(from: heads, mappingTo: mapping, imageSize: imageSize)
    }

    public func sharingWeights(threads: Int) throws -> MultiScalePoseDetector {
        try MultiScalePoseDetector(models: models.map {
            try PoseNetModel(weights: $0.weights, inputSize: $0.inputSize, outputStride: $0.outputStride, threads: threads)
        }, decoding: decoding, maximumUpscale: maximumUpscale, geometry: geometry)
    }

    /// The network at `size`, made on first use (on the configured models' weights and threads).
    private func model(ofSize size: Int) throws -> PoseNetModel {
        if let model = modelsBySize[size] { return model }
        // Photos of many sizes: keep the configured models and a few others, not one per size seen.
        if modelsBySize.count >= models.count + Self.extraModelsKept {
            modelsBySize = modelsBySize.filter { entry in models.contains { $0 === entry.value } }
            mergeBuffers = [:]
        }
        let model = try PoseNetModel(weights: models[0].weights, inputSize: size, outputStride: models[0].outputStride,
                                     threads: models[0].threads)
        modelsBySize[size] = model
        return model
    }

    /// Networks kept at sizes other than the configured ones.
    private static let extraModelsKept = 4

    private func buffers(for model: PoseNetModel) throws -> (merged: [Tensor], resampled: [Tensor]) {
        if let buffers = mergeBuffers[model.inputSize] { return buffers }
        let heads = [model.heatmapScores, model.offsets, model.displacementsFwd, model.displacementsBwd]
        let buffers = (merged: try heads.map { try Tensor(zeros: $0.shape) }, resampled: try heads.map { try Tensor(zeros: $0.shape) })
        mergeBuffers[model.inputSize] = buffers
        return buffers
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
