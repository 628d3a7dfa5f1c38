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

    /// Multiply-adds of the node at `index`: convolution `H_out·W_out·C_out·kH·kW·C_in`, depthwise
    /// `H_out·W_out·C·kH·kW`, fully connected `in·out`; 0 for the other operations.
    public func multiplyAdds(ofNode index: Int) -> Int {
        let node = nodes[index]
        let out = values[node.outputs[0]].count
        switch node.operation {
        case .conv2D(let w, _):
            return out * w.kernelHeight * w.kernelWidth * (values[node.inputs[0]].shape.last ?? 0)
        case .depthwiseConv2D(let w, _):
            return out * w.kernelHeight * w.kernelWidth
        case .fullyConnected:
            return out * values[node.inputs[0]].count
        default:
            return 0
        }
    }

    /// Multiply-adds of the whole graph (sum over ``multiplyAdds(ofNode:)``).
    public var multiplyAdds: Int { nodes.indices.reduce(0) { $0 + multiplyAdds(ofNode: $1) } }
}

extension GraphOperation {
    /// The operation's kind in one word (`conv2D`, `add`, ...), as in `posekit info` and errors.
    public var name: String {
        switch self {
        case .conv2D: return "conv2D"
        case .depthwiseConv2D: return "depthwiseConv2D"
        case .fullyConnected: return "fullyConnected"
        case .add: return "add"
        case .prelu: return "prelu"
        case .logistic: return "logistic"
        case .pad: return "pad"
        case .maxPool2D: return "maxPool2D"
        case .spatialMean: return "spatialMean"
        case .resizeBilinear: return "resizeBilinear"
        case .depthToSpace: return "depthToSpace"
        case .reshape: return "reshape"
        case .concatenation: return "concatenation"
        }
    }
}
