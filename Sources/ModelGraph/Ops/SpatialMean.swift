import Tensor

/// Mean over the spatial axes: `inputs: [x]` `[H, W, C]`, giving `[C]`.
public struct SpatialMeanOp: GraphOperation, Equatable {
    public static let name = "spatialMean"

    public init() {}

    public init(attributes: inout GraphAttributes) throws {}

    public func encode(into attributes: inout GraphAttributes) {}

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        let x = node.shape(0)
        guard x.count == 3 else { throw node.fail("input shape \(x) is not [H, W, C]") }
        try node.expect([x[2]])
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        binding.addStep(SpatialMeanKernel(), binding.node.inputs)
    }
}

struct SpatialMeanKernel: GraphKernel {
    var kind: String { "mean" }
    func run(_ io: GraphKernelIO) throws { try Pooling.spatialMean(io.input(0), into: io.output) }
}
