/// The checks every ``Graph`` passes before it is run or stored, whatever file it came from (the
/// TFLite importer and the `.pkw` loader both end with ``Graph/validate()``): value references in
/// range, producers before consumers (so a cycle is refused), constants where an operation needs
/// weights, and every output shape equal to what the operation computes from its inputs.
extension Graph {
    /// Largest rank of a value.
    public static let maxRank = 6
    /// Largest element count of one value (2²⁸, 1 GiB of float32): far above these networks' largest
    /// feature map, far below what would exhaust memory.
    public static let maxValueElements = 1 << 28

    /// Throws a ``GraphError`` naming the first node or value that is inconsistent: also a constant
    /// holding NaN or ±infinity (named: such weights give NaN everywhere, or nothing found at all,
    /// never an error of their own later), a graph with no outputs, and an output that is a
    /// constant rather than computed by a node.
    public func validate() throws {
        guard !outputs.isEmpty else { throw GraphError("the graph has no outputs") }
        for (id, value) in values.enumerated() {
            guard value.shape.count <= Graph.maxRank else {
                throw GraphError("value \(id) '\(value.name)' has rank \(value.shape.count) (at most \(Graph.maxRank))")
            }
            var elements = 1
            for d in value.shape {
                guard d > 0, d <= Graph.maxValueElements else { throw GraphError("value \(id) '\(value.name)' has shape \(value.shape)") }
                elements *= d
                guard elements <= Graph.maxValueElements else {
                    throw GraphError("value \(id) '\(value.name)' has \(value.shape) elements, more than \(Graph.maxValueElements)")
                }
            }
            if let constant = value.constant {
                guard constant.shape == value.shape else {
                    throw GraphError("value \(id) '\(value.name)' has shape \(value.shape) but its constant has \(constant.shape)")
                }
                if let index = constant.firstNonFiniteIndex() {
                    throw GraphError("constant '\(value.name)' (value \(id)) holds \(constant.withUnsafeBufferPointer { $0[index] }) at element \(index): weights must be finite")
                }
            }
        }
        // Available = graph inputs and constants, then each node's output once it ran.
        var available = [Bool](repeating: false, count: values.count)
        for id in inputs {
            guard values.indices.contains(id) else { throw GraphError("graph input \(id) is not a value") }
            guard values[id].constant == nil else { throw GraphError("graph input \(id) '\(values[id].name)' is a constant") }
            available[id] = true
        }
        for (id, value) in values.enumerated() where value.constant != nil { available[id] = true }
        for (index, node) in nodes.enumerated() {
            for id in node.inputs {
                guard values.indices.contains(id) else { throw GraphError("node \(index) (\(node.operation.name)) reads value \(id), which does not exist") }
                guard available[id] else {
                    throw GraphError("node \(index) (\(node.operation.name)) reads value \(id) '\(values[id].name)' before any node computes it (a cycle, or a missing producer)")
                }
            }
            guard node.outputs.count == 1, let out = node.outputs.first, values.indices.contains(out) else {
                throw GraphError("node \(index) (\(node.operation.name)) must write exactly one existing value")
            }
            guard !available[out] else {
                throw GraphError("node \(index) (\(node.operation.name)) writes value \(out) '\(values[out].name)', which is an input, a constant or already computed")
            }
            try checkShapes(node, index: index)
            available[out] = true
        }
        for id in outputs {
            guard values.indices.contains(id), available[id] else { throw GraphError("graph output \(id) is never computed") }
            guard values[id].constant == nil else {
                throw GraphError("graph output \(id) '\(values[id].name)' is a constant, not computed by any node")
            }
        }
    }

    private func checkShapes(_ node: GraphNode, index: Int) throws {
        var check = GraphNodeCheck(graph: self, node: node, index: index)
        try node.operation.validate(&check)
    }
}

/// What an operation's ``GraphOperation/validate(_:)`` sees of one node: its input and output
/// values, and helpers whose errors name the node (`node 12 (conv2D): bias [8] is not [16]`).
public struct GraphNodeCheck {
    let graph: Graph
    /// The node being checked.
    public let node: GraphNode
    /// Its position in ``Graph/nodes``.
    public let index: Int

    /// A ``GraphError`` naming the node: `node 3 (add): <detail>`.
    public func fail(_ detail: String) -> GraphError { GraphError("node \(index) (\(node.operation.name)): \(detail)") }

    /// Throws unless the node reads exactly `count` values.
    public func arity(_ count: Int) throws {
        guard node.inputs.count == count else { throw fail("has \(node.inputs.count) inputs, expected \(count)") }
    }

    /// Throws unless the node reads at least one value.
    public func nonEmptyInputs() throws {
        guard !node.inputs.isEmpty else { throw fail("has no inputs") }
    }

    /// The value read as input `i`.
    public func input(_ i: Int) -> GraphValue { graph.values[node.inputs[i]] }

    /// The shape of input `i`.
    public func shape(_ i: Int) -> [Int] { graph.values[node.inputs[i]].shape }

    /// The output value's shape.
    public var output: [Int] { graph.values[node.outputs[0]].shape }

    /// Throws unless input `i` is a constant (`what`: "weights", "bias", "slope").
    public func constant(_ i: Int, _ what: String) throws {
        guard graph.values[node.inputs[i]].constant != nil else { throw fail("\(what) is not a constant") }
    }

    /// Throws unless the output's shape is `computed`, what the inputs give.
    public func expect(_ computed: [Int]) throws {
        guard computed == output else { throw fail("output shape is \(output), but the inputs give \(computed)") }
    }

    /// Output height and width of `window` over `x` `[H, W, C]`; throws for a window out of range
    /// or one that does not fit.
    public func windowOutput(_ w: Window2D, _ x: [Int]) throws -> (Int, Int) {
        let limits = [w.kernelHeight, w.kernelWidth, w.strideHeight, w.strideWidth, w.dilationHeight, w.dilationWidth]
        let pads = [w.padding.top, w.padding.left, w.padding.bottom, w.padding.right]
        guard limits.allSatisfy({ $0 >= 1 && $0 <= 1 << 16 }), pads.allSatisfy({ $0 >= 0 && $0 <= 1 << 16 }) else {
            throw fail("window \(w.kernelHeight)×\(w.kernelWidth) stride \(w.strideHeight)×\(w.strideWidth) dilation \(w.dilationHeight)×\(w.dilationWidth) padding \(w.padding) is out of range")
        }
        func size(_ n: Int, _ k: Int, _ s: Int, _ d: Int, _ p: Int) throws -> Int {
            let span = (k - 1) * d + 1
            guard n + p >= span else { throw fail("the \(k)-wide window does not fit input size \(n) with padding \(p)") }
            return (n + p - span) / s + 1
        }
        return (try size(x[0], w.kernelHeight, w.strideHeight, w.dilationHeight, w.padding.top + w.padding.bottom),
                try size(x[1], w.kernelWidth, w.strideWidth, w.dilationWidth, w.padding.left + w.padding.right))
    }
}
