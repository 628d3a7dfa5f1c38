import Tensor

/// One operation of a planned graph, bound to the kernel that runs it and to what that kernel
/// needs prepared once (packed weights, padding resolved to the kernel's convention).
struct GraphStep {
    /// What runs.
    enum Kernel {
        /// 1×1 stride-1 convolution on the packed GEMM.
        case pointwise(PackedPointwiseWeights, StepEpilogue)
        /// k×k convolution on the packed general convolution; padding is SAME or VALID here
        /// (other amounts got an explicit pad step before it).
        case convolution(PackedPointwiseWeights, kernelHeight: Int, kernelWidth: Int, stride: Int, padding: Padding, StepEpilogue)
        /// k×k convolution to a few output channels, as dot products (weights OHWI), explicit padding.
        case fewChannels(weightsOHWI: Tensor, bias: Tensor, stride: Int, padTop: Int, padLeft: Int, Activation)
        /// Depthwise 3×3 with TF SAME or VALID padding: Tensor's tuned 3×3 kernel.
        case depthwise3x3(weights: Tensor, bias: Tensor, stride: Int, padding: Padding, Activation)
        /// Depthwise k×k with explicit padding (5×5, and any folded `PAD`).
        case depthwise(weights: Tensor, bias: Tensor, stride: Int, padTop: Int, padLeft: Int, Activation)
        /// `FULLY_CONNECTED`: the input seen as one pixel of `in` channels.
        case fullyConnected(PackedPointwiseWeights, Activation)
        case add(Activation)
        case prelu(slope: Tensor)
        case logistic
        /// Zero padding; `before` per axis of the input (the output's shape gives the rest).
        case pad(before: [Int])
        case maxPool(Window2D)
        case spatialMean
        case resizeBilinear
        case depthToSpace(blockSize: Int)
        case concatenation(axis: Int)
        /// No work: the output is the input's buffer seen with another shape.
        case reshape
    }

    let kernel: Kernel
    /// Values read, in the kernel's order (constants already taken into `kernel` are left out); a
    /// convolution whose epilogue adds a residual reads it second.
    let inputs: [ValueID]
    let output: ValueID
    /// The node of the graph this step runs (a pad step inserted before a convolution names the convolution).
    let node: Int
    /// Further nodes this step runs in its convolution's epilogue (an `ADD`, a `PRELU`), in order.
    var fusedNodes: [Int] = []

    /// The kind of work, for profiles: `conv 1x1`, `conv 1x1 int8` (a reduced precision is named),
    /// `depthwise 5x5 s2`, `add`, `conv 1x1 + add + prelu` (a convolution with the nodes its epilogue runs), ...
    var kind: String {
        switch kernel {
        case .pointwise(let weights, let epilogue):
            // A reduced precision is named (`conv 1x1 int8`): what ran, for profiles and tests.
            return "conv 1x1" + (weights.precision == .fp32 ? "" : " \(weights.precision.rawValue)") + epilogue.kindSuffix
        case .convolution(_, let kh, let kw, let stride, _, let epilogue): return "conv \(kh)x\(kw) s\(stride)" + epilogue.kindSuffix
        case .fewChannels(let weights, _, let stride, _, _, _): return "conv \(weights.shape[1])x\(weights.shape[2]) s\(stride) to \(weights.shape[0]) channels"
        case .depthwise3x3(_, _, let stride, _, _): return "depthwise 3x3 s\(stride)"
        case .depthwise(let weights, _, let stride, _, _, _): return "depthwise \(weights.shape[0])x\(weights.shape[1]) s\(stride)"
        case .fullyConnected: return "fully connected"
        case .add: return "add"
        case .prelu: return "prelu"
        case .logistic: return "logistic"
        case .pad: return "pad"
        case .maxPool: return "max pool"
        case .spatialMean: return "mean"
        case .resizeBilinear: return "resize bilinear"
        case .depthToSpace: return "depth to space"
        case .concatenation: return "concatenation"
        case .reshape: return "reshape"
        }
    }

