import Tensor

/// 2-D convolution: `inputs: [x, weights, bias]`, weights HWIO `[kH, kW, Cin, Cout]`, bias
/// `[Cout]`; the fused activation is applied after the bias. Output `[H', W', Cout]` by the window.
///
/// Kernels: a 1×1 stride-1 unpadded convolution is a GEMM on the packed weights (the only place a
/// reduced precision runs: the graph's `ReducedPrecisionRule`); up to ``fewChannelsLimit`` output channels
/// run as dot products; the rest on the packed general convolution (im2col bands), with a pad
/// step first when the padding is neither TF SAME's nor zero. Residual `ADD`s and `PRELU`s after
/// a packed-GEMM convolution may run in its epilogue (``EpilogueFusion``).
public struct Conv2DOp: GraphOperation, Equatable {
    public static let name = "conv2D"
    public var window: Window2D
    public var activation: Activation

    public init(window: Window2D, activation: Activation) {
        self.window = window
        self.activation = activation
    }

    public init(attributes: inout GraphAttributes) throws {
        window = try attributes.window()
        activation = try attributes.activation()
    }

    public func encode(into attributes: inout GraphAttributes) {
        attributes.set(window: window)
        attributes.set(activation: activation)
    }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(3)
        try node.constant(1, "weights"); try node.constant(2, "bias")
        let x = node.shape(0), w = node.shape(1)
        guard x.count == 3 else { throw node.fail("input shape \(x) is not [H, W, C]") }
        guard w.count == 4, w[2] == x[2] else { throw node.fail("weights \(w) are not HWIO [kH, kW, \(x[2]), Cout]") }
        guard node.shape(2) == [w[3]] else { throw node.fail("bias \(node.shape(2)) is not [\(w[3])]") }
        guard w[0] == window.kernelHeight, w[1] == window.kernelWidth else {
            throw node.fail("weights \(w) disagree with the \(window.kernelHeight)×\(window.kernelWidth) window")
        }
        let (h, wo) = try node.windowOutput(window, x)
        try node.expect([h, wo, w[3]])
    }

    public func bundleLayout(ofInput index: Int) -> TensorLayout? { index == 1 ? .hwio : nil }

    /// `H_out·W_out·C_out·kH·kW·C_in`.
    public func multiplyAdds(inputs: [GraphValue], output: GraphValue) -> Int {
        output.count * window.kernelHeight * window.kernelWidth * (inputs[0].shape.last ?? 0)
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(3)
        let x = binding.node.inputs[0]
        let weights = try binding.constant(1, "weights")
        let bias = try binding.constant(2, "bias")
        guard weights.rank == 4, binding.shape(x).count == 3, weights.shape[2] == binding.shape(x)[2] else {
            throw binding.invalid("weights \(weights.shape) (HWIO) for input \(binding.shape(x))")
        }
        let (kh, kw, cin, cout) = (weights.shape[0], weights.shape[1], weights.shape[2], weights.shape[3])
        guard window.dilationHeight == 1, window.dilationWidth == 1 else {
            throw binding.unsupported("dilation \(window.dilationHeight)x\(window.dilationWidth) (no dilation is supported)")
        }
        // Strides may differ along the two axes (a Create ML temporal convolution: 2 along time,
        // 1 across joints) on the packed general convolution only.
        let equalStrides = window.strideHeight == window.strideWidth
        if equalStrides && !Self.isPointwise(window, kh, kw) && cout <= Self.fewChannelsLimit && window.padding.top < kh && window.padding.left < kw {
            let ohwi = try binding.prepared("ohwi", of: [weights]) { try Self.ohwi(weights) }
            binding.addStep(FewChannelsKernel(weightsOHWI: ohwi, bias: bias, stride: window.strideHeight,
                                              padTop: window.padding.top, padLeft: window.padding.left, activation: activation), [x])
            return
        }
        let packed = try binding.packedGEMM(weights: weights, bias: bias, rows: kh * kw * cin, columns: cout)
        var epilogue = StepEpilogue(activation)
        if let chain = binding.chain {
            if let add = chain.add, let addOp = binding.graph.nodes[add].operation as? AddOp {
                epilogue.activation = addOp.activation
                epilogue.addsResidual = true
            }
            if let prelu = chain.prelu {
                let node = binding.graph.nodes[prelu]
                epilogue.prelu = try PReLUSlopes(try binding.constant(value: node.inputs[1], "slope", of: prelu, node.operation))
            }
        }
        if let depthwise = binding.fusedDepthwise {
            try SeparableFusion.bind(depthwise: depthwise, pointwise: self, weights: weights, bias: bias, binding: &binding)
            return
        }
        if Self.isPointwise(window, kh, kw) {
            let precision = binding.pointwisePrecision(inputChannels: cin)
            let reduced = try binding.packedGEMM(weights: weights, bias: bias, rows: cin, columns: cout, precision: precision)
            binding.addStep(PointwiseKernel(weights: reduced, epilogue: epilogue), [x])
            return
        }
        let (input, padding) = try Self.convolutionInput(x, window: window, binding: &binding)
        let inShape = binding.shape(input)
        let geometry = try ConvolutionGeometry(inputHeight: inShape[0], inputWidth: inShape[1], kernelHeight: kh, kernelWidth: kw,
                                               stride: window.strideHeight, strideWidth: window.strideWidth, padding: padding)
        binding.addStep(ConvolutionKernel(weights: packed, kernelHeight: kh, kernelWidth: kw, stride: window.strideHeight,
                                          strideWidth: window.strideWidth, padding: padding, epilogue: epilogue, geometry: geometry), [input])
    }

    /// A 1×1, stride-1, unpadded window: a GEMM over the pixels.
    static func isPointwise(_ window: Window2D, _ kh: Int, _ kw: Int) -> Bool {
        kh == 1 && kw == 1 && window.strideHeight == 1 && window.strideWidth == 1 && window.padding == .zero
    }

    /// Whether `node` is a convolution that runs on the packed GEMM (whose kernels take an
    /// epilogue): not one of ``fewChannelsLimit`` channels.
    static func runsOnPackedGEMM(_ node: GraphNode, _ graph: Graph) -> Bool {
        guard let conv = node.operation as? Conv2DOp, node.inputs.count == 3,
              let weights = graph.values[node.inputs[1]].constant, weights.rank == 4 else { return false }
        let (kh, kw, cout) = (weights.shape[0], weights.shape[1], weights.shape[3])
        return isPointwise(conv.window, kh, kw) || conv.window.strideHeight != conv.window.strideWidth
            || !(cout <= fewChannelsLimit && conv.window.padding.top < kh && conv.window.padding.left < kw)
    }

    /// Output channels up to which a k×k convolution runs as dot products
    /// (`Convolution.fewChannels`) rather than on the packed GEMM, whose 16-lane panels one channel
    /// would fill to a sixteenth (pose_landmark_full's segmentation head: 3×3, 8 → 1 at 256×256).
    static let fewChannelsLimit = 4

    /// HWIO weights `[kH, kW, Cin, Cout]` transposed to OHWI `[Cout, kH, kW, Cin]`.
    static func ohwi(_ weights: Tensor) throws -> Tensor {
        let (kh, kw, cin, cout) = (weights.shape[0], weights.shape[1], weights.shape[2], weights.shape[3])
        let hwio = weights.scalars
        var values = [Float](repeating: 0, count: hwio.count)
        for tap in 0..<(kh * kw) {
            for ci in 0..<cin {
                for co in 0..<cout { values[(co * kh * kw + tap) * cin + ci] = hwio[(tap * cin + ci) * cout + co] }
            }
        }
        return try Tensor(shape: [cout, kh, kw, cin], values: values)
    }

    /// The input a k×k convolution reads and its padding convention: `x` itself when the
    /// window's padding is TF SAME's or zero, else `x` zero-padded by a pad step added here.
    static func convolutionInput(_ x: ValueID, window: Window2D, binding: inout GraphBinding) throws -> (ValueID, Padding) {
        if let padding = window.convention(input: binding.shape(x), output: binding.shape(binding.output)) { return (x, padding) }
        let p = window.padding
        let inShape = binding.shape(x)
        let shape = [inShape[0] + p.top + p.bottom, inShape[1] + p.left + p.right, inShape[2]]
        let padded = binding.addValue(name: binding.plan.names[x] + "/padded", shape: shape)
        binding.addPreparingStep(PadKernel(before: [p.top, p.left, 0]), [x], output: padded)
        return (padded, .valid)
    }
}

