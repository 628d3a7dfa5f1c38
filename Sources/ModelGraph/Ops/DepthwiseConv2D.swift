import Tensor

/// Depthwise 2-D convolution, depth multiplier 1: `inputs: [x, weights, bias]`, weights
/// `[kH, kW, C]`, bias `[C]`; the fused activation after the bias. Output `[H', W', C]`.
///
/// Kernels: 3×3 stride 1 or 2 with TF SAME or VALID padding (dilated or not) on Tensor's tuned 3×3
/// kernel; other sizes and paddings (5×5, a folded `PAD`: ``PadFolding``) on the k×k kernel; with the
/// 1×1 convolution reading it, as one step (``SeparableFusion``).
public struct DepthwiseConv2DOp: GraphOperation, Equatable {
    public static let name = "depthwiseConv2D"
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
        guard w.count == 3, w[2] == x[2] else { throw node.fail("weights \(w) are not [kH, kW, \(x[2])]") }
        guard node.shape(2) == [x[2]] else { throw node.fail("bias \(node.shape(2)) is not [\(x[2])]") }
        guard w[0] == window.kernelHeight, w[1] == window.kernelWidth else {
            throw node.fail("weights \(w) disagree with the \(window.kernelHeight)×\(window.kernelWidth) window")
        }
        let (h, wo) = try node.windowOutput(window, x)
        try node.expect([h, wo, x[2]])
    }

    /// Stored as HWCM with M = 1, the layout's documented rank.
    public func bundleLayout(ofInput index: Int) -> TensorLayout? { index == 1 ? .hwcm : nil }

    /// `H_out·W_out·C·kH·kW`.
    public func multiplyAdds(inputs: [GraphValue], output: GraphValue) -> Int {
        output.count * window.kernelHeight * window.kernelWidth
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(3)
        var window = self.window
        var x = binding.node.inputs[0]
        if let pad = binding.foldedPad, let amounts = (pad.operation as? PadOp)?.amounts {
            // Read the pad's input and pad by its amounts as well (no copy).
            x = pad.inputs[0]
            window.padding.top += amounts[0].before; window.padding.bottom += amounts[0].after
            window.padding.left += amounts[1].before; window.padding.right += amounts[1].after
        }
        var weights = try binding.constant(1, "weights")
        let bias = try binding.constant(2, "bias")
        if weights.rank == 4 && weights.shape[0] == 1 { weights = try weights.reshaped(Array(weights.shape.dropFirst())) }
        guard weights.rank == 3, binding.shape(x).count == 3, weights.shape[2] == binding.shape(x)[2] else {
            throw binding.invalid("weights \(weights.shape) for input \(binding.shape(x)) (expected [kH, kW, C], depth multiplier 1)")
        }
        let k = weights.shape[0], stride = window.strideHeight
        // 3×3 with SAME or VALID amounts, dilated or not: the tuned 3×3 kernel.
        if k == 3, weights.shape[1] == 3, stride == window.strideWidth, stride == 1 || stride == 2, window.dilationHeight == window.dilationWidth,
           let padding = window.convention(input: binding.shape(x), output: binding.shape(binding.output)) {
            binding.addStep(Depthwise3x3Kernel(weights: weights, bias: bias, stride: stride, dilation: window.dilationHeight,
                                               padding: padding, activation: activation), [x])
            return
        }
        guard window.strideHeight == window.strideWidth, window.dilationHeight == 1, window.dilationWidth == 1,
              weights.shape[0] == weights.shape[1] else {
            throw binding.unsupported("\(weights.shape[0])x\(weights.shape[1]) kernel, strides \(window.strideHeight)x\(window.strideWidth), dilation \(window.dilationHeight)x\(window.dilationWidth) (square kernels, equal strides and no dilation are supported)")
        }
        guard window.padding.top < k, window.padding.left < k else {
            throw binding.unsupported("padding \(window.padding) is wider than the \(k)x\(k) window")
        }
        binding.addStep(DepthwiseKernel(weights: weights, bias: bias, stride: stride, padTop: window.padding.top,
                                        padLeft: window.padding.left, activation: activation), [x])
    }
}

/// Depthwise 3×3 with TF SAME or VALID padding, any dilation: Tensor's tuned 3×3 kernel.
struct Depthwise3x3Kernel: GraphKernel {
    let weights: Tensor, bias: Tensor
    let stride: Int, dilation: Int
    let padding: Padding
    let activation: Activation
    var kind: String { "depthwise 3x3 s\(stride)" + (dilation == 1 ? "" : " d\(dilation)") }
    func run(_ io: GraphKernelIO) throws {
        try Convolution.depthwise3x3(io.input(0), weights: weights, bias: bias, stride: stride, dilation: dilation, padding: padding,
                                     activation: activation, into: io.output, threads: io.threads)
    }
}

/// Depthwise k×k with explicit padding (5×5, and any folded `PAD`).
struct DepthwiseKernel: GraphKernel {
    let weights: Tensor, bias: Tensor
    let stride: Int, padTop: Int, padLeft: Int
    let activation: Activation
    var kind: String { "depthwise \(weights.shape[0])x\(weights.shape[1]) s\(stride)" }
    func run(_ io: GraphKernelIO) throws {
        try Convolution.depthwise(io.input(0), weights: weights, bias: bias, stride: stride, padTop: padTop, padLeft: padLeft,
                                  activation: activation, into: io.output, threads: io.threads)
    }
}
