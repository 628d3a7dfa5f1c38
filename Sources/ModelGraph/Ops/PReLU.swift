import Tensor

/// Parametric ReLU: `inputs: [x, slope]`, slope `[C]` per channel: `x > 0 ? x : slope[c] · x`.
/// After a convolution (or a fused `ADD`) it may run in that convolution's epilogue (``EpilogueFusion``).
public struct PReLUOp: GraphOperation, Equatable {
    public static let name = "prelu"

    public init() {}

    public init(attributes: inout GraphAttributes) throws {}

    public func encode(into attributes: inout GraphAttributes) {}

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(2)
        try node.constant(1, "slope")
        guard let c = node.shape(0).last, node.shape(1) == [c] else { throw node.fail("slope \(node.shape(1)) is not [channels] of \(node.shape(0))") }
        try node.expect(node.shape(0))
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(2)
        binding.addStep(PReLUKernel(slope: try binding.constant(1, "slope")), [binding.node.inputs[0]])
    }
}

struct PReLUKernel: GraphKernel {
    let slope: Tensor
    var kind: String { "prelu" }
    func run(_ io: GraphKernelIO) throws {
        try Elementwise.prelu(io.input(0), slope: slope, into: io.output, threads: io.threads)
    }
}
