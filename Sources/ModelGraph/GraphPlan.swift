import Tensor

/// A graph planned once for running: the nodes the requested outputs need (pruned backward), the
/// plan passes' decisions (``EpilogueFusion``: residual `ADD`s and `PRELU`s run in the convolution
/// before them; ``PadFolding``: a `PAD` runs as its depthwise consumer's padding), each remaining
/// node bound to a kernel by its operation (``GraphOperation/bind(_:)``, a ``GraphStep``; weights packed
/// through the graph's ``GraphWeights``, once for every runner), and every
/// intermediate value placed in a buffer of a pool reused by liveness (a buffer is free again after
/// its value's last reader).
///
/// Shapes are static, so all of this is decided here and a run only executes the steps.
struct GraphPlan {
    /// The steps, producers before consumers.
    var steps: [GraphStep] = []
    /// Per value ID (the graph's values, then values the plan added: padded inputs of
    /// convolutions): its shape.
    var shapes: [[Int]]
    var names: [String]
    /// Per value ID: where it lives. Values the plan does not touch are `.none`.
    var placement: [Placement]
    /// Float capacity of each pool buffer.
    var bufferCapacities: [Int] = []
    /// `PAD` nodes that run as their depthwise consumer's padding instead (node index → the
    /// depthwise node's index).
    var foldedPads: [Int: Int] = [:]
    /// Convolutions that run the `ADD` and / or `PRELU` after them in their epilogue, by the
    /// convolution's node index.
    var epilogueChains: [Int: EpilogueChain] = [:]
    /// Depthwise convolutions run with the 1×1 convolution after them (pointwise node → depthwise node).
    var separablePairs: [Int: Int] = [:]
    /// Concatenations of 1×1 convolutions of one input run as one GEMM.
    var merges: [SharedInputGEMM.Merge] = []
    /// Steps `0..<bandChainLength` form the band chain: each reads the one before (the first, the
    /// graph's only input) and can leave out the rows (columns) a band of equal input rows gives;
    /// a run given an ``InputBand`` follows it along them (``RepeatedBand``). 0: no chain.
    var bandChainLength = 0
    /// Steps run as one chain (``SeparableChaining``), when no band asks them to leave rows out:
    /// the first step's index → the number of steps.
    var chains: [Int: Int] = [:]
    /// The arithmetic asked of the 1×1 convolutions (resolved: Tensor's `Precision`); which of
    /// them take it is the graph's `ReducedPrecisionRule`'s decision.
    var precision: Precision = .fp32

    enum Placement {
        case none
        /// A constant of the graph.
        case constant(Tensor)
        /// Pool buffer `index`, from element 0.
        case buffer(Int)
    }