    /// Runs the step on `values` (a view per value ID; nil for values this plan does not hold).
    func run(_ values: [Tensor?], workspace: ConvolutionWorkspace, threads: Int) throws {
        let output = values[self.output]!
        func input(_ i: Int) -> Tensor { values[inputs[i]]! }
        switch kernel {
        case .pointwise(let packed, let epilogue):
            try Convolution.pointwise(input(0), packed: packed, epilogue: epilogue.epilogue(residual: epilogue.addsResidual ? input(1) : nil),
                                      into: output, threads: threads)
        case .convolution(let packed, let kh, let kw, let stride, let padding, let epilogue):
            try Convolution.general(input(0), packed: packed, kernelHeight: kh, kernelWidth: kw, stride: stride, padding: padding,
                                    epilogue: epilogue.epilogue(residual: epilogue.addsResidual ? input(1) : nil),
                                    into: output, workspace: workspace, threads: threads)
        case .fewChannels(let weights, let bias, let stride, let padTop, let padLeft, let activation):
            try Convolution.fewChannels(input(0), weightsOHWI: weights, bias: bias, stride: stride, padTop: padTop, padLeft: padLeft,
                                        activation: activation, into: output, threads: threads)
        case .depthwise3x3(let weights, let bias, let stride, let padding, let activation):
            try Convolution.depthwise3x3(input(0), weights: weights, bias: bias, stride: stride, padding: padding,
                                         activation: activation, into: output, threads: threads)
        case .depthwise(let weights, let bias, let stride, let padTop, let padLeft, let activation):
            try Convolution.depthwise(input(0), weights: weights, bias: bias, stride: stride, padTop: padTop, padLeft: padLeft,
                                      activation: activation, into: output, threads: threads)
        case .fullyConnected(let packed, let activation):
            try Convolution.pointwise(input(0).reshaped([1, 1, packed.inputChannels]), packed: packed, activation: activation,
                                      into: output.reshaped([1, 1, packed.outputChannels]), skippingZeroChannels: false, threads: 1)
        case .add(let activation):
            try Elementwise.add(input(0), input(1), activation: activation, into: output, threads: threads)
        case .prelu(let slope):
            try Elementwise.prelu(input(0), slope: slope, into: output, threads: threads)
        case .logistic:
            try TensorNonlinearities.sigmoid(input(0), into: output)
        case .pad(let before):
            try Rearrangement.zeroPad(input(0), before: before, into: output)
        case .maxPool(let window):
            try Pooling.maxPool(input(0), kernelHeight: window.kernelHeight, kernelWidth: window.kernelWidth,
                                strideHeight: window.strideHeight, strideWidth: window.strideWidth,
                                padTop: window.padding.top, padLeft: window.padding.left, into: output, threads: threads)
        case .spatialMean:
            try Pooling.spatialMean(input(0), into: output)
        case .resizeBilinear:
            try Resize.bilinear(input(0), into: output, threads: threads)
        case .depthToSpace(let blockSize):
            try Rearrangement.depthToSpace(input(0), blockSize: blockSize, into: output)
        case .concatenation(let axis):
            try Rearrangement.concatenate(inputs.indices.map(input), axis: axis, into: output)
        case .reshape:
            break
        }
    }
}

/// What a convolution step does after its bias (Tensor's `Epilogue`, planned): the activation, a
/// residual (the step's second input) and PReLU slopes, from the nodes fused into it.
struct StepEpilogue {
    /// The clamp: the convolution's own activation, or that of the `ADD` fused after it.
    var activation: Activation
    /// Whether the step's second input is added (a fused `ADD`).
    var addsResidual = false
    /// The slopes of a fused `PRELU`.
    var prelu: PReLUSlopes?

    init(_ activation: Activation) { self.activation = activation }

    /// The epilogue of one run, `residual` being the step's second input's view.
    func epilogue(residual: Tensor?) -> Epilogue {
        Epilogue(activation: activation, residual: residual, prelu: prelu)
    }

    /// `" + add"`, `" + prelu"`, `" + add + prelu"` or nothing, for the step's kind.
    var kindSuffix: String { (addsResidual ? " + add" : "") + (prelu != nil ? " + prelu" : "") }
}
