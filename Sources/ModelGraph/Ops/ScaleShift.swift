import Tensor

/// A batch normalization folded to one multiply-add per element: `inputs: [x, scale, shift]`,
/// `y = activation(x · scale[c] + shift[c])` with `c` the index along `axis` and `scale`, `shift`
/// constants `[C]` (`scale = γ / √(σ² + ε)`, `shift = β − μ · scale`). Importers fold a
/// batchnorm into the convolution before it where they can; this is the one that stands alone
/// (Create ML's input normalization over 54 coordinates, or one after a transpose).
public struct ScaleShiftOp: GraphOperation, Equatable {
    public static let name = "scaleShift"
    public var axis: Int
    public var activation: Activation

    public init(axis: Int, activation: Activation = .none) {
        self.axis = axis
        self.activation = activation
    }

    public init(attributes: inout GraphAttributes) throws {
        axis = try attributes.int("axis")
        activation = try attributes.activation()
    }

    public func encode(into attributes: inout GraphAttributes) {
        attributes["axis"] = .int(axis)
        attributes.set(activation: activation)
    }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(3)
        try node.constant(1, "scale"); try node.constant(2, "shift")
        let x = node.shape(0)
        guard axis >= 0, axis < x.count else { throw node.fail("axis \(axis) is outside rank \(x.count)") }
        guard node.shape(1) == [x[axis]], node.shape(2) == [x[axis]] else {
            throw node.fail("scale \(node.shape(1)) and shift \(node.shape(2)) are not [\(x[axis])] along axis \(axis) of \(x)")
        }
        try node.expect(x)
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(3)
        binding.addStep(ScaleShiftKernel(scale: try binding.constant(1, "scale"), shift: try binding.constant(2, "shift"),
                                         axis: axis, activation: activation), [binding.node.inputs[0]])
    }
}

struct ScaleShiftKernel: GraphKernel {
    let scale: Tensor, shift: Tensor
    let axis: Int
    let activation: Activation
    var kind: String { "scale-shift" }
    func run(_ io: GraphKernelIO) throws {
        try Elementwise.scaleShift(io.input(0), scale: scale, shift: shift, axis: axis, activation: activation,
                                   into: io.output, threads: io.threads)
    }
}