    /// Plans `graph` to compute `outputs` (value IDs); with `fusingEpilogues`, residual `ADD`s
    /// and `PRELU`s run in the epilogue of the convolution before them where the graph allows; with
    /// `fusingLayers`, depthwise + 1×1 pairs run as one step and 1×1 convolutions of one input
    /// concatenated as one GEMM;
    /// 1×1 convolutions in `precision` (resolved) where the graph's `ReducedPrecisionRule` allows.
    init(graph: Graph, outputs: [ValueID], fusingEpilogues: Bool = true, fusingLayers: Bool = true, precision: Precision = .fp32) throws {
        self.precision = precision
        // The checks every graph passes (IDs in range, producers before consumers, shapes).
        try graph.validate()
        let valueCount = graph.values.count
        for id in outputs where !(0..<valueCount).contains(id) {
            throw GraphRunnerError.invalidGraph("output \(id) is not a value (the graph has \(valueCount))")
        }
        var producer = [Int?](repeating: nil, count: valueCount)
        for (index, node) in graph.nodes.enumerated() {
            guard node.outputs.count == 1 else {
                throw GraphRunnerError.invalidGraph("node \(index) (\(node.operation.name)) has \(node.outputs.count) outputs; every operation here has one")
            }
            producer[node.outputs[0]] = index
        }
        for id in outputs where producer[id] == nil && !graph.inputs.contains(id) && graph.values[id].constant == nil {
            throw GraphRunnerError.invalidGraph("output '\(graph.values[id].name)' is made by no node")
        }
        // Prune: the nodes the outputs need, walking back from them.
        var needed = [Bool](repeating: false, count: graph.nodes.count)
        var stack = outputs
        var seen = [Bool](repeating: false, count: valueCount)
        while let id = stack.popLast() {
            guard !seen[id] else { continue }
            seen[id] = true
            if let node = producer[id] {
                needed[node] = true
                stack.append(contentsOf: graph.nodes[node].inputs)
            }
        }

        shapes = graph.values.map { $0.shape.isEmpty ? [1] : $0.shape }
        names = graph.values.map(\.name)
        placement = graph.values.map { $0.constant.map(Placement.constant) ?? .none }
        // The passes: which nodes run inside others.
        foldedPads = PadFolding.foldedPads(graph, needed: needed, outputs: outputs, producer: producer)
        if fusingEpilogues { epilogueChains = EpilogueFusion.chains(graph, needed: needed, outputs: outputs) }
        if fusingLayers {
            separablePairs = SeparableFusion.pairs(graph, needed: needed, outputs: outputs, producer: producer,
                                                   chains: epilogueChains, foldedPads: foldedPads)
            merges = SharedInputGEMM.merges(graph, needed: needed, outputs: outputs, producer: producer, chains: epilogueChains)
        }
        // Chain node → its convolution; every node of a chain but the last is bound with it.
        var chainAt: [Int: Int] = [:]
        for (conv, chain) in epilogueChains { chainAt[conv] = conv; for node in chain.nodes { chainAt[node] = conv } }
        // Nodes another node's step runs: the depthwise halves of pairs, the members of merges.
        var runByOthers = Set(separablePairs.values)
        var mergeAt: [Int: SharedInputGEMM.Merge] = [:]
        for merge in merges {
            mergeAt[merge.concatenation] = merge
            runByOthers.formUnion(merge.nodes.filter { $0 != merge.concatenation })
        }
        for (index, node) in graph.nodes.enumerated() where needed[index] && foldedPads[index] == nil && !runByOthers.contains(index) {
            var binding: GraphBinding
            if let conv = chainAt[index] {
                let chain = epilogueChains[conv]!
                guard index == chain.last else { continue }
                binding = GraphBinding(graph: graph, node: graph.nodes[conv], index: conv, chain: chain)
            } else {
                binding = GraphBinding(graph: graph, node: node, index: index, chain: nil)
                if let pad = foldedPads.first(where: { $0.value == index })?.key { binding.foldedPad = graph.nodes[pad] }
                if let depthwise = separablePairs[index] {
                    binding.fusedDepthwise = graph.nodes[depthwise]
                    binding.fusedDepthwiseIndex = depthwise
                }
                binding.merge = mergeAt[index]
            }
            // The binding works on the plan itself (moved in and back, not copied).
            swap(&self, &binding.plan)
            defer { swap(&self, &binding.plan) }
            do {
                try binding.node.operation.bind(&binding)
            } catch let error as TensorError {
                throw GraphRunnerError.invalidGraph("node \(binding.index) (\(binding.node.operation.name), '\(binding.plan.names[binding.output])'): \(error.description)")
            }
        }
        if fusingLayers { chains = SeparableChaining.chains(steps, shapes: shapes, outputs: outputs) }
        try placeBuffers(inputs: graph.inputs.filter { seen[$0] }, outputs: outputs)
        bandChainLength = Self.bandChain(steps, input: graph.inputs.count == 1 ? graph.inputs[0] : nil, outputs: outputs)
    }

    /// How many steps from the first form the band chain (``bandChainLength``): each with a band
    /// geometry, reading one value, the first the graph's one `input`, each later one the output of
    /// the step before, which no other step reads and which is not a requested output (its
    /// unwritten rows are written only as the next step needs them).
    static func bandChain(_ steps: [GraphStep], input: ValueID?, outputs: [ValueID]) -> Int {
        guard let input else { return 0 }
        var readers: [ValueID: Int] = [:]
        for step in steps { for id in step.inputs { readers[id, default: 0] += 1 } }
        let requested = Set(outputs)
        var current = input, length = 0
        for step in steps {
            guard step.kernel.bandGeometry != nil, step.inputs == [current] else { break }
            if current != input { guard readers[current] == 1, !requested.contains(current) else { break } }
            length += 1
            current = step.output
        }
        return length
    }

