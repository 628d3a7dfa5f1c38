import ModelGraph
import PoseCore
import Tensor

/// A PoseNet (MobileNetV1 backbone + four 1×1 heads) planned for one input size and output stride:
/// its graph (``PoseNetWeights/graph(inputSize:outputStride:packedHeads:)``) on a `GraphRunner`,
/// fed in place and its heads handed to the decoders in place.
///
/// All activation memory is allocated once in `init` (the runner's buffer pool), so
/// ``run(padding:)`` allocates nothing: write a frame into ``input`` and call ``run(padding:)`` as
/// often as you like. The weights are a ``PoseNetWeights``, which any number of models (other
/// sizes, strides, thread counts) share, packed once.
///
/// Layouts: ``input`` is `[inputSize, inputSize, 3]` NHWC RGB scaled by ``inputScaling`` (from the
/// bundle's manifest; PoseNet: `x·2/255 − 1`, so `[-1, 1]`). The four heads come out of one GEMM
/// packed per cell in ``heads``, `[outputHeight, outputWidth, 115]`: heatmap (17, after the
/// sigmoid), offsets (34: ch k = dy, k+17 = dx, input pixels), forward and backward displacements
/// (32 + 32: ch e = dy, e+16 = dx); ``PoseNetOutput`` has the channel table. The decoders read
/// them in place (``output``); ``heatmapScores`` and the other three are copies of one head each.
///
///     model.input.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) }
///     try model.run(padding: writer.paddingBand)
///     let poses = try decodeMultiplePoses(try model.output)
///
/// The model is not thread-safe: one ``run(padding:)`` at a time per instance (it uses all `threads` cores).
public final class PoseNetModel: @unchecked Sendable {
    /// Side of the square input, in pixels.
    public let inputSize: Int
    /// Input pixels per output cell.
    public let outputStride: Int
    /// Output grid size: `ceil(inputSize / outputStride)` (SAME padding).
    public let outputHeight: Int, outputWidth: Int
    /// Cores the kernels use.
    public let threads: Int
    /// Floating-point operations of one forward pass (2 per multiply-add).
    public let flops: Int

    /// The network input, `[inputSize, inputSize, 3]`, RGB scaled by ``inputScaling``. Fill it, then ``run(padding:)``.
    public let input: Tensor
    /// How 0…255 pixel values become ``input`` values (the manifest's `preprocessing`).
    public let inputScaling: InputScaling
    /// The four heads of the last run, packed per cell, `[H, W, 115]` (``PoseNetOutput/heads``
    /// has the channel table; the heatmap is after the sigmoid); rewritten by every ``run(padding:)``.
    public let heads: Tensor

    /// ``heads`` ready for the decoders (no copy; valid until the next run).
    ///
    /// - Throws: ``PoseDecodingError/nonFiniteValue(_:)`` when a head holds NaN or infinity.
    public var output: PoseNetOutput {
        get throws { try PoseNetOutput(heads: heads, outputStride: outputStride) }
    }

    /// Heatmap scores after sigmoid, `[H, W, 17]`: a copy of ``heads``' channels `0..<17`, made on each access.
    public var heatmapScores: Tensor { headCopy(PoseNetOutput.heatmapChannels) }
    /// Short-range offsets, `[H, W, 34]`: a copy of ``heads``' channels `17..<51`.
    public var offsets: Tensor { headCopy(PoseNetOutput.offsetChannels) }
    /// Mid-range displacements parent→child, `[H, W, 32]`: a copy of ``heads``' channels `51..<83`.
    public var displacementsFwd: Tensor { headCopy(PoseNetOutput.displacementFwdChannels) }
    /// Mid-range displacements child→parent, `[H, W, 32]`: a copy of ``heads``' channels `83..<115`.
    public var displacementsBwd: Tensor { headCopy(PoseNetOutput.displacementBwdChannels) }

    private func headCopy(_ channels: Range<Int>) -> Tensor {
        try! heads.channels(channels)  // `heads` is [H, W, 115] and the ranges lie inside it
    }

    /// The weights this model reads; other models may share them (``init(weights:inputSize:outputStride:threads:)``).
    public let weights: PoseNetWeights
    /// The graph this model runs (the heads packed: one output, ``PoseNetGraph/headsName``).
    public let graph: Graph
    private let runner: GraphRunner
    /// The heads of the first of ``runWithFlipAveraging(padding:)``'s two runs; made on its first call.
    var flipScratch: Tensor?

