import PoseCore
import Dispatch
import Tensor

/// A PoseNet (MobileNetV1 backbone + four 1×1 heads) planned for one input size and output stride.
///
/// All activation memory is allocated once in `init` (two ping-pong buffers sized for the
/// largest layer, plus the heads), so ``run(padding:)`` allocates nothing: write a frame into
/// ``input`` and call ``run(padding:)`` as often as you like. The weights are a ``PoseNetWeights``,
/// which any number of models (other sizes, strides, thread counts) can share.
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
    private let architecture: MobileNetArchitecture
    private let layers: [Layer]
    /// The heads of the first of ``runWithFlipAveraging(padding:)``'s two runs; made on its first call.
    var flipScratch: Tensor?
    private let workspace = ConvolutionWorkspace()  // im2col rows of block 0, depthwise bands of the separable blocks

    /// One step of the forward pass: block 0 (full 3×3 convolution), or a block 1...13 whose
    /// depthwise and pointwise layers run fused band by band (``Convolution/separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:skippingRows:skippingColumns:skippingZeroChannels:threads:)``).
    private struct Layer {
        enum Kind { case full3x3, separable(PoseNetWeights.SeparableBlock) }
        let kind: Kind
        let stride: Int, dilation: Int
        let input: Tensor, output: Tensor  // views into the ping-pong buffers, shaped for this layer
        let geometry: ConvolutionGeometry   // 3×3, SAME
    }

    /// Whether the pointwise layers leave out of each tile's product the input channels that are
    /// zero in all of its pixels (``/Tensor/Convolution/pointwise(_:packed:activation:into:skippingZeroChannels:threads:)``);
    /// true by default.
    ///
    /// ReLU6 makes such channels common: on real frames they are 15–30% of the 17×17 blocks'
    /// work and 44% of the first block's, and a 257 forward pass takes 0.83–0.89× the time (one
    /// thread, Zen 3). Each layer call scans a sample of its tiles first and goes on only where
    /// the zeros pay for the scan. The outputs are the same (a skipped term adds a zero). The
    /// saving depends on the image, so set it to false to time the full network.
    public var skipsZeroChannels = true

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
        guard inputSize >= 17 && inputSize <= 4097 else {
            throw PoseNetError.invalidConfiguration("input size must be within 17...4097, got \(inputSize)")
        }
        guard threads >= 1 else { throw PoseNetError.invalidConfiguration("threads must be at least 1, got \(threads)") }
        architecture = try MobileNetArchitecture(blockStrides: weights.blockStrides, outputStride: outputStride)
        self.weights = weights
        self.inputSize = inputSize
        self.outputStride = outputStride
        self.threads = threads
        self.inputScaling = weights.inputScaling

        // Shapes block by block (SAME padding), NHWC.
        func down(_ n: Int, _ s: Int) -> Int { (n + s - 1) / s }
        var shapes: [[Int]] = [[inputSize, inputSize, 3]]
        var side = inputSize
        for (block, channels) in zip(architecture.blocks, weights.blockChannels) {
            side = down(side, block.stride)
            shapes.append([side, side, channels])
        }
        outputHeight = side
        outputWidth = side

        // Ping-pong buffers: block i reads buffer (i + 1) % 2 (the input tensor for block 0) and writes buffer i % 2.
        let largest = shapes.dropFirst().map { $0.reduce(1, *) }.max() ?? 1
        let buffers = [try Tensor(zeros: [largest]), try Tensor(zeros: [largest])]
        func view(_ buffer: Tensor, _ shape: [Int]) throws -> Tensor {
            try buffer.slice(0..<shape.reduce(1, *)).reshaped(shape)
        }
        input = try Tensor(zeros: [inputSize, inputSize, 3])
        var built: [Layer] = []
        var flopCount = 0
        for (index, block) in architecture.blocks.enumerated() {
            let (inShape, outShape) = (shapes[index], shapes[index + 1])
            let source = index == 0 ? input : try view(buffers[(index + 1) % 2], inShape)
            let kind: Layer.Kind = index == 0 ? .full3x3 : .separable(weights.separableBlocks[index - 1])
            built.append(Layer(kind: kind, stride: block.stride, dilation: block.dilation, input: source,
                               output: try view(buffers[index % 2], outShape),
                               geometry: try ConvolutionGeometry(inputHeight: inShape[0], inputWidth: inShape[1],
                                                                 kernelHeight: 3, kernelWidth: 3,
                                                                 stride: block.stride, dilation: block.dilation)))
            let outPixels = outShape[0] * outShape[1]
            flopCount += index == 0 ? 2 * outPixels * outShape[2] * 9 * inShape[2]
                                    : 2 * outPixels * inShape[2] * (9 + outShape[2])
        }
        layers = built
        let headTotal = MobileNetArchitecture.headChannelTotal
        let c = shapes[shapes.count - 1][2]
        flopCount += 2 * side * side * c * headTotal
        flops = flopCount
        heads = try Tensor(zeros: [side, side, headTotal])
        let first = architecture.blocks[0]
        workspace.reserve(
            for: try ConvolutionGeometry(inputHeight: inputSize, inputWidth: inputSize, kernelHeight: 3, kernelWidth: 3,
                                         stride: first.stride, dilation: first.dilation),
            inputChannels: 3, threads: threads)
        for index in 1..<architecture.blocks.count {  // a band of depthwise output: the block's output width, input channels
            workspace.reserve(count: Convolution.separableWorkspaceCount(width: shapes[index + 1][1], channels: shapes[index][2],
                                                                        threads: threads))
        }
    }

    /// Runs the network on ``input`` and rewrites ``heads``.
    ///
    /// `padding` is the input's band of rows (columns) that hold only padding, when the caller
    /// knows it: FrameIO's `NetworkInputWriter.paddingBand` (its letterbox: 63 of 257 rows at the
    /// bottom for a 640×480 frame, 112 columns at the right for 720×1280). Output rows (columns)
    /// whose 3×3 windows see only the band are equal, so each layer computes one of them and
    /// copies it only where a later layer reads it; the band narrows at every layer and is gone by
    /// the 17×17 blocks. A 257 forward pass then takes 0.93–0.95× the time at 4:3, 0.85–0.87× at
    /// 16:9, 0.90–0.93× at 9:16 (one thread; docs/speed.md "0.5.0 skips the letterbox"). The heads are
    /// bit for bit the same as without the band with PoseKit's GEMM (tuned builds); OpenBLAS's
    /// (``/Tensor/GEMMKernel/blas``) may round a row's last bit by where it falls in a call.
    ///
    /// nil (the default) computes every row and column. Nothing looks for a band in the input, so
    /// a band whose rows (columns) are not all equal (`PaddingBand`'s promise) gives wrong heads.
    ///
    /// - Throws: ``PoseNetError/invalidConfiguration(_:)`` for a `padding` outside the input.
    public func run(padding: PaddingBand? = nil) throws {
        var repeated = try band(padding)
        for layer in layers { try run(layer, &repeated) }
        repeated.finish(layers[layers.count - 1].output)
        try runHeads()
    }

    /// The band to follow through the layers; throws for one that does not fit the input.
    private func band(_ padding: PaddingBand?) throws -> RepeatedBand {
        if let padding, padding.range.lowerBound < 0 || padding.range.upperBound > inputSize {
            throw PoseNetError.invalidConfiguration("padding \(padding) lies outside the \(inputSize)x\(inputSize) input")
        }
        return RepeatedBand(padding: padding)
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
    }

    /// Runs the network once like ``run(padding:)``, timing every layer (for `posekit bench model --layers`).
    public func profile(padding: PaddingBand? = nil) throws -> [LayerTiming] {
        var timings: [LayerTiming] = []
        var repeated = try band(padding)
        for (block, layer) in layers.enumerated() {
            let start = DispatchTime.now().uptimeNanoseconds
            try run(layer, &repeated)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let (oh, ow, oc) = (layer.output.shape[0], layer.output.shape[1], layer.output.shape[2])
            let ic = layer.input.shape[2]
            switch layer.kind {
            case .full3x3:
                timings.append(LayerTiming(name: "conv0 3x3 s\(layer.stride) \(ic)->\(oc) \(oh)x\(ow)", seconds: seconds,
                                           flops: 2 * oh * ow * oc * 9 * ic, kernels: weights.firstConvolution.kernelFamily))
            case .separable:
                timings.append(LayerTiming(name: "dw+pw\(block) s\(layer.stride) d\(layer.dilation) \(ic)->\(oc) \(oh)x\(ow)",
                                           seconds: seconds, flops: 2 * oh * ow * ic * (9 + oc),
                                           kernels: Convolution.depthwiseKernelFamily + " + " + weights.separableBlocks[block - 1].pointwise.kernelFamily))
            }
        }
        let start = DispatchTime.now().uptimeNanoseconds
        repeated.finish(layers[layers.count - 1].output)
        try runHeads()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let heads = weights.heads
        timings.append(LayerTiming(name: "heads \(heads.inputChannels)->\(heads.outputChannels) \(outputHeight)x\(outputWidth)",
                                   seconds: seconds, flops: 2 * outputHeight * outputWidth * heads.inputChannels * heads.outputChannels,
                                   kernels: heads.kernelFamily))
        return timings
    }

    /// Runs one layer, skipping the output rows (columns) `repeated` shows equal to a computed one.
    private func run(_ layer: Layer, _ repeated: inout RepeatedBand) throws {
        let skipped = repeated.skipped(layer.geometry)
        let (skippedRows, skippedColumns) = repeated.axis == .rows ? (skipped, 0..<0) : (0..<0, skipped)
        repeated.prepare(layer.input, for: layer.geometry, skipping: skipped)
        switch layer.kind {
        case .full3x3:
            try Convolution.general(layer.input, packed: weights.firstConvolution, kernelHeight: 3, kernelWidth: 3,
                                    stride: layer.stride, dilation: layer.dilation, activation: .relu6,
                                    into: layer.output, workspace: workspace, skippingRows: skippedRows,
                                    skippingColumns: skippedColumns, threads: threads)
        case .separable(let block):
            try Convolution.separable(layer.input, depthwiseWeights: block.depthwiseWeights, depthwiseBias: block.depthwiseBias,
                                      stride: layer.stride, dilation: layer.dilation, packed: block.pointwise,
                                      activation: .relu6, into: layer.output, workspace: workspace,
                                      skippingRows: skippedRows, skippingColumns: skippedColumns,
                                      skippingZeroChannels: skipsZeroChannels, threads: threads)
        }
        repeated.advance(layer.geometry, skipped: skipped)
    }

    /// The four heads as one GEMM into ``heads``, then the sigmoid on the heatmap channels, in place.
    private func runHeads() throws {
        try Convolution.pointwise(layers[layers.count - 1].output, packed: weights.heads, activation: .none,
                                  into: heads, skippingZeroChannels: skipsZeroChannels, threads: threads)
        try TensorNonlinearities.sigmoid(channels: PoseNetOutput.heatmapChannels, inPlace: heads)
    }
}
