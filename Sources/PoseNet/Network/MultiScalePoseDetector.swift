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
public final class MultiScalePoseDetector: PoseFinding, @unchecked Sendable {
    /// The networks, largest input first; all share one output stride.
    public let models: [PoseNetModel]
    /// Decoding; `flipAveraging` applies to every size. Its parameters are validated when it is
    /// set (an invalid set is thrown by the next `detect`), not on every frame.
    public var decoding: PoseDecoding {
        get { checkedDecoding.decoding }
        set { checkedDecoding.decoding = newValue }
    }
    private var checkedDecoding: CheckedDecoding
    /// The averaged heads on the largest model's grid, packed like ``PoseNetModel/heads``.
    private let merged: Tensor
    /// One model's heads resampled onto that grid.
    private let resampled: Tensor

    public var input: Tensor { models[0].input }
    /// The largest model's input scaling (every scale is resampled from that input).
    public var inputScaling: InputScaling { models[0].inputScaling }

    /// - Throws: ``PoseNetError`` when the models do not share an output stride, are not ordered
    ///   largest first, or a size is not `stride · k + 1` (so grid cells sit on input pixels).
    public init(models: [PoseNetModel], decoding: PoseDecoding) throws {
        guard let first = models.first else { throw PoseNetError.invalidConfiguration("multi-scale needs at least one model") }
        for model in models {
            guard model.outputStride == first.outputStride, model.inputSize <= first.inputSize,
                  (model.inputSize - 1) % model.outputStride == 0 else {
                throw PoseNetError.invalidConfiguration(
                    "multi-scale sizes must be stride·k+1, largest first, one output stride; got \(models.map(\.inputSize)) at strides \(models.map(\.outputStride))")
            }
        }
        self.models = models
        checkedDecoding = CheckedDecoding(decoding)
        merged = try Tensor(zeros: first.heads.shape)
        resampled = try Tensor(zeros: first.heads.shape)
    }

    /// `padding` is the largest input's band (``PoseNetModel/run(padding:)``); each smaller
    /// input, resampled from it, gets the rows (columns) whose samples all come from the band.
    public func detect(mappingTo transform: ImageTransform, imageSize: (width: Int, height: Int)?,
                       padding: PaddingBand?, afterNetwork: () -> Void) throws -> [Pose] {
        let parameters = try checkedDecoding.validatedParameters()
        let largest = models[0].inputSize
        for (index, model) in models.enumerated() {
            if index > 0 { Self.resampleAlignCorners(models[0].input, into: model.input, scale: 1) }
            let band = index == 0 ? padding : padding.flatMap { Self.band($0, resampledFrom: largest, to: model.inputSize) }
            if decoding.flipAveraging { try model.runWithFlipAveraging(padding: band) } else { try model.run(padding: band) }
            // Heat maps are scores (no unit); offsets and displacements are this model's input pixels.
            let ratio = Float(largest - 1) / Float(model.inputSize - 1)
            let scales = PoseNetOutput.heatmapChannels.map { _ in Float(1) }
                + [Float](repeating: ratio, count: PoseNetOutput.channelCount - PoseNetOutput.heatmapChannels.count)
            Self.resampleAlignCorners(model.heads, into: index == 0 ? merged : resampled, channelScales: scales)
            if index > 0 { Self.accumulate(resampled, into: merged) }
        }
        afterNetwork()
        if models.count > 1 {
            let share = 1 / Float(models.count)
            merged.withUnsafeMutableBufferPointer { p in for i in p.indices { p[i] *= share } }
        }
        let heads = try PoseNetOutput(heads: merged, outputStride: models[0].outputStride)
        return decoding.poses(from: heads, parameters: parameters, mappingTo: transform, imageSize: imageSize)
    }

    public func sharingWeights(threads: Int) throws -> any PoseFinding {
        try MultiScalePoseDetector(models: models.map {
            try PoseNetModel(weights: $0.weights, inputSize: $0.inputSize, outputStride: $0.outputStride, threads: threads)
        }, decoding: decoding)
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
