import Tensor

/// Fully connected layer: `inputs: [x, weights, bias]`, `x` flattened to `[in]`, weights
/// `[in, out]`, bias `[out]`: `y = act(x · W + b)`, output `[out]`. Runs as a 1×1 GEMM of one pixel.
public struct FullyConnectedOp: GraphOperation, Equatable {
    public static let name = "fullyConnected"
    public var activation: Activation

    public init(activation: Activation) { self.activation = activation }

    public init(attributes: inout GraphAttributes) throws { activation = try attributes.activation() }

    public func encode(into attributes: inout GraphAttributes) { attributes.set(activation: activation) }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(3)
        try node.constant(1, "weights"); try node.constant(2, "bias")
        let w = node.shape(1), count = node.input(0).count
        guard w.count == 2, w[0] == count else { throw node.fail("weights \(w) are not [\(count), out]") }
        guard node.shape(2) == [w[1]] else { throw node.fail("bias \(node.shape(2)) is not [\(w[1])]") }
        try node.expect([w[1]])
    }

    public func bundleLayout(ofInput index: Int) -> TensorLayout? { index == 1 ? .io : nil }

    /// `in·out`.
    public func multiplyAdds(inputs: [GraphValue], output: GraphValue) -> Int { output.count * inputs[0].count }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(3)
        let x = binding.node.inputs[0]
        let weights = try binding.constant(1, "weights")
        let bias = try binding.constant(2, "bias")
        guard weights.rank == 2, weights.shape[0] == binding.shape(x).reduce(1, *),
              weights.shape[1] == binding.shape(binding.output).reduce(1, *) else {
            throw binding.invalid("weights \(weights.shape) ([in, out]) for input \(binding.shape(x)) and output \(binding.shape(binding.output))")
        }
        let packed = try binding.packedGEMM(weights: weights, bias: bias, rows: weights.shape[0], columns: weights.shape[1])
        binding.addStep(FullyConnectedKernel(weights: packed, activation: activation), [x])
    }
}

/// `FULLY_CONNECTED`: the input seen as one pixel of `in` channels.
struct FullyConnectedKernel: GraphKernel {
    let weights: PackedPointwiseWeights
    let activation: Activation
    var kind: String { "fully connected" }
    func run(_ io: GraphKernelIO) throws {
        try Convolution.pointwise(io.input(0).reshaped([1, 1, weights.inputChannels]), packed: weights, activation: activation,
                                  into: io.output.reshaped([1, 1, weights.outputChannels]), skippingZeroChannels: false, threads: 1)
    }
}
