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
    /// Decoding; `flipAveraging` applies to every size. Its parameters are validated when it is
    /// set (an invalid set is thrown by the next `detect`), not on every frame.
    public var decoding: PoseDecoding {
        get { checkedDecoding.decoding }
        set { checkedDecoding.decoding = newValue }
    }
    private var checkedDecoding: CheckedDecoding
    /// At most this many network-input pixels per frame pixel, or nil for the configured sizes
    /// whatever the frame. A size that would enlarge the frame more is replaced by the largest
    /// `stride · k + 1` size that does not (`1`: never past the frame's native size), so a
    /// 215-pixel photo runs at 209 rather than blown up to 769.
    public let maximumUpscale: Double?
    /// Networks at sizes the upscale limit chose, by size (the configured ones included); all on
    /// the configured models' weights.
    private var modelsBySize: [Int: PoseNetModel] = [:]
    /// The averaged heads and one model's resampled heads (packed like ``PoseNetModel/heads``),
    /// by the input size of the largest network run, whose grid they are on.
    private var mergeBuffers: [Int: (merged: Tensor, resampled: Tensor)] = [:]

    /// How the one-call methods fit a frame into the largest model's input.
    public let geometry: InputPlacement.Fit
    /// The one-call methods' lock and planned frame-to-input writer.
    package let frameInputWriters = FrameInputWriters()

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
        checkedDecoding = CheckedDecoding(decoding)
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

    /// `padding` is the configured largest input's band (``PoseNetModel/run(padding:)``); each
    /// other input, resampled from it, gets the rows (columns) whose samples all come from the band.
    public func detect(mappingTo transform: ImageTransform, imageSize: (width: Int, height: Int)?,
                       padding: PaddingBand?, afterNetwork: () -> Void) throws -> [Pose] {
        let parameters = try checkedDecoding.validatedParameters()
        let scales = try inputSizes(imageSize: imageSize).map(model(ofSize:))
        let (merged, resampled) = try buffers(for: scales[0])
        let configured = models[0].inputSize
        for (index, model) in scales.enumerated() {
            let band: PaddingBand?
            if model === models[0] {
                band = padding
            } else {
                Self.resampleAlignCorners(models[0].input, into: model.input, scale: 1)
                band = padding.flatMap { Self.band($0, resampledFrom: configured, to: model.inputSize) }
            }
            if decoding.flipAveraging { try model.runWithFlipAveraging(padding: band) } else { try model.run(padding: band) }
            // Heat maps are scores (no unit); offsets and displacements are this model's input pixels.
            let ratio = Float(scales[0].inputSize - 1) / Float(model.inputSize - 1)
            let channelScales = PoseNetOutput.heatmapChannels.map { _ in Float(1) }
                + [Float](repeating: ratio, count: PoseNetOutput.channelCount - PoseNetOutput.heatmapChannels.count)
            Self.resampleAlignCorners(model.heads, into: index == 0 ? merged : resampled, channelScales: channelScales)
            if index > 0 { Self.accumulate(resampled, into: merged) }
        }
        afterNetwork()
        if scales.count > 1 {
            let share = 1 / Float(scales.count)
            merged.withUnsafeMutableBufferPointer { p in for i in p.indices { p[i] *= share } }
        }
        let heads = try PoseNetOutput(heads: merged, outputStride: models[0].outputStride)
        // Poses come in the pixels of the largest size run; the caller's transform takes the
        // configured largest size's pixels (align-corners: the corners are the same pixels).
        let toConfigured = Double(configured - 1) / Double(scales[0].inputSize - 1)
        let mapping = ImageTransform(scaleX: transform.scaleX * toConfigured, scaleY: transform.scaleY * toConfigured,
                                     offsetX: transform.offsetX, offsetY: transform.offsetY)
        return decoding.poses(from: heads, parameters: parameters, mappingTo: mapping)
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

    private func buffers(for model: PoseNetModel) throws -> (merged: Tensor, resampled: Tensor) {
        if let buffers = mergeBuffers[model.inputSize] { return buffers }
        let buffers = (merged: try Tensor(zeros: model.heads.shape), resampled: try Tensor(zeros: model.heads.shape))
        mergeBuffers[model.inputSize] = buffers
        return buffers
    }

    /// Bilinear resize of `[H, W, C]` into `[h, w, C]` with corners aligned (output pixel `o`
    /// samples input `o · (H − 1) / (h − 1)`), every value times `scale`.
    static func resampleAlignCorners(_ source: Tensor, into target: Tensor, scale: Float) {
        resampleAlignCorners(source, into: target, channelScales: [Float](repeating: scale, count: source.shape[2]))
    }

    /// ``resampleAlignCorners(_:into:scale:)`` with channel `ch` times `channelScales[ch]`.
    static func resampleAlignCorners(_ source: Tensor, into target: Tensor, channelScales scales: [Float]) {
        let (h, w, c) = (source.shape[0], source.shape[1], source.shape[2])
        let (oh, ow) = (target.shape[0], target.shape[1])
        source.withUnsafeBufferPointer { src in
            target.withUnsafeMutableBufferPointer { dst in
                for oy in 0..<oh {
                    let (y0, y1, fy) = alignCornersSample(oy, of: oh, from: h)
                    for ox in 0..<ow {
                        let (x0, x1, fx) = alignCornersSample(ox, of: ow, from: w)
                        let p00 = (y0 * w + x0) * c, p01 = (y0 * w + x1) * c
                        let p10 = (y1 * w + x0) * c, p11 = (y1 * w + x1) * c
                        let out = (oy * ow + ox) * c
                        for ch in 0..<c {
                            let top = src[p00 + ch] + (src[p01 + ch] - src[p00 + ch]) * fx
                            let bottom = src[p10 + ch] + (src[p11 + ch] - src[p10 + ch]) * fx
                            dst[out + ch] = scales[ch] * (top + (bottom - top) * fy)
                        }
                    }
                }
            }
        }
    }

    /// Where output pixel `o` of `outputs` samples `inputs` with corners aligned: between input
    /// pixels `i0` and `i1 = i0 + 1` (clamped), `fraction` of the way.
    @inline(__always)
    static func alignCornersSample(_ o: Int, of outputs: Int, from inputs: Int) -> (i0: Int, i1: Int, fraction: Float) {
        let ratio = outputs > 1 ? Float(inputs - 1) / Float(outputs - 1) : 0
        let position = Float(o) * ratio
        let i0 = min(Int(position), inputs - 1)
        return (i0, min(i0 + 1, inputs - 1), position - Float(i0))
    }

    /// The padding band of an input resampled (``resampleAlignCorners(_:into:scale:)``) from a
    /// `sourceSize` input with band `band` to `targetSize`: the rows (columns) both of whose
    /// samples lie in the band, whose values are then the band's, bit for bit (`a + (a − a)·f` is
    /// `a`); nil when there are none.
    static func band(_ band: PaddingBand, resampledFrom sourceSize: Int, to targetSize: Int) -> PaddingBand? {
        let inside = (0..<targetSize).filter { o in
            let (i0, i1, _) = alignCornersSample(o, of: targetSize, from: sourceSize)
            return band.range.contains(i0) && band.range.contains(i1)
        }
        guard let first = inside.first, let last = inside.last else { return nil }
        return PaddingBand(axis: band.axis, range: first..<(last + 1))
    }

    private static func accumulate(_ source: Tensor, into target: Tensor) {
        source.withUnsafeBufferPointer { s in
            target.withUnsafeMutableBufferPointer { t in for i in t.indices { t[i] += s[i] } }
        }
    }
}
