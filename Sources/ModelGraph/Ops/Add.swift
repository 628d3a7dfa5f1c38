import Tensor

/// Element-wise sum: `inputs: [a, b]` of the same shape (no broadcasting), then the fused
/// activation. After a convolution it may run in that convolution's epilogue (``EpilogueFusion``).
public struct AddOp: GraphOperation, Equatable {
    public static let name = "add"
    public var activation: Activation

    public init(activation: Activation) { self.activation = activation }

    public init(attributes: inout GraphAttributes) throws { activation = try attributes.activation() }

    public func encode(into attributes: inout GraphAttributes) { attributes.set(activation: activation) }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(2)
        guard node.shape(0) == node.shape(1) else { throw node.fail("adds \(node.shape(0)) to \(node.shape(1))") }
        try node.expect(node.shape(0))
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(2)
        binding.addStep(AddKernel(activation: activation), binding.node.inputs)
    }
}

struct AddKernel: GraphKernel {
    let activation: Activation
    var kind: String { "add" }
    func run(_ io: GraphKernelIO) throws {
        try Elementwise.add(io.input(0), io.input(1), activation: activation, into: io.output, threads: io.threads)
    }
}
