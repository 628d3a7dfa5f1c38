import Tensor

/// What an operation's ``GraphOperation/bind(_:)`` works with while a runner is planned: the
/// node, its constants, the plan passes' decisions about it (a fused epilogue, a folded pad, the
/// precision of a 1×1 convolution) and the plan it adds its step(s) to.
///
/// Its members are the planner's own (internal): an operation binds to kernels from this module.
public struct GraphBinding {
    /// The plan being built (moved in by the planner for the node's binding).
    var plan = GraphPlan()
    let graph: Graph
    /// The node bound: a convolution leading an epilogue chain stands for the whole chain.
    let node: GraphNode
    /// Its index in the graph.
    let index: Int
    /// The `ADD` / `PRELU` nodes this convolution runs in its epilogue (``EpilogueFusion``), if any.
    let chain: EpilogueChain?
    /// The `PAD` node whose padding this depthwise convolution takes on (``PadFolding``), if any.
    var foldedPad: GraphNode?
    /// The depthwise node this 1×1 convolution runs with (``SeparableFusion``), and its index.
    var fusedDepthwise: GraphNode?
    var fusedDepthwiseIndex: Int?
    /// The 1×1 convolutions this concatenation runs as one GEMM (``SharedInputGEMM``), if any.
    var merge: SharedInputGEMM.Merge?

    init(graph: Graph, node: GraphNode, index: Int, chain: EpilogueChain?) {
        self.graph = graph
        self.node = node
        self.index = index
        self.chain = chain
    }

    /// The value the step writes: the chain's last value, or the node's output.
    var output: ValueID { chain?.output ?? node.outputs[0] }

    /// The shape of value `id` as planned.
    func shape(_ id: ValueID) -> [Int] { plan.shapes[id] }

    /// An unsupported configuration, naming the node: `unsupported: node 4 (conv2D, 'name'): <message>`.
    func unsupported(_ message: String) -> GraphRunnerError {
        .unsupported("node \(index) (\(node.operation.name), '\(plan.names[output])'): \(message)")
    }

    /// A malformed node, naming it.
    func invalid(_ message: String) -> GraphRunnerError {
        .invalidGraph("node \(index) (\(node.operation.name)): \(message)")
    }

    /// Throws unless the node reads `count` values.
    func requireInputs(_ count: Int) throws {
        guard node.inputs.count == count else { throw invalid("has \(node.inputs.count) inputs, expected \(count)") }
    }

    /// The constant read as input `i` (`role`: "weights", "bias", "slope"), or an error naming it.
    func constant(_ i: Int, _ role: String) throws -> Tensor {
        try constant(value: node.inputs[i], role, of: index, node.operation)
    }

    /// The constant `id`, read by node `of` as its `role`.
    func constant(value id: ValueID, _ role: String, of nodeIndex: Int, _ operation: any GraphOperation) throws -> Tensor {
        guard case .constant(let tensor) = plan.placement[id] else {
            throw GraphRunnerError.unsupported("node \(nodeIndex) (\(operation.name)): its \(role) '\(plan.names[id])' is computed at run time; only constant \(role)s are supported")
        }
        return tensor
    }

    /// Adds the step running `kernel` on `inputs`, writing ``output``; a chain's residual is read
    /// last and its nodes recorded as fused.
    mutating func addStep(_ kernel: any GraphKernel, _ inputs: [ValueID], fusing others: [Int] = []) {
        plan.steps.append(GraphStep(kernel: kernel, inputs: inputs + [chain?.residual].compactMap { $0 }, output: output,
                                    node: index, fusedNodes: others + (chain?.nodes ?? [])))
    }

    /// Adds a step of the plan's own before the node's (a pad a convolution needs), writing `output`.
    mutating func addPreparingStep(_ kernel: any GraphKernel, _ inputs: [ValueID], output: ValueID) {
        plan.steps.append(GraphStep(kernel: kernel, inputs: inputs, output: output, node: index))
    }

    /// The precision of this node as a 1×1 convolution reading `inputChannels`: the graph's
    /// ``Graph/reducedPrecision`` rule applied to the precision the runner asks.
    func pointwisePrecision(inputChannels: Int) -> Precision {
        graph.reducedPrecision.precision(plan.precision, layer: plan.names[output], inputChannels: inputChannels,
                                         fusedAfterStore: chain != nil)
    }

    /// `weights` (`rows × columns` elements) and `bias` packed for the GEMM in `precision`, from
    /// the graph's store (``GraphWeights``): packed by the first runner that asks, shared after.
    func packedGEMM(weights: Tensor, bias: Tensor, rows: Int, columns: Int, precision: Precision = .fp32) throws -> PackedPointwiseWeights {
        try graph.weights.packedGEMM(weights: weights, bias: bias, rows: rows, columns: columns, precision: precision)
    }

    /// The form `form` of `sources` made by `make`, from the graph's store (made once, shared after).
    func prepared<T>(_ form: String, of sources: [Tensor], make: () throws -> T) throws -> T {
        try graph.weights.form(form, of: sources, make: make)
    }

    /// A value the plan adds (a padded copy of an input), with its shape.
    mutating func addValue(name: String, shape: [Int]) -> ValueID { plan.addValue(name: name, shape: shape) }
}
