import Tensor

/// Softmax along `axis`: `inputs: [x]` of any rank; each line of values along the axis becomes
/// `e^(x − max) / Σ e^(x − max)`, the exponentials summed in float64 (class probabilities: a
/// Create ML classifier's and ActionNet's last operation).
public struct SoftmaxOp: GraphOperation, Equatable {
    public static let name = "softmax"
    public var axis: Int

    public init(axis: Int) { self.axis = axis }

    public init(attributes: inout GraphAttributes) throws { axis = try attributes.int("axis") }

    public func encode(into attributes: inout GraphAttributes) { attributes["axis"] = .int(axis) }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        guard axis >= 0, axis < node.shape(0).count else { throw node.fail("axis \(axis) is outside rank \(node.shape(0).count)") }
        try node.expect(node.shape(0))
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        binding.addStep(SoftmaxKernel(axis: axis), binding.node.inputs)
    }
}

struct SoftmaxKernel: GraphKernel {
    let axis: Int
    var kind: String { "softmax" }
    func run(_ io: GraphKernelIO) throws { try TensorNonlinearities.softmax(io.input(0), axis: axis, into: io.output) }
}
