import Tensor

/// An activation standing alone: `inputs: [x]` of any rank, `y = activation(x)` (`relu`:
/// `max(x, 0)`; `relu6`). Importers fuse an activation into the operation before it where they
/// can; this is one that follows no operation with a fused activation of its own.
public struct ActivationOp: GraphOperation, Equatable {
    public static let name = "activation"
    public var activation: Activation

    public init(activation: Activation) { self.activation = activation }

    public init(attributes: inout GraphAttributes) throws { activation = try attributes.activation() }

    public func encode(into attributes: inout GraphAttributes) { attributes.set(activation: activation) }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        try node.expect(node.shape(0))
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        binding.addStep(ActivationKernel(activation: activation), binding.node.inputs)
    }
}

struct ActivationKernel: GraphKernel {
    let activation: Activation
    var kind: String { activation.description }
    func run(_ io: GraphKernelIO) throws { try Elementwise.activation(activation, io.input(0), into: io.output, threads: io.threads) }
}