    /// A plan with nothing in it: what ``GraphBinding`` holds until the plan being built is moved in.
    init() {
        shapes = []
        names = []
        placement = []
    }

    mutating func addValue(name: String, shape: [Int]) -> ValueID {
        shapes.append(shape)
        names.append(name)
        placement.append(.none)
        return shapes.count - 1
    }

    // MARK: Buffers by liveness

    /// Gives every value a step writes (and every graph input) a pool buffer: a buffer is taken
    /// when its value is made and given back after the value's last reader, and a new value takes
    /// the smallest free buffer that holds it (else the largest free one, grown). An aliasing
    /// kernel's output (a reshape) is its input's buffer; the requested outputs keep theirs to the end.
    private mutating func placeBuffers(inputs: [ValueID], outputs: [ValueID]) throws {
        var root = Array(0..<shapes.count)  // the value whose buffer a value lives in
        var readers = [Int](repeating: 0, count: shapes.count)
        for step in steps {
            if step.kernel.aliasesInput { root[step.output] = root[step.inputs[0]] }
            for id in step.inputs { readers[root[id]] += 1 }
        }
        var kept = [Bool](repeating: false, count: shapes.count)
        for id in outputs { kept[root[id]] = true }
        // Inputs keep theirs too: a caller writes them in place and may run again on them
        // (``GraphRunner/inputBuffers``; PoseNet's flip averaging mirrors its input and reruns).
        for id in inputs { kept[root[id]] = true }
        var free: [Int] = []  // buffer indices
        var bufferOf = [Int?](repeating: nil, count: shapes.count)
        func take(_ id: ValueID) {
            let need = shapes[id].reduce(1, *)
            let index: Int
            if let best = free.filter({ bufferCapacities[$0] >= need }).min(by: { bufferCapacities[$0] < bufferCapacities[$1] }) {
                index = best
            } else if let largest = free.max(by: { bufferCapacities[$0] < bufferCapacities[$1] }) {
                index = largest
                bufferCapacities[index] = need
            } else {
                bufferCapacities.append(need)
                index = bufferCapacities.count - 1
            }
            free.removeAll { $0 == index }
            bufferOf[id] = index
        }
        for id in inputs where bufferOf[id] == nil { take(id) }
        // A chain's steps read their inputs until its last step is done (``SeparableChaining``).
        var chainEnd = -1
        var heldInputs: [ValueID] = []
        for (index, step) in steps.enumerated() {
            if !step.kernel.aliasesInput, case .none = placement[step.output] { take(step.output) }
            if let count = chains[index] { chainEnd = index + count - 1 }
            heldInputs += step.inputs
            guard index >= chainEnd else { continue }
            let done = heldInputs
            heldInputs = []
            for id in done {
                let owner = root[id]
                readers[owner] -= 1
                if readers[owner] == 0, !kept[owner], let buffer = bufferOf[owner] { free.append(buffer) }
            }
        }
        for id in shapes.indices {
            if case .constant = placement[id] { continue }
            if let buffer = bufferOf[root[id]] {
                placement[id] = .buffer(buffer)
            } else if case .constant(let tensor) = placement[root[id]] {
                placement[id] = .constant(try tensor.reshaped(shapes[id]))
            }
        }
        // Every value a step reads or writes has a place (a step reading a value no step makes,
        // e.g. one fused away, would otherwise read an unplaced view).
        for (index, step) in steps.enumerated() {
            for id in step.inputs + [step.output] {
                if case .none = placement[id] {
                    throw GraphRunnerError.invalidGraph("plan: step \(index) (\(step.kind), node \(step.node)) uses '\(names[id])', which no step makes")
                }
            }
        }
    }
}
