import PoseCore
import Dispatch
import Tensor
#if canImport(Glibc)
import Glibc
#endif

/// A PoseNet (MobileNetV1 backbone + four 1×1 heads) planned for one input size and output stride.
///
/// All activation memory is allocated once in `init` (two ping-pong buffers sized for the
/// largest layer, plus the head outputs), so ``run()`` allocates nothing: write a frame into
/// ``input`` and call ``run()`` as often as you like.
///
/// Layouts: ``input`` is `[inputSize, inputSize, 3]` NHWC RGB scaled by ``inputScaling`` (from the
/// bundle's manifest; PoseNet: `x·2/255 − 1`, so `[-1, 1]`);
/// the heads are `[outputHeight, outputWidth, C]` with C = 17 (heatmap, after sigmoid),
/// 34 (offsets: ch k = dy, k+17 = dx, input pixels), 32 + 32 (displacements: ch e = dy, e+16 = dx).
///
/// The model is not thread-safe: one ``run()`` at a time per instance (it uses all `threads` cores).
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

    /// The network input, `[inputSize, inputSize, 3]`, RGB scaled by ``inputScaling``. Fill it, then ``run()``.
    public let input: Tensor
    /// How 0…255 pixel values become ``input`` values (the manifest's `preprocessing`).
    public let inputScaling: InputScaling
    /// Heatmap scores after sigmoid, `[H, W, 17]`; rewritten by every ``run()``.
    public let heatmapScores: Tensor
    /// Short-range offsets, `[H, W, 34]`.
    public let offsets: Tensor
    /// Mid-range displacements parent→child, `[H, W, 32]`.
    public let displacementsFwd: Tensor
    /// Mid-range displacements child→parent, `[H, W, 32]`.
    public let displacementsBwd: Tensor

    private let architecture: MobileNetArchitecture
    private let layers: [Layer]
    private let headWeights: Tensor      // [C, 115]: heatmap 17 | offsets 34 | fwd 32 | bwd 32 per row
    private let headBias: Tensor         // [115]
    private let packedHeads: PackedPointwiseWeights  // headWeights + headBias packed for the GEMM microkernel
    private let headOutput: Tensor       // [H, W, 115]
    /// Copies of the four heads kept by ``runWithFlipAveraging()``; made on its first call.
    var flipScratch: [Tensor] = []
    private let workspace = ConvolutionWorkspace()  // im2col rows of block 0, depthwise bands of the separable blocks

    /// One step of the forward pass: block 0 (full 3×3 convolution), or a block 1...13 whose
    /// depthwise and pointwise layers run fused band by band (``Convolution/separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:threads:)``).
    private struct Layer {
        enum Kind { case full3x3, separable }
        let kind: Kind
        let weights: Tensor      // full3x3: unused (see packed); separable: depthwise [3,3,C]
        let bias: Tensor         // full3x3: unused; separable: depthwise bias [C]
        let stride: Int, dilation: Int
        let input: Tensor, output: Tensor  // views into the ping-pong buffers, shaped for this layer
        /// full3x3: the HWIO weights as the im2col matrix [9·Cin, Cout] + bias; separable: the
        /// pointwise weights [C, Cout] + bias. Packed once here for the GEMM microkernel.
        let packed: PackedPointwiseWeights
    }

    /// Builds the network from weights looked up by canonical TF name.
    ///
    /// - Parameters:
    ///   - weights: returns the float32 tensor for a canonical name such as
    ///     `MobilenetV1/Conv2d_3_pointwise/weights` (HWIO layouts, depthwise `[3,3,C,1]`).
    ///   - blockStrides: the 14 block strides; `nil` infers them like TF.js does (a last
    ///     pointwise layer that doubles the width means the 1.0 architecture).
    ///   - inputSize: side of the square input (16k+1 aligns the grid: 257, 353, 513).
    ///   - outputStride: 8, 16 or 32.
    ///   - threads: cores for the kernels.
    ///   - inputScaling: how pixel values become input values (a bundle's manifest records it).
    public init(
        weights lookup: (String) throws -> Tensor, blockStrides: [Int]? = nil,
        inputSize: Int, outputStride: Int, threads: Int, inputScaling: InputScaling = .minusOneToOne
    ) throws {
        guard inputSize >= 17 && inputSize <= 4097 else {
            throw PoseNetError.invalidConfiguration("input size must be within 17...4097, got \(inputSize)")
        }
        guard threads >= 1 else { throw PoseNetError.invalidConfiguration("threads must be at least 1, got \(threads)") }
        func named(_ name: String, rank: Int) throws -> Tensor {
            let t = try lookup(name)
            guard t.rank == rank else { throw PoseNetError.badWeights("\(name) has shape \(t.shape), expected rank \(rank)") }
            return t
        }
        func vector(_ name: String, count: Int) throws -> Tensor {
            let t = try lookup(name)
            guard t.count == count else { throw PoseNetError.badWeights("\(name) has shape \(t.shape), expected [\(count)]") }
            return try t.reshaped([count])
        }

        // Infer the architecture from block 12's pointwise shape when not given.
        let last = try named(PoseNetWeightNames.pointwiseWeights(12), rank: 4)
        let strides = blockStrides ?? MobileNetArchitecture.blockStrides(
            blockChannels: [Int](repeating: 0, count: 11) + [last.shape[2], last.shape[3], 0])
        architecture = try MobileNetArchitecture(blockStrides: strides, outputStride: outputStride)
        self.inputSize = inputSize
        self.outputStride = outputStride
        self.threads = threads
        self.inputScaling = inputScaling

        // Plan shapes layer by layer, then size the ping-pong buffers for the largest one.
        enum PlanKind { case full3x3, depthwise, pointwise }
        struct Plan { var kind: PlanKind; var weights: Tensor; var bias: Tensor; var stride: Int; var dilation: Int
                      var inShape: [Int]; var outShape: [Int] }
        var plans: [Plan] = []
        var h = inputSize, w = inputSize, c = 3
        func down(_ n: Int, _ s: Int) -> Int { (n + s - 1) / s }

        let w0 = try named(PoseNetWeightNames.firstConvWeights, rank: 4)
        guard w0.shape[0] == 3, w0.shape[1] == 3, w0.shape[2] == 3 else {
            throw PoseNetError.badWeights("\(PoseNetWeightNames.firstConvWeights) has shape \(w0.shape), expected [3, 3, 3, C]")
        }
        let b0 = try vector(PoseNetWeightNames.firstConvBiases, count: w0.shape[3])
        let block0 = architecture.blocks[0]
        plans.append(Plan(kind: .full3x3, weights: w0, bias: b0, stride: block0.stride, dilation: block0.dilation,
                          inShape: [h, w, c], outShape: [down(h, block0.stride), down(w, block0.stride), w0.shape[3]]))
        h = down(h, block0.stride); w = down(w, block0.stride); c = w0.shape[3]

        for i in 1..<MobileNetArchitecture.blockCount {
            let block = architecture.blocks[i]
            let dw = try named(PoseNetWeightNames.depthwiseWeights(i), rank: 4)
            guard dw.shape == [3, 3, c, 1] else {
                throw PoseNetError.badWeights("\(PoseNetWeightNames.depthwiseWeights(i)) has shape \(dw.shape), expected [3, 3, \(c), 1]")
            }
            let dwb = try vector(PoseNetWeightNames.depthwiseBiases(i), count: c)
            let ho = down(h, block.stride), wo = down(w, block.stride)
            plans.append(Plan(kind: .depthwise, weights: try dw.reshaped([3, 3, c]), bias: dwb,
                              stride: block.stride, dilation: block.dilation, inShape: [h, w, c], outShape: [ho, wo, c]))
            h = ho; w = wo
            let pw = try named(PoseNetWeightNames.pointwiseWeights(i), rank: 4)
            guard pw.shape[0] == 1, pw.shape[1] == 1, pw.shape[2] == c else {
                throw PoseNetError.badWeights("\(PoseNetWeightNames.pointwiseWeights(i)) has shape \(pw.shape), expected [1, 1, \(c), Cout]")
            }
            let cout = pw.shape[3]
            let pwb = try vector(PoseNetWeightNames.pointwiseBiases(i), count: cout)
            plans.append(Plan(kind: .pointwise, weights: try pw.reshaped([c, cout]), bias: pwb, stride: 1, dilation: 1,
                              inShape: [h, w, c], outShape: [h, w, cout]))
            c = cout
        }
        outputHeight = h
        outputWidth = w

        // The four heads share their input, so they run as one GEMM with the weights side by side.
        let headTotal = MobileNetArchitecture.headChannelTotal
        let packedWeights = try Tensor(zeros: [c, headTotal])
        let packedBias = try Tensor(zeros: [headTotal])
        var column = 0
        for (name, channels) in MobileNetArchitecture.heads {
            let hw = try named(PoseNetWeightNames.headWeights(name), rank: 4)
            guard hw.shape == [1, 1, c, channels] else {
                throw PoseNetError.badWeights("\(PoseNetWeightNames.headWeights(name)) has shape \(hw.shape), expected [1, 1, \(c), \(channels)]")
            }
            let hb = try vector(PoseNetWeightNames.headBiases(name), count: channels)
            hw.withUnsafeBufferPointer { src in
                packedWeights.withUnsafeMutableBufferPointer { dst in
                    for row in 0..<c {
                        for j in 0..<channels { dst[row * headTotal + column + j] = src[row * channels + j] }
                    }
                }
            }
            hb.withUnsafeBufferPointer { src in
                packedBias.withUnsafeMutableBufferPointer { dst in
                    for j in 0..<channels { dst[column + j] = src[j] }
                }
            }
            column += channels
        }
        headWeights = packedWeights
        headBias = packedBias
        packedHeads = try PackedPointwiseWeights(weights: packedWeights, bias: packedBias)

        // Ping-pong buffers: layer i reads buffer i % 2 (the input tensor for layer 0) and writes the other.
        let largest = plans.map { $0.outShape.reduce(1, *) }.max() ?? 1
        let buffers = [try Tensor(zeros: [largest]), try Tensor(zeros: [largest])]
        func view(_ buffer: Tensor, _ shape: [Int]) throws -> Tensor {
            try buffer.slice(0..<shape.reduce(1, *)).reshaped(shape)
        }
        input = try Tensor(zeros: [inputSize, inputSize, 3])
        // Step i reads buffer (i + 1) % 2 (the input tensor for step 0) and writes buffer i % 2.
        var built: [Layer] = []
        var flopCount = 0
        var planIndex = 0
        while planIndex < plans.count {
            let plan = plans[planIndex], index = built.count
            let source = index == 0 ? input : try view(buffers[(index + 1) % 2], plan.inShape)
            let outPixels = plan.outShape[0] * plan.outShape[1]
            switch plan.kind {
            case .full3x3:  // HWIO [3, 3, Cin, Cout] is the im2col weight matrix [(3·3·Cin), Cout]
                let packed = try PackedPointwiseWeights(weights: plan.weights.reshaped([9 * plan.inShape[2], plan.outShape[2]]),
                                                        bias: plan.bias)
                built.append(Layer(kind: .full3x3, weights: plan.weights, bias: plan.bias, stride: plan.stride,
                                   dilation: plan.dilation, input: source, output: try view(buffers[index % 2], plan.outShape),
                                   packed: packed))
                flopCount += 2 * outPixels * plan.outShape[2] * 9 * plan.inShape[2]
                planIndex += 1
            case .depthwise, .pointwise:  // a depthwise plan is always followed by its block's pointwise plan
                let pointwise = plans[planIndex + 1]
                built.append(Layer(kind: .separable, weights: plan.weights, bias: plan.bias, stride: plan.stride,
                                   dilation: plan.dilation, input: source,
                                   output: try view(buffers[index % 2], pointwise.outShape),
                                   packed: try PackedPointwiseWeights(weights: pointwise.weights, bias: pointwise.bias)))
                flopCount += 2 * outPixels * plan.outShape[2] * (9 + pointwise.outShape[2])
                planIndex += 2
            }
        }
        layers = built
        flopCount += 2 * h * w * c * headTotal
        flops = flopCount
        headOutput = try Tensor(zeros: [h, w, headTotal])
        heatmapScores = try Tensor(zeros: [h, w, 17])
        offsets = try Tensor(zeros: [h, w, 34])
        displacementsFwd = try Tensor(zeros: [h, w, 32])
        displacementsBwd = try Tensor(zeros: [h, w, 32])
        let first = plans[0]
        workspace.reserve(
            for: try ConvolutionGeometry(inputHeight: inputSize, inputWidth: inputSize, kernelHeight: 3, kernelWidth: 3,
                                         stride: first.stride, dilation: first.dilation),
            inputChannels: first.inShape[2], threads: threads)
        for plan in plans where plan.kind == .depthwise {
            workspace.reserve(count: Convolution.separableWorkspaceCount(width: plan.outShape[1], channels: plan.outShape[2],
                                                                        threads: threads))
        }
    }

    /// Runs the network on ``input`` and rewrites the four head tensors.
    public func run() throws {
        for layer in layers { try run(layer) }
        try runHeads()
    }

    /// One layer's share of a forward pass, from ``profile()``.
    public struct LayerTiming: Sendable {
        /// e.g. `"conv0 3x3 s2 3->24 257x257"`, `"dw+pw3 s1 d1 96->96 129x129"`, `"heads 384->115 33x33"`.
        public let name: String
        public let seconds: Double
        public let flops: Int
    }

    /// Runs the network once, timing every layer (for `posekit bench model --layers`).
    public func profile() throws -> [LayerTiming] {
        var timings: [LayerTiming] = []
        for (block, layer) in layers.enumerated() {
            let start = DispatchTime.now().uptimeNanoseconds
            try run(layer)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let (oh, ow, oc) = (layer.output.shape[0], layer.output.shape[1], layer.output.shape[2])
            let ic = layer.input.shape[2]
            switch layer.kind {
            case .full3x3:
                timings.append(LayerTiming(name: "conv0 3x3 s\(layer.stride) \(ic)->\(oc) \(oh)x\(ow)", seconds: seconds,
                                           flops: 2 * oh * ow * oc * 9 * ic))
            case .separable:
                timings.append(LayerTiming(name: "dw+pw\(block) s\(layer.stride) d\(layer.dilation) \(ic)->\(oc) \(oh)x\(ow)",
                                           seconds: seconds, flops: 2 * oh * ow * ic * (9 + oc)))
            }
        }
        let start = DispatchTime.now().uptimeNanoseconds
        try runHeads()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        timings.append(LayerTiming(name: "heads \(headWeights.shape[0])->\(headWeights.shape[1]) \(outputHeight)x\(outputWidth)",
                                   seconds: seconds, flops: 2 * outputHeight * outputWidth * headWeights.count))
        return timings
    }

    private func run(_ layer: Layer) throws {
            switch layer.kind {
            case .full3x3:
                try Convolution.general(layer.input, packed: layer.packed, kernelHeight: 3, kernelWidth: 3,
                                        stride: layer.stride, dilation: layer.dilation, activation: .relu6,
                                        into: layer.output, workspace: workspace, threads: threads)
            case .separable:
                try Convolution.separable(layer.input, depthwiseWeights: layer.weights, depthwiseBias: layer.bias,
                                          stride: layer.stride, dilation: layer.dilation, packed: layer.packed,
                                          activation: .relu6, into: layer.output, workspace: workspace, threads: threads)
            }
    }

    private func runHeads() throws {
        try Convolution.pointwise(layers[layers.count - 1].output, packed: packedHeads,
                                  activation: .none, into: headOutput, threads: threads)
        splitHeads()
    }

    /// Copies the packed head GEMM output into the four head tensors, applying the sigmoid to
    /// the heatmap (small: 33×33×115 floats at 513).
    private func splitHeads() {
        let cells = outputHeight * outputWidth
        let total = MobileNetArchitecture.headChannelTotal
        headOutput.withUnsafeBufferPointer { packed in
            heatmapScores.withUnsafeMutableBufferPointer { heat in
                offsets.withUnsafeMutableBufferPointer { off in
                    displacementsFwd.withUnsafeMutableBufferPointer { fwd in
                        displacementsBwd.withUnsafeMutableBufferPointer { bwd in
                            for cell in 0..<cells {
                                let row = cell * total
                                for j in 0..<17 { heat[cell * 17 + j] = 1 / (1 + expf(-packed[row + j])) }
                                for j in 0..<34 { off[cell * 34 + j] = packed[row + 17 + j] }
                                for j in 0..<32 { fwd[cell * 32 + j] = packed[row + 51 + j] }
                                for j in 0..<32 { bwd[cell * 32 + j] = packed[row + 83 + j] }
                            }
                        }
                    }
                }
            }
        }
    }
}
