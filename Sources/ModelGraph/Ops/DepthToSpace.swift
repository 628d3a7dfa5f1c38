import Tensor

/// TF `DEPTH_TO_SPACE` in DCR order: `inputs: [x]` `[H, W, b²·C]` → `[H·b, W·b, C]`,
/// `out[h·b + i, w·b + j, c] = in[h, w, (i·b + j)·C + c]`.
public struct DepthToSpaceOp: GraphOperation, Equatable {
    public static let name = "depthToSpace"
    public var blockSize: Int

    public init(blockSize: Int) { self.blockSize = blockSize }

    public init(attributes: inout GraphAttributes) throws { blockSize = try attributes.int("blockSize") }

    public func encode(into attributes: inout GraphAttributes) { attributes["blockSize"] = .int(blockSize) }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        let x = node.shape(0), b = blockSize
        guard b >= 1, b <= 64, x.count == 3, x[2] % (b * b) == 0 else { throw node.fail("block size \(b) does not divide \(x)") }
        try node.expect([x[0] * b, x[1] * b, x[2] / (b * b)])
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        binding.addStep(DepthToSpaceKernel(blockSize: blockSize), binding.node.inputs)
    }
}

struct DepthToSpaceKernel: GraphKernel {
    let blockSize: Int
    var kind: String { "depth to space" }
    func run(_ io: GraphKernelIO) throws { try Rearrangement.depthToSpace(io.input(0), blockSize: blockSize, into: io.output) }
}
