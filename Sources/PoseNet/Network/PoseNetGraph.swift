import ModelGraph
import Tensor

/// PoseNet as a `ModelGraph.Graph`: the family mapper from a weight set (``PoseNetWeights``) to the
/// network for one input size and output stride, run by `GraphRunner` like every other network.
///
/// ```
/// image [S, S, 3]
///   → MobilenetV1/Conv2d_0            conv2D 3×3 s2 SAME, ReLU6
///   → MobilenetV1/Conv2d_i_depthwise  depthwiseConv2D 3×3 (stride, dilation by the output stride), SAME, ReLU6   i = 1…13
///   → MobilenetV1/Conv2d_i_pointwise  conv2D 1×1, ReLU6
///   → heatmap_logits → heatmap        conv2D 1×1 (17), logistic       [H, W, 17]
///   → offsets                         conv2D 1×1 (34)                 [H, W, 34]
///   → displacement_fwd, displacement_bwd  conv2D 1×1 (32 each)        [H, W, 32]
///   (→ heads                          concatenation of the four        [H, W, 115], for the decoders)
/// ```
/// The outputs are the four heads, named as the reference files are (`heatmap` after the
/// sigmoid); with `packedHeads` the graph's one output is their concatenation ``headsName``, the
/// packed layout ``PoseNetOutput`` decodes in place.
///
/// What PoseNet's tuned path did is the runner's plan: each depthwise + pointwise block runs
/// fused band by band (`SeparableFusion`), the four heads as one GEMM with the heatmap's sigmoid
/// in place (`SharedInputGEMM`), a letterbox band followed through the blocks
/// (`GraphRunner.runInPlace(band:)`), zero channels skipped in the 1×1 products, the widest layers
/// in a reduced precision when asked (the graph's `ReducedPrecisionRule`).
public enum PoseNetGraph {
    /// The input value's name.
    public static let inputName = "image"
    /// The concatenated heads' name.
    public static let headsName = "heads"
    /// The four heads' names, in ``MobileNetArchitecture/heads``' order (the reference files').
    public static let headNames = ["heatmap", "offsets", "displacement_fwd", "displacement_bwd"]
    /// Block `i`'s pointwise output (the name the reduced-precision rule knows it by).
    public static func pointwiseName(_ block: Int) -> String { "MobilenetV1/Conv2d_\(block)_pointwise" }

    /// TF SAME's padding amounts for a `3×3` window of `stride` and `dilation` over `side`.
    static func sameWindow(side: Int, stride: Int, dilation: Int) -> Window2D {
        let out = (side + stride - 1) / stride
        let total = max((out - 1) * stride + 2 * dilation + 1 - side, 0)
        let before = total / 2, after = total - before
        return Window2D(kernelHeight: 3, kernelWidth: 3, strideHeight: stride, strideWidth: stride,
                        dilationHeight: dilation, dilationWidth: dilation,
                        padding: SpatialPadding(top: before, left: before, bottom: after, right: after))
    }
}

extension PoseNetWeights {
    /// The network for a square input of `inputSize` at `outputStride`, on these weights (its
    /// constants are these tensors and its `GraphWeights` store is ``packedWeights``, shared).
    ///
    /// - Throws: ``PoseNetError/invalidConfiguration(_:)`` for an input size outside 17...4097 or an
    ///   output stride the backbone cannot give.
    public func graph(inputSize: Int, outputStride: Int, packedHeads: Bool = false) throws -> Graph {
        guard inputSize >= 17 && inputSize <= 4097 else {
            throw PoseNetError.invalidConfiguration("input size must be within 17...4097, got \(inputSize)")
        }
        let architecture = try MobileNetArchitecture(blockStrides: blockStrides, outputStride: outputStride)
        var values: [GraphValue] = [], nodes: [GraphNode] = []
        func value(_ name: String, _ shape: [Int], _ constant: Tensor? = nil) -> ValueID {
            values.append(GraphValue(name: name, shape: shape, constant: constant))
            return values.count - 1
        }
        func node(_ operation: any GraphOperation, _ inputs: [ValueID], _ name: String, _ shape: [Int]) -> ValueID {
            let out = value(name, shape)
            nodes.append(GraphNode(operation: operation, inputs: inputs, outputs: [out]))
            return out
        }
        let input = value(PoseNetGraph.inputName, [inputSize, inputSize, 3])
        var x = input, side = inputSize
        for (index, block) in architecture.blocks.enumerated() {
            let window = PoseNetGraph.sameWindow(side: side, stride: block.stride, dilation: block.dilation)
            side = (side + block.stride - 1) / block.stride
            if index == 0 {
                let c = firstConvolution.weights.shape[3]
                x = node(Conv2DOp(window: window, activation: .relu6),
                         [x, value(PoseNetWeightNames.firstConvWeights, firstConvolution.weights.shape, firstConvolution.weights),
                          value(PoseNetWeightNames.firstConvBiases, [c], firstConvolution.bias)],
                         "MobilenetV1/Conv2d_0", [side, side, c])
            } else {
                let (depthwise, pointwise) = separableBlocks[index - 1]
                let (cin, cout) = (pointwise.weights.shape[2], pointwise.weights.shape[3])
                x = node(DepthwiseConv2DOp(window: window, activation: .relu6),
                         [x, value(PoseNetWeightNames.depthwiseWeights(index), depthwise.weights.shape, depthwise.weights),
                          value(PoseNetWeightNames.depthwiseBiases(index), [cin], depthwise.bias)],
                         "MobilenetV1/Conv2d_\(index)_depthwise", [side, side, cin])
                x = node(Conv2DOp(window: Window2D(kernelHeight: 1, kernelWidth: 1, strideHeight: 1, strideWidth: 1, padding: .zero),
                                  activation: .relu6),
                         [x, value(PoseNetWeightNames.pointwiseWeights(index), pointwise.weights.shape, pointwise.weights),
                          value(PoseNetWeightNames.pointwiseBiases(index), [cout], pointwise.bias)],
                         PoseNetGraph.pointwiseName(index), [side, side, cout])
            }
        }
        var outputs: [ValueID] = []
        for (head, (scope, channels)) in zip(heads, MobileNetArchitecture.heads) {
            let name = PoseNetGraph.headNames[outputs.count]
            var y = node(Conv2DOp(window: Window2D(kernelHeight: 1, kernelWidth: 1, strideHeight: 1, strideWidth: 1, padding: .zero),
                                  activation: .none),
                         [x, value(PoseNetWeightNames.headWeights(scope), head.weights.shape, head.weights),
                          value(PoseNetWeightNames.headBiases(scope), [channels], head.bias)],
                         outputs.isEmpty ? name + "_logits" : name, [side, side, channels])
            if outputs.isEmpty { y = node(LogisticOp(), [y], name, [side, side, channels]) }
            outputs.append(y)
        }
        if packedHeads {
            outputs = [node(ConcatenationOp(axis: 2), outputs, PoseNetGraph.headsName, [side, side, MobileNetArchitecture.headChannelTotal])]
        }
        let graph = Graph(values: values, nodes: nodes, inputs: [input], outputs: outputs,
                          reducedPrecision: reducedPrecision, weights: packedWeights)
        do { try graph.validate() } catch let error as GraphError { throw PoseNetError.badWeights(error.detail) }
        return graph
    }
}