    /// Whether the pointwise layers leave out of each tile's product the input channels that are
    /// zero in all of its pixels (``/Tensor/Convolution/pointwise(_:packed:activation:into:skippingZeroChannels:threads:)``);
    /// true by default.
    ///
    /// ReLU6 makes such channels common: on real frames they are 15–30% of the 17×17 blocks'
    /// work and 44% of the first block's, and a 257 forward pass takes 0.83–0.89× the time (one
    /// thread, Zen 3). Each layer call scans a sample of its tiles first and goes on only where
    /// the zeros pay for the scan. The outputs are the same (a skipped term adds a zero). The
    /// saving depends on the image, so set it to false to time the full network.
    public var skipsZeroChannels: Bool {
        get { runner.skipsZeroChannels }
        set { runner.skipsZeroChannels = newValue }
    }

    /// Builds the network from weights looked up by canonical TF name.
    ///
    /// - Parameters:
    ///   - lookup: returns the float32 tensor for a canonical name such as
    ///     `MobilenetV1/Conv2d_3_pointwise/weights` (HWIO layouts, depthwise `[3,3,C,1]`).
    ///   - blockStrides: the 14 block strides; `nil` infers them like TF.js does (a last
    ///     pointwise layer that doubles the width means the 1.0 architecture).
    ///   - inputSize: side of the square input (16k+1 aligns the grid: 257, 353, 513).
    ///   - outputStride: 8, 16 or 32.
    ///   - threads: cores for the kernels.
    ///   - inputScaling: how pixel values become input values (a bundle's manifest records it).
    public convenience init(
        weights lookup: (String) throws -> Tensor, blockStrides: [Int]? = nil,
        inputSize: Int, outputStride: Int, threads: Int, inputScaling: InputScaling = .minusOneToOne
    ) throws {
        try self.init(weights: PoseNetWeights(lookup: lookup, blockStrides: blockStrides, inputScaling: inputScaling),
                      inputSize: inputSize, outputStride: outputStride, threads: threads)
    }

    /// Plans the network for one input size, output stride and thread count on `weights`, which
    /// it shares with every other model built from them (it allocates only its activations).
    ///
    ///     let large = try PoseNetModel(bundle: bundle, inputSize: 513, outputStride: 8, threads: 2)
    ///     let small = try PoseNetModel(weights: large.weights, inputSize: 401, outputStride: 8, threads: 2)
    ///
    /// - Throws: ``PoseNetError/invalidConfiguration(_:)`` for an input size outside 17...4097,
    ///   fewer than 1 thread, or an output stride the backbone cannot give.
    public init(weights: PoseNetWeights, inputSize: Int, outputStride: Int, threads: Int) throws {
        guard threads >= 1 else { throw PoseNetError.invalidConfiguration("threads must be at least 1, got \(threads)") }
        let graph = try weights.graph(inputSize: inputSize, outputStride: outputStride, packedHeads: true)
        do {
            runner = try GraphRunner(graph: graph, threads: threads, precision: weights.precision)
        } catch let error as GraphRunnerError {
            throw PoseNetError.invalidConfiguration(error.description)
        }
        self.graph = graph
        self.weights = weights
        self.inputSize = inputSize
        self.outputStride = outputStride
        self.threads = threads
        self.inputScaling = weights.inputScaling
        input = runner.inputBuffers[0]
        heads = runner.outputBuffers[0]
        (outputHeight, outputWidth) = (heads.shape[0], heads.shape[1])
        flops = 2 * graph.multiplyAdds
    }

    /// Runs the network on ``input`` and rewrites ``heads``.
    ///
    /// `padding` is the input's band of rows (columns) that hold only padding, when the caller
    /// knows it: FrameIO's `NetworkInputWriter.paddingBand` (its letterbox: 63 of 257 rows at the
    /// bottom for a 640×480 frame, 112 columns at the right for 720×1280). Output rows (columns)
    /// whose 3×3 windows see only the band are equal, so each layer computes one of them and
    /// copies it only where a later layer reads it; the band narrows at every layer and is gone by
    /// the 17×17 blocks (the runner's band chain: `GraphRunner.runInPlace(band:)`). A 257 forward
    /// pass then takes 0.93–0.95× the time at 4:3, 0.85–0.87× at 16:9, 0.90–0.93× at 9:16 (one
    /// thread; docs/speed.md "0.5.0 skips the letterbox"). The heads are bit for bit the same as
    /// without the band with PoseKit's GEMM (tuned builds); OpenBLAS's
    /// (``/Tensor/GEMMKernel/blas``) may round a row's last bit by where it falls in a call.
    ///
    /// nil (the default) computes every row and column. Nothing looks for a band in the input, so
    /// a band whose rows (columns) are not all equal (`PaddingBand`'s promise) gives wrong heads.
    ///
    /// - Throws: ``PoseNetError/invalidConfiguration(_:)`` for a `padding` outside the input.
    public func run(padding: PaddingBand? = nil) throws {
        try runner.runInPlace(band: try band(padding))
    }

