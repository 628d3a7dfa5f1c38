import Tensor

/// `numpy.transpose`: `inputs: [x]` of any rank; output axis `i` is input axis `permutation[i]`
/// (row-major both). Create ML's graph convolutions move joints and channels this way
/// (`[1, C, T, J]` → `[1, J, T, C]`); the kernel works on the smallest equivalent transpose
/// (size-1 axes dropped, axes that stay neighbours merged), and a permutation that moves only
/// size-1 axes is a copy.
public struct TransposeOp: GraphOperation, Equatable {
    public static let name = "transpose"
    public var permutation: [Int]

    public init(permutation: [Int]) { self.permutation = permutation }

    public init(attributes: inout GraphAttributes) throws { permutation = try attributes.ints("permutation") }

    public func encode(into attributes: inout GraphAttributes) { attributes["permutation"] = .ints(permutation) }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        let x = node.shape(0)
        guard permutation.count == x.count, Set(permutation) == Set(0..<x.count) else {
            throw node.fail("permutation \(permutation) is not one of the \(x.count) axes of \(x)")
        }
        try node.expect(permutation.map { x[$0] })
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        binding.addStep(TransposeKernel(permutation: permutation), binding.node.inputs)
    }
}

struct TransposeKernel: GraphKernel {
    let permutation: [Int]
    var kind: String { "transpose" }
    func run(_ io: GraphKernelIO) throws { try Rearrangement.transpose(io.input(0), permutation: permutation, into: io.output) }
}