/// 1×1 stride-1 convolution on the packed GEMM (fp32, or the reduced precision its weights were converted to).
struct PointwiseKernel: GraphKernel {
    let weights: PackedPointwiseWeights
    let epilogue: StepEpilogue
    // A reduced precision is named (`conv 1x1 int8`): what ran, for profiles and tests.
    var kind: String { "conv 1x1" + (weights.precision == .fp32 ? "" : " \(weights.precision.rawValue)") + epilogue.kindSuffix }
    var kernels: String { weights.kernelFamily }
    func run(_ io: GraphKernelIO) throws {
        try Convolution.pointwise(io.input(0), packed: weights, epilogue: epilogue.epilogue(io), into: io.output,
                                  skippingZeroChannels: io.skipsZeroChannels, threads: io.threads)
    }
}

/// k×k convolution on the packed general convolution; padding is SAME or VALID here (other
/// amounts got an explicit pad step before it). `stride` down, `strideWidth` across.
struct ConvolutionKernel: GraphKernel {
    let weights: PackedPointwiseWeights
    let kernelHeight: Int, kernelWidth: Int, stride: Int, strideWidth: Int
    let padding: Padding
    let epilogue: StepEpilogue
    /// The window over the step's input (for a band of equal rows).
    let geometry: ConvolutionGeometry
    var kind: String {
        "conv \(kernelHeight)x\(kernelWidth) s\(stride)" + (strideWidth == stride ? "" : "x\(strideWidth)") + epilogue.kindSuffix
    }
    var kernels: String { weights.kernelFamily }
    // A residual read from the output's rows would not be skipped with them.
    var bandGeometry: ConvolutionGeometry? { epilogue.addsResidual ? nil : geometry }
    func reserve(_ workspace: ConvolutionWorkspace, threads: Int) {
        workspace.reserve(for: geometry, inputChannels: weights.inputChannels / (kernelHeight * kernelWidth), threads: threads)
    }
    func run(_ io: GraphKernelIO) throws {
        try Convolution.general(io.input(0), packed: weights, kernelHeight: kernelHeight, kernelWidth: kernelWidth, stride: stride,
                                strideWidth: strideWidth, padding: padding, epilogue: epilogue.epilogue(io), into: io.output,
                                workspace: io.workspace, skippingRows: io.skippingRows, skippingColumns: io.skippingColumns,
                                threads: io.threads)
    }
}

/// k×k convolution to a few output channels, as dot products (weights OHWI), explicit padding.
struct FewChannelsKernel: GraphKernel {
    let weightsOHWI: Tensor, bias: Tensor
    let stride: Int, padTop: Int, padLeft: Int
    let activation: Activation
    var kind: String { "conv \(weightsOHWI.shape[1])x\(weightsOHWI.shape[2]) s\(stride) to \(weightsOHWI.shape[0]) channels" }
    func run(_ io: GraphKernelIO) throws {
        try Convolution.fewChannels(io.input(0), weightsOHWI: weightsOHWI, bias: bias, stride: stride, padTop: padTop, padLeft: padLeft,
                                    activation: activation, into: io.output, threads: io.threads)
    }
}
