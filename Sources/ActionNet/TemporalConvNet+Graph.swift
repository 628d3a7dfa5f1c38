import ModelGraph
import Tensor

extension TemporalConvNet {
    /// The graph's input: one window's features (``PoseWindow/features()``), `[T, 51]`.
    public static let graphInput = "features"
    /// The graph's outputs, in order: the class probabilities `[classes]`, then the logits.
    public static let graphOutputs = ["probabilities", "logits"]

    /// The network as a `ModelGraph` graph, what inference runs (on the graph runner, as every
    /// network here): the parameters as they are now, copied as its constants.
    ///
    /// ```
    /// features [T, 51] → [1, T, 51]     reshape: height 1, width = time, channels = features
    /// conv0    conv2D 1×k, stride 2, padding (k−1)/2 both sides, ReLU     [1, T/2, C1]
    /// block 1  conv2D + ReLU → conv2D → add (the block's input), ReLU
    /// conv2    conv2D stride 2, ReLU                                     [1, T/4, C2]
    /// block 2
    /// spatialMean [C2] → fullyConnected [C2, classes] → logits → softmax → probabilities
    /// ```
    /// Weights are HWIO `[1, k, Cin, Cout]`, the bytes of the parameter vector's KIO layers; the
    /// dense layer's are IO `[C2, classes]`. The residual adds run in the epilogue of the
    /// convolution before them (the runner's fusion), as `TemporalConvNet` ran them by hand.
    public func graph() throws -> Graph {
        var builder = TemporalGraphBuilder(parameters: parameterValues)
        let a = architecture
        let features = builder.value(Self.graphInput, [a.windowLength, a.inputChannels])
        var x = builder.node(ReshapeOp(), [features], "window", [1, a.windowLength, a.inputChannels])
        x = try builder.convolution(conv0, x, "conv0", activation: .relu)
        x = try builder.residualBlock(block1a, block1b, x, "block1")
        x = try builder.convolution(conv2, x, "conv2", activation: .relu)
        x = try builder.residualBlock(block2a, block2b, x, "block2")
        let pooled = builder.node(SpatialMeanOp(), [x], "pooled", [a.channels2])
        let weights = try builder.constant("dense/weights", [a.channels2, a.classes], offset: denseOffset)
        let bias = try builder.constant("dense/biases", [a.classes], offset: denseOffset + a.channels2 * a.classes)
        let logits = builder.node(FullyConnectedOp(activation: .none), [pooled, weights, bias], Self.graphOutputs[1], [a.classes])
        let probabilities = builder.node(SoftmaxOp(axis: 0), [logits], Self.graphOutputs[0], [a.classes])
        return Graph(values: builder.values, nodes: builder.nodes, inputs: [features], outputs: [probabilities, logits])
    }
}

/// Values and nodes of ``TemporalConvNet/graph()`` as they are added, constants cut from the
/// parameter vector.
private struct TemporalGraphBuilder {
    let parameters: [Float]
    var values: [GraphValue] = []
    var nodes: [GraphNode] = []

    mutating func value(_ name: String, _ shape: [Int], constant: Tensor? = nil) -> ValueID {
        values.append(GraphValue(name: name, shape: shape, constant: constant))
        return values.count - 1
    }

    mutating func node(_ operation: any GraphOperation, _ inputs: [ValueID], _ name: String, _ shape: [Int]) -> ValueID {
        let out = value(name, shape)
        nodes.append(GraphNode(operation: operation, inputs: inputs, outputs: [out]))
        return out
    }

    /// The parameters `offset ..< offset + count(shape)` as a constant.
    mutating func constant(_ name: String, _ shape: [Int], offset: Int) throws -> ValueID {
        let count = shape.reduce(1, *)
        return value(name, shape, constant: try Tensor(shape: shape, values: Array(parameters[offset..<(offset + count)])))
    }

    /// `layer` over `x` `[1, T, Cin]`: `[1, ⌈T / stride⌉, Cout]`.
    mutating func convolution(_ layer: TemporalConv, _ x: ValueID, _ name: String, activation: Activation) throws -> ValueID {
        let time = values[x].shape[1], p = layer.padding
        let weights = try constant(name + "/weights", [1, layer.kernel, layer.inputChannels, layer.outputChannels], offset: layer.offset)
        let bias = try constant(name + "/biases", [layer.outputChannels], offset: layer.offset + layer.weightCount)
        let window = Window2D(kernelHeight: 1, kernelWidth: layer.kernel, strideHeight: layer.stride, strideWidth: layer.stride,
                              padding: SpatialPadding(top: 0, left: p, bottom: 0, right: p))
        return node(Conv2DOp(window: window, activation: activation), [x, weights, bias], name,
                    [1, layer.outputLength(time), layer.outputChannels])
    }

    /// `ReLU(x + convB(ReLU(convA(x))))`.
    mutating func residualBlock(_ convA: TemporalConv, _ convB: TemporalConv, _ x: ValueID, _ name: String) throws -> ValueID {
        let hidden = try convolution(convA, x, name + "a", activation: .relu)
        let y = try convolution(convB, hidden, name + "b", activation: .none)
        return node(AddOp(activation: .relu), [y, x], name, values[x].shape)
    }
}
