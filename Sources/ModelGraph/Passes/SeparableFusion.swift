import Tensor

/// The plan pass that runs a depthwise 3×3 convolution and the 1×1 convolution reading it as one
/// step, band by band (Tensor's `Convolution.separable`: MobileNet's block): the depthwise
/// output never leaves the core's cache (up to 6 MiB at PoseNet's 513 input), and the pair is one
/// fork/join of the cores instead of two.
///
/// A pair is a `depthwiseConv2D` 3×3 with TF SAME padding, equal strides of 1 or 2 and equal
/// dilations, whose output only a packed-GEMM 1×1 `conv2D` reads (and is not a requested output),
/// both with the same activation, the 1×1 leading no epilogue chain (``EpilogueFusion``) and the
/// depthwise taking no folded pad (``PadFolding``). The values are those of the two kernels run
/// one after the other (the same row kernel and microkernel).
enum SeparableFusion {
    /// Pointwise node → the depthwise node it runs with.
    static func pairs(_ graph: Graph, needed: [Bool], outputs: [ValueID], producer: [Int?],
                      chains: [Int: EpilogueChain], foldedPads: [Int: Int]) -> [Int: Int] {
        var readers = [Int](repeating: 0, count: graph.values.count)
        for (index, node) in graph.nodes.enumerated() where needed[index] { for id in node.inputs { readers[id] += 1 } }
        for id in outputs { readers[id] += 1 }
        let padded = Set(foldedPads.values)
        var pairs: [Int: Int] = [:]
        for (index, node) in graph.nodes.enumerated() where needed[index] && chains[index] == nil {
            guard let pointwise = node.operation as? Conv2DOp, node.inputs.count == 3,
                  let weights = graph.values[node.inputs[1]].constant, weights.rank == 4,
                  Conv2DOp.isPointwise(pointwise.window, weights.shape[0], weights.shape[1]),
                  let x = node.inputs.first, readers[x] == 1, let dw = producer[x], !padded.contains(dw),
                  let depthwise = graph.nodes[dw].operation as? DepthwiseConv2DOp, depthwise.activation == pointwise.activation,
                  graph.nodes[dw].inputs.count == 3, graph.values[graph.nodes[dw].inputs[1]].constant != nil,
                  graph.values[graph.nodes[dw].inputs[2]].constant != nil else { continue }
            let w = depthwise.window
            guard w.kernelHeight == 3, w.kernelWidth == 3, w.strideHeight == w.strideWidth, w.strideHeight == 1 || w.strideHeight == 2,
                  w.dilationHeight == w.dilationWidth,
                  w.convention(input: graph.values[graph.nodes[dw].inputs[0]].shape, output: graph.values[x].shape) == .same else { continue }
            pairs[index] = dw
        }
        return pairs
    }
}

/// A depthwise 3×3 and a 1×1 convolution as one step (``SeparableFusion``), band by band.
struct SeparableKernel: GraphKernel {
    let block: SeparableBlock
    /// The depthwise window over the step's input (SAME): what a band of equal rows gives.
    let geometry: ConvolutionGeometry
    var kind: String {
        "depthwise 3x3 s\(block.stride)" + (block.dilation == 1 ? "" : " d\(block.dilation)") + " + conv 1x1"
            + (block.packed.precision == .fp32 ? "" : " \(block.packed.precision.rawValue)")
    }
    var bandGeometry: ConvolutionGeometry? { geometry }
    var kernels: String { Convolution.depthwiseKernelFamily + " + " + block.packed.kernelFamily }
    func reserve(_ workspace: ConvolutionWorkspace, threads: Int) {
        workspace.reserve(count: Convolution.separableWorkspaceCount(width: geometry.outputWidth, channels: block.packed.inputChannels,
                                                                     threads: threads, kernel: block.packed.kernel))
    }
    func run(_ io: GraphKernelIO) throws {
        try Convolution.separable(io.input(0), depthwiseWeights: block.depthwiseWeights, depthwiseBias: block.depthwiseBias,
                                  stride: block.stride, dilation: block.dilation, packed: block.packed, activation: block.activation,
                                  into: io.output, workspace: io.workspace, skippingRows: io.skippingRows,
                                  skippingColumns: io.skippingColumns, skippingZeroChannels: io.skipsZeroChannels, threads: io.threads)
    }
}

extension SeparableFusion {
    /// Binds the pair: the 1×1 convolution `pointwise` (weights HWIO `[1, 1, C, Cout]`, `bias`) with
    /// the depthwise node before it.
    static func bind(depthwise: GraphNode, pointwise: Conv2DOp, weights: Tensor, bias: Tensor, binding: inout GraphBinding) throws {
        guard let op = depthwise.operation as? DepthwiseConv2DOp else { throw binding.invalid("its fused depthwise node is not one") }
        let x = depthwise.inputs[0]
        var depthwiseWeights = try binding.constant(value: depthwise.inputs[1], "weights", of: binding.index, op)
        if depthwiseWeights.rank == 4 { depthwiseWeights = try depthwiseWeights.reshaped(Array(depthwiseWeights.shape.prefix(3))) }
        let depthwiseBias = try binding.constant(value: depthwise.inputs[2], "bias", of: binding.index, op)
        let (cin, cout) = (weights.shape[2], weights.shape[3])
        let inShape = binding.shape(x)
        let geometry = try ConvolutionGeometry(inputHeight: inShape[0], inputWidth: inShape[1], kernelHeight: 3, kernelWidth: 3,
                                               stride: op.window.strideHeight, dilation: op.window.dilationHeight, padding: .same)
        let precision = binding.pointwisePrecision(inputChannels: cin)
        let packed = try binding.packedGEMM(weights: weights, bias: bias, rows: cin, columns: cout, precision: precision)
        let block = SeparableBlock(depthwiseWeights: depthwiseWeights, depthwiseBias: depthwiseBias, stride: op.window.strideHeight,
                                   dilation: op.window.dilationHeight, packed: packed, activation: pointwise.activation)
        binding.addStep(SeparableKernel(block: block, geometry: geometry), [x], fusing: [binding.fusedDepthwiseIndex!])
    }
}
