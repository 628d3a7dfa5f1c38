import Tensor

/// Concatenation along `axis` of the output's shape (batch dropped): `inputs: [x0, x1, ...]`,
/// equal shapes but for that axis.
public struct ConcatenationOp: GraphOperation, Equatable {
    public static let name = "concatenation"
    public var axis: Int

    public init(axis: Int) { self.axis = axis }

    public init(attributes: inout GraphAttributes) throws { axis = try attributes.int("axis") }

    public func encode(into attributes: inout GraphAttributes) { attributes["axis"] = .int(axis) }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.nonEmptyInputs()
        let first = node.shape(0)
        guard axis >= 0, axis < first.count else { throw node.fail("axis \(axis) is outside rank \(first.count)") }
        var total = 0
        for i in node.node.inputs.indices {
            var s = node.shape(i)
            guard s.count == first.count else { throw node.fail("concatenates ranks \(first.count) and \(s.count)") }
            total += s[axis]
            s[axis] = first[axis]
            guard s == first else { throw node.fail("concatenates \(first) and \(node.shape(i)) along axis \(axis)") }
        }
        var computed = first
        computed[axis] = total
        try node.expect(computed)
    }

    public func bind(_ binding: inout GraphBinding) throws {
        if let merge = binding.merge {
            try SharedInputGEMM.bind(merge, binding: &binding)
            return
        }
        guard !binding.node.inputs.isEmpty else { throw binding.invalid("has no inputs") }
        binding.addStep(ConcatenationKernel(axis: axis), binding.node.inputs)
    }
}

struct ConcatenationKernel: GraphKernel {
    let axis: Int
    var kind: String { "concatenation" }
    func run(_ io: GraphKernelIO) throws {
        try Rearrangement.concatenate(io.inputs.indices.map(io.input), axis: axis, into: io.output)
    }
}
