import Tensor

/// The logistic sigmoid, element-wise: `inputs: [x]`, `1 / (1 + exp(-x))`.
public struct LogisticOp: GraphOperation, Equatable {
    public static let name = "logistic"

    public init() {}

    public init(attributes: inout GraphAttributes) throws {}

    public func encode(into attributes: inout GraphAttributes) {}

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        try node.expect(node.shape(0))
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        binding.addStep(LogisticKernel(), binding.node.inputs)
    }
}

struct LogisticKernel: GraphKernel {
    var kind: String { "logistic" }
    func run(_ io: GraphKernelIO) throws { try TensorNonlinearities.sigmoid(io.input(0), into: io.output) }
}
