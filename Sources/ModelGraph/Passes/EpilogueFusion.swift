/// The plan pass that runs residual `ADD`s and `PRELU`s in the epilogue of the convolution
/// before them (Tensor's `Epilogue`: residual add, clamp, PReLU), so their values never make a
/// trip through memory of their own.
///
/// A chain is a packed-GEMM `conv2D` (``Conv2DOp/runsOnPackedGEMM(_:_:)``) whose output only an
/// `ADD` reads (the convolution without an activation of its own, the other operand a different
/// value: the residual) or only a `PRELU` with constant slopes, one per channel; after the `ADD`,
/// a `PRELU` that alone reads the sum. A value fused away must not be a requested output. The
/// values are the same as unfused: the kernels add the residual, clamp and apply PReLU in the
/// separate kernels' order.
enum EpilogueFusion {
    /// The chains of `graph`'s `needed` nodes, by the convolution's node index.
    static func chains(_ graph: Graph, needed: [Bool], outputs: [ValueID]) -> [Int: EpilogueChain] {
        var readers = [[Int]](repeating: [], count: graph.values.count)
        for (index, node) in graph.nodes.enumerated() where needed[index] {
            for id in Set(node.inputs) { readers[id].append(index) }
        }
        let requested = Set(outputs)
        /// The one node reading `id`, when exactly one does, it reads it once, and `id` is not an output.
        func soleReader(_ id: ValueID) -> Int? {
            guard readers[id].count == 1, !requested.contains(id) else { return nil }
            let reader = readers[id][0]
            return graph.nodes[reader].inputs.filter { $0 == id }.count == 1 ? reader : nil
        }
        func fusablePReLU(after id: ValueID) -> Int? {
            guard let reader = soleReader(id), graph.nodes[reader].operation is PReLUOp,
                  graph.nodes[reader].inputs.count == 2, let slopes = graph.values[graph.nodes[reader].inputs[1]].constant,
                  slopes.count == graph.values[id].shape.last, graph.nodes[reader].inputs[0] == id else { return nil }
            return reader
        }
        var chains: [Int: EpilogueChain] = [:]
        var claimed = Set<Int>()  // an ADD read by two convolutions alone is run by the first
        for (index, node) in graph.nodes.enumerated() where needed[index] && Conv2DOp.runsOnPackedGEMM(node, graph) {
            guard let conv = node.operation as? Conv2DOp, node.outputs.count == 1 else { continue }
            let y = node.outputs[0]
            if conv.activation == .none, let add = soleReader(y), !claimed.contains(add), graph.nodes[add].operation is AddOp,
               graph.nodes[add].inputs.count == 2, graph.nodes[add].outputs.count == 1 {
                let residual = graph.nodes[add].inputs[0] == y ? graph.nodes[add].inputs[1] : graph.nodes[add].inputs[0]
                guard graph.values[residual].shape == graph.values[y].shape else { continue }
                let sum = graph.nodes[add].outputs[0]
                claimed.insert(add)
                if let prelu = fusablePReLU(after: sum) {
                    chains[index] = EpilogueChain(add: add, residual: residual, prelu: prelu,
                                                  output: graph.nodes[prelu].outputs[0], last: prelu)
                } else {
                    chains[index] = EpilogueChain(add: add, residual: residual, prelu: nil, output: sum, last: add)
                }
            } else if let prelu = fusablePReLU(after: y) {
                chains[index] = EpilogueChain(add: nil, residual: nil, prelu: prelu, output: graph.nodes[prelu].outputs[0], last: prelu)
            }
        }
        return chains
    }
}

/// A convolution and the nodes its epilogue runs: `PRELU(ADD(conv, residual))`, `ADD(conv,
/// residual)` or `PRELU(conv)`. The fused step runs where the chain's last node stood, when the
/// residual is made (whatever the node order), and writes the chain's last value.
struct EpilogueChain {
    var add: Int?
    var residual: ValueID?
    var prelu: Int?
    /// The value the fused step writes.
    var output: ValueID
    /// Where the fused step runs: the chain's last node.
    var last: Int

    var nodes: [Int] { [add, prelu].compactMap { $0 } }
}
