import Tensor

/// The same elements with the output value's shape: `inputs: [x]`, row-major. No work: the
/// output shares the input's buffer.
public struct ReshapeOp: GraphOperation, Equatable {
    public static let name = "reshape"

    public init() {}

    public init(attributes: inout GraphAttributes) throws {}

    public func encode(into attributes: inout GraphAttributes) {}

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        guard node.input(0).count == node.output.reduce(1, *) else { throw node.fail("reshapes \(node.shape(0)) to \(node.output)") }
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        guard binding.shape(binding.node.inputs[0]).reduce(1, *) == binding.shape(binding.output).reduce(1, *) else {
            throw binding.invalid("\(binding.shape(binding.node.inputs[0])) to \(binding.shape(binding.output))")
        }
        binding.addStep(ReshapeKernel(), binding.node.inputs)
    }
}

/// No work: the output is the input's buffer seen with another shape.
struct ReshapeKernel: GraphKernel {
    var kind: String { "reshape" }
    var aliasesInput: Bool { true }
    func run(_ io: GraphKernelIO) throws {}
}
