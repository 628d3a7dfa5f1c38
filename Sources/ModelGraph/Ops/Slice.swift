import Tensor

/// One range of one axis: `inputs: [x]`; the output is `x`'s indices `start ..< start + n`
/// along `axis` (`n` the output's size there), every other axis whole. A Core ML `splitND` is one
/// slice per part.
public struct SliceOp: GraphOperation, Equatable {
    public static let name = "slice"
    public var axis: Int
    public var start: Int

    public init(axis: Int, start: Int) {
        self.axis = axis
        self.start = start
    }

    public init(attributes: inout GraphAttributes) throws {
        axis = try attributes.int("axis")
        start = try attributes.int("start")
    }

    public func encode(into attributes: inout GraphAttributes) {
        attributes["axis"] = .int(axis)
        attributes["start"] = .int(start)
    }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        let x = node.shape(0), out = node.output
        guard axis >= 0, axis < x.count else { throw node.fail("axis \(axis) is outside rank \(x.count)") }
        guard out.count == x.count, start >= 0, out[axis] >= 1, start <= x[axis] - out[axis] else {
            throw node.fail("slice \(start) ..< \(start) + \(out.count == x.count ? out[axis] : 0) of axis \(axis) does not fit \(x) → \(out)")
        }
        var computed = x
        computed[axis] = out[axis]
        try node.expect(computed)
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        binding.addStep(SliceKernel(axis: axis, start: start), binding.node.inputs)
    }
}

struct SliceKernel: GraphKernel {
    let axis: Int, start: Int
    var kind: String { "slice" }
    func run(_ io: GraphKernelIO) throws { try Rearrangement.slice(io.input(0), axis: axis, start: start, into: io.output) }
}
