/// The operations a graph bundle may name, by ``GraphOperation/name``: the manner of TFLite's
/// op resolver. A bundle node's `op` is looked up here (an unknown one is refused by name).
///
/// Adding an operation: write its file in `Sources/ModelGraph/Ops/` (type, shape rule, checks,
/// coding, kernel binding: any of the files here is the pattern) and add its type to ``builtin``;
/// an importer that maps a format's op to it adds its mapping line (TFLite:
/// `TFLiteGraphMapper`). ARCHITECTURE.md, "Adding an operation".
public struct GraphOperationRegistry: Sendable {
    /// The operation types, by name.
    public let types: [String: any GraphOperation.Type]

    /// A registry of `types`; two with one name is a programming error.
    public init(_ types: [any GraphOperation.Type]) {
        var byName: [String: any GraphOperation.Type] = [:]
        for type in types {
            let earlier = byName.updateValue(type, forKey: type.name)
            precondition(earlier == nil, "two operations named \(type.name)")
        }
        self.types = byName
    }

    /// Every operation PoseKit runs.
    public static let builtin = GraphOperationRegistry([
        Conv2DOp.self, DepthwiseConv2DOp.self, FullyConnectedOp.self, AddOp.self, PReLUOp.self, LogisticOp.self,
        PadOp.self, MaxPool2DOp.self, SpatialMeanOp.self, ResizeBilinearOp.self, DepthToSpaceOp.self, ReshapeOp.self,
        ConcatenationOp.self,
        // Create ML's layers (and ActionNet's softmax): N-D layout, a batchnorm or activation alone, average pooling.
        TransposeOp.self, SliceOp.self, SoftmaxOp.self, ScaleShiftOp.self, ActivationOp.self, AveragePool2DOp.self,
    ])

    /// The operation a bundle node describes: its `op` looked up, its fields read by that type.
    ///
    /// - Throws: ``GraphError`` for an unknown `op`, a missing or ill-typed field, or a field the
    ///   operation does not read.
    public func operation(_ attributes: GraphAttributes) throws -> any GraphOperation {
        guard let type = types[attributes.op] else { throw GraphError("unknown operation \"\(attributes.op)\"") }
        var fields = attributes
        let operation = try type.init(attributes: &fields)
        if let extra = fields.unread.first { throw GraphError("\(attributes.op) has no field \"\(extra)\"") }
        return operation
    }
}
