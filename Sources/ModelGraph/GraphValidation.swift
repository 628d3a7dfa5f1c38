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

    /// Throws a ``GraphError`` naming the first node or value that is inconsistent.
    public func validate() throws {
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
            if let constant = value.constant, constant.shape != value.shape {
                throw GraphError("value \(id) '\(value.name)' has shape \(value.shape) but its constant has \(constant.shape)")
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
        }
    }

    private func checkShapes(_ node: GraphNode, index: Int) throws {
        let op = node.operation
        func fail(_ detail: String) -> GraphError { GraphError("node \(index) (\(op.name)): \(detail)") }
        func arity(_ n: Int) throws { guard node.inputs.count == n else { throw fail("has \(node.inputs.count) inputs, expected \(n)") } }
        func shape(_ i: Int) -> [Int] { values[node.inputs[i]].shape }
        func constant(_ i: Int, _ what: String) throws {
            guard values[node.inputs[i]].constant != nil else { throw fail("\(what) is not a constant") }
        }
        let out = values[node.outputs[0]].shape
        func expect(_ computed: [Int]) throws {
            guard computed == out else { throw fail("output shape is \(out), but the inputs give \(computed)") }
        }
        switch op {
        case .conv2D(let window, _), .depthwiseConv2D(let window, _):
            try arity(3)
            try constant(1, "weights"); try constant(2, "bias")
            let x = shape(0), w = shape(1)
            guard x.count == 3 else { throw fail("input shape \(x) is not [H, W, C]") }
            let channels: Int
            if case .conv2D = op {
                guard w.count == 4, w[2] == x[2] else { throw fail("weights \(w) are not HWIO [kH, kW, \(x[2]), Cout]") }
                channels = w[3]
            } else {
                guard w.count == 3, w[2] == x[2] else { throw fail("weights \(w) are not [kH, kW, \(x[2])]") }
                channels = x[2]
            }
            guard shape(2) == [channels] else { throw fail("bias \(shape(2)) is not [\(channels)]") }
            guard w[0] == window.kernelHeight, w[1] == window.kernelWidth else { throw fail("weights \(w) disagree with the \(window.kernelHeight)×\(window.kernelWidth) window") }
            let (h, wo) = try windowOutput(window, x, fail)
            try expect([h, wo, channels])
        case .fullyConnected:
            try arity(3)
            try constant(1, "weights"); try constant(2, "bias")
            let w = shape(1)
            guard w.count == 2, w[0] == values[node.inputs[0]].count else { throw fail("weights \(w) are not [\(values[node.inputs[0]].count), out]") }
            guard shape(2) == [w[1]] else { throw fail("bias \(shape(2)) is not [\(w[1])]") }
            try expect([w[1]])
        case .add:
            try arity(2)
            guard shape(0) == shape(1) else { throw fail("adds \(shape(0)) to \(shape(1))") }
            try expect(shape(0))
        case .prelu:
            try arity(2)
            try constant(1, "slope")
            guard let c = shape(0).last, shape(1) == [c] else { throw fail("slope \(shape(1)) is not [channels] of \(shape(0))") }
            try expect(shape(0))
        case .logistic:
            try arity(1)
            try expect(shape(0))
        case .pad(let amounts):
            try arity(1)
            let x = shape(0)
            guard amounts.count == x.count, amounts.allSatisfy({ $0.before >= 0 && $0.after >= 0 && $0.before <= Graph.maxValueElements && $0.after <= Graph.maxValueElements }) else {
                throw fail("padding \(amounts.map { [$0.before, $0.after] }) does not fit shape \(x)")
            }
            try expect(zip(x, amounts).map { $0 + $1.before + $1.after })
        case .maxPool2D(let window):
            try arity(1)
            let x = shape(0)
            guard x.count == 3 else { throw fail("input shape \(x) is not [H, W, C]") }
            let (h, w) = try windowOutput(window, x, fail)
            try expect([h, w, x[2]])
        case .spatialMean:
            try arity(1)
            let x = shape(0)
            guard x.count == 3 else { throw fail("input shape \(x) is not [H, W, C]") }
            try expect([x[2]])
        case .resizeBilinear(let alignCorners, let halfPixelCenters):
            try arity(1)
            let x = shape(0)
            guard x.count == 3, out.count == 3, out[2] == x[2] else { throw fail("resizes \(x) to \(out)") }
            guard !(alignCorners && halfPixelCenters) else { throw fail("align corners and half-pixel centres together") }
        case .depthToSpace(let b):
            try arity(1)
            let x = shape(0)
            guard b >= 1, b <= 64, x.count == 3, x[2] % (b * b) == 0 else { throw fail("block size \(b) does not divide \(x)") }
            try expect([x[0] * b, x[1] * b, x[2] / (b * b)])
        case .reshape:
            try arity(1)
            guard values[node.inputs[0]].count == values[node.outputs[0]].count else { throw fail("reshapes \(shape(0)) to \(out)") }
        case .concatenation(let axis):
            guard !node.inputs.isEmpty else { throw fail("has no inputs") }
            let first = shape(0)
            guard axis >= 0, axis < first.count else { throw fail("axis \(axis) is outside rank \(first.count)") }
            var total = 0
            for i in node.inputs.indices {
                var s = shape(i)
                guard s.count == first.count else { throw fail("concatenates ranks \(first.count) and \(s.count)") }
                total += s[axis]
                s[axis] = first[axis]
                guard s == first else { throw fail("concatenates \(first) and \(shape(i)) along axis \(axis)") }
            }
            var computed = first
            computed[axis] = total
            try expect(computed)
        }
    }

    /// Output height and width of a window over `x` `[H, W, C]`.
    private func windowOutput(_ w: Window2D, _ x: [Int], _ fail: (String) -> GraphError) throws -> (Int, Int) {
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
