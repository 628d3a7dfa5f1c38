import Tensor

/// Zero padding per axis: `inputs: [x]`, `amounts[i]` = `(before, after)` for axis `i` of `x`'s
/// shape (batch axis dropped). MediaPipe pads height/width before VALID convolutions and channels
/// on residual paths; a spatial pad before a depthwise convolution runs as its padding (``PadFolding``).
public struct PadOp: GraphOperation, Equatable {
    public static let name = "pad"
    public var amounts: [PadAmount]

    public init(amounts: [PadAmount]) { self.amounts = amounts }

    /// Stored as `"pad": [[before, after], ...]`.
    public init(attributes: inout GraphAttributes) throws {
        let pairs = try attributes.intLists("pad")
        guard pairs.allSatisfy({ $0.count == 2 }) else { throw GraphError("\"pad\" must hold [before, after] pairs") }
        amounts = pairs.map { PadAmount(before: $0[0], after: $0[1]) }
    }

    public func encode(into attributes: inout GraphAttributes) {
        attributes["pad"] = .intLists(amounts.map { [$0.before, $0.after] })
    }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        let x = node.shape(0)
        guard amounts.count == x.count,
              amounts.allSatisfy({ $0.before >= 0 && $0.after >= 0 && $0.before <= Graph.maxValueElements && $0.after <= Graph.maxValueElements }) else {
            throw node.fail("padding \(amounts.map { [$0.before, $0.after] }) does not fit shape \(x)")
        }
        try node.expect(zip(x, amounts).map { $0 + $1.before + $1.after })
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        let inShape = binding.shape(binding.node.inputs[0])
        guard amounts.count == inShape.count,
              zip(zip(amounts, inShape), binding.shape(binding.output)).allSatisfy({ $0.0.before >= 0 && $0.0.after >= 0 && $0.0.before + $0.1 + $0.0.after == $1 }) else {
            throw binding.invalid("amounts \(amounts.map { [$0.before, $0.after] }) take \(inShape) to \(binding.shape(binding.output))")
        }
        binding.addStep(PadKernel(before: amounts.map(\.before)), binding.node.inputs)
    }
}

/// Zero padding; `before` per axis of the input (the output's shape gives the rest).
struct PadKernel: GraphKernel {
    let before: [Int]
    var kind: String { "pad" }
    func run(_ io: GraphKernelIO) throws { try Rearrangement.zeroPad(io.input(0), before: before, into: io.output) }
}

/// Zero padding of one axis.
public struct PadAmount: Sendable, Equatable {
    public var before: Int, after: Int
    public init(before: Int, after: Int) { self.before = before; self.after = after }
}
