/// What `posekit info` and the import tests report about a ``Graph``: operations by kind,
/// parameters and multiply-adds, computed from the static shapes.
extension Graph {
    /// Number of nodes of each operation kind (``GraphOperation/name``), most frequent first, ties by name.
    public var operationCounts: [(name: String, count: Int)] {
        Dictionary(grouping: nodes, by: { $0.operation.name }).map { ($0.key, $0.value.count) }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
    }

    /// Elements of all constants (weights, biases, slopes), dense.
    public var parameterCount: Int { values.reduce(0) { $0 + ($1.constant == nil ? 0 : $1.count) } }

    /// Multiply-adds of the node at `index`, by its operation (``GraphOperation/multiplyAdds(inputs:output:)``):
    /// convolution `H_out·W_out·C_out·kH·kW·C_in`, depthwise `H_out·W_out·C·kH·kW`, fully connected
    /// `in·out`; 0 for data movement and element-wise operations.
    public func multiplyAdds(ofNode index: Int) -> Int {
        let node = nodes[index]
        return node.operation.multiplyAdds(inputs: node.inputs.map { values[$0] }, output: values[node.outputs[0]])
    }

    /// Multiply-adds of the whole graph (sum over ``multiplyAdds(ofNode:)``).
    public var multiplyAdds: Int { nodes.indices.reduce(0) { $0 + multiplyAdds(ofNode: $1) } }
}