    /// `padding` as the runner's band; throws for one that does not fit the input.
    private func band(_ padding: PaddingBand?) throws -> InputBand? {
        guard let padding else { return nil }
        guard padding.range.lowerBound >= 0, padding.range.upperBound <= inputSize else {
            throw PoseNetError.invalidConfiguration("padding \(padding) lies outside the \(inputSize)x\(inputSize) input")
        }
        return InputBand(axis: padding.axis == .rows ? .rows : .columns, range: padding.range)
    }

    /// One layer's share of a forward pass, from ``PoseNetModel/profile(padding:)``.
    public struct LayerTiming: Sendable {
        /// e.g. `"conv0 3x3 s2 3->24 257x257"`, `"dw+pw3 s1 d1 96->96 129x129"`, `"heads 384->115 33x33"`.
        public let name: String
        public let seconds: Double
        public let flops: Int
        /// Which kernels computed it, e.g. `packed GEMM AVX-512 8x32` or
        /// `depthwise Swift SIMD SSE2 + packed GEMM AVX2+FMA 6x16` (Tensor's `kernelFamily`).
        public let kernels: String
        /// Whether the layer ran in one chain with the layer before (two blocks whose activation
        /// between them is larger than a core's cache share, ModelGraph's `SeparableChaining`):
        /// its time is then in that layer's ``seconds`` and its own is 0.
        public let timedWithPrevious: Bool
    }

    /// Runs the network once like ``run(padding:)``, timing every layer (for `posekit bench model --layers`):
    /// block 0, the 13 separable blocks and the heads, one step of the runner's plan each.
    public func profile(padding: PaddingBand? = nil) throws -> [LayerTiming] {
        let steps = try runner.stepTimes(band: try band(padding))
        let architecture = try MobileNetArchitecture(blockStrides: weights.blockStrides, outputStride: outputStride)
        let shapes = architecture.blockShapes(inputSize: inputSize, blockChannels: weights.blockChannels)
        guard steps.count == shapes.count + 1 else {
            // A plan other than one step per block (not PoseNet's usual): each step by its kind.
            return steps.map { LayerTiming(name: $0.kind, seconds: $0.seconds, flops: 0, kernels: $0.kernels,
                                           timedWithPrevious: $0.timedWithPrevious) }
        }
        var timings: [LayerTiming] = []
        for (block, (shape, step)) in zip(shapes, steps).enumerated() {
            let (o, oc, ic) = (shape.outputSide, shape.outputChannels, shape.inputChannels)
            if block == 0 {
                timings.append(LayerTiming(name: "conv0 3x3 s\(shape.stride) \(ic)->\(oc) \(o)x\(o)", seconds: step.seconds,
                                           flops: 2 * o * o * oc * 9 * ic, kernels: step.kernels, timedWithPrevious: step.timedWithPrevious))
            } else {
                timings.append(LayerTiming(name: "dw+pw\(block) s\(shape.stride) d\(shape.dilation) \(ic)->\(oc) \(o)x\(o)",
                                           seconds: step.seconds, flops: 2 * o * o * ic * (9 + oc), kernels: step.kernels,
                                           timedWithPrevious: step.timedWithPrevious))
            }
        }
        let c = weights.blockChannels.last!, total = MobileNetArchitecture.headChannelTotal
        let last = steps[steps.count - 1]
        timings.append(LayerTiming(name: "heads \(c)->\(total) \(outputHeight)x\(outputWidth)", seconds: last.seconds,
                                   flops: 2 * outputHeight * outputWidth * c * total, kernels: last.kernels,
                                   timedWithPrevious: last.timedWithPrevious))
        return timings
    }
}
