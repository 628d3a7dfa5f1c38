import Tensor

/// A graph planned once for running: the nodes the requested outputs need (pruned backward),
/// each bound to a kernel (``GraphStep``), and every intermediate value placed in a buffer of a
/// pool reused by liveness (a buffer is free again after its value's last reader).
///
/// Shapes are static, so all of this is decided here and a run only executes the steps.
struct GraphPlan {
    /// The steps, producers before consumers.
    var steps: [GraphStep]
    /// Per value ID (the graph's values, then values the plan added: padded inputs of
    /// convolutions): its shape.
    var shapes: [[Int]]
    var names: [String]
    /// Per value ID: where it lives. Values the plan does not touch are `.none`.
    var placement: [Placement]
    /// Float capacity of each pool buffer.
    var bufferCapacities: [Int]
    /// `PAD` nodes that run as their depthwise consumer's padding instead (node index → the
    /// depthwise node's index).
    var foldedPads: [Int: Int] = [:]
    /// Convolutions that run the `ADD` and / or `PRELU` after them in their epilogue, by the
    /// convolution's node index.
    var epilogueChains: [Int: EpilogueChain] = [:]

    /// A convolution and the nodes its epilogue runs: `PRELU(ADD(conv, residual))`, `ADD(conv,
    /// residual)` or `PRELU(conv)`. The fused step runs where the chain's last node stood, when
    /// the residual is made (whatever the node order), and writes the chain's last value.
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
    /// The arithmetic of the 1×1 convolutions (resolved: Tensor's `Precision`).
    var precision: Precision = .fp32

    enum Placement {
        case none
        /// A constant of the graph.
        case constant(Tensor)
        /// Pool buffer `index`, from element 0.
        case buffer(Int)
    }

    /// Plans `graph` to compute `outputs` (value IDs); with `fusingEpilogues`, residual `ADD`s
    /// and `PRELU`s run in the epilogue of the convolution before them where the graph allows
    /// (``epilogueChains(_:needed:outputs:producer:)``); 1×1 convolutions in `precision` (resolved).
    init(graph: Graph, outputs: [ValueID], fusingEpilogues: Bool = true, precision: Precision = .fp32) throws {
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
        steps = []
        bufferCapacities = []
        foldedPads = Self.padsFoldedIntoDepthwise(graph, needed: needed, outputs: outputs, producer: producer)
        if fusingEpilogues { epilogueChains = Self.epilogueChains(graph, needed: needed, outputs: outputs) }
        // Chain node → its convolution; every node of a chain but the last is bound with it.
        var chainAt: [Int: Int] = [:]
        for (conv, chain) in epilogueChains { chainAt[conv] = conv; for node in chain.nodes { chainAt[node] = conv } }
        for (index, node) in graph.nodes.enumerated() where needed[index] {
            if let conv = chainAt[index] {
                let chain = epilogueChains[conv]!
                if index == chain.last { try bind(graph.nodes[conv], index: conv, graph: graph, chain: chain) }
                continue
            }
            try bind(node, index: index, graph: graph)
        }
        try placeBuffers(inputs: graph.inputs.filter { seen[$0] }, outputs: outputs)
    }

    // MARK: Binding nodes to kernels

    /// The constant `id` holds, or an error naming the node.
    private func constant(_ id: ValueID, _ role: String, of node: Int, _ operation: GraphOperation) throws -> Tensor {
        guard case .constant(let tensor) = placement[id] else {
            throw GraphRunnerError.unsupported("node \(node) (\(operation.name)): its \(role) '\(names[id])' is computed at run time; only constant \(role)s are supported")
        }
        return tensor
    }

    private mutating func addValue(name: String, shape: [Int]) -> ValueID {
        shapes.append(shape)
        names.append(name)
        placement.append(.none)
        return shapes.count - 1
    }

    /// Binds `node` to a step; a convolution with an epilogue `chain` writes the chain's output
    /// and runs its `ADD` / `PRELU` too.
    private mutating func bind(_ node: GraphNode, index: Int, graph: Graph, chain: EpilogueChain? = nil) throws {
        let op = node.operation
        let out = chain?.output ?? node.outputs[0]
        func fail(_ message: String) -> GraphRunnerError {
            .unsupported("node \(index) (\(op.name), '\(names[out])'): \(message)")
        }
        func requireInputs(_ count: Int) throws {
            guard node.inputs.count == count else {
                throw GraphRunnerError.invalidGraph("node \(index) (\(op.name)) has \(node.inputs.count) inputs, expected \(count)")
            }
        }
        func step(_ kernel: GraphStep.Kernel, _ inputs: [ValueID], output: ValueID = out) {
            steps.append(GraphStep(kernel: kernel, inputs: inputs + [chain?.residual].compactMap { $0 }, output: output,
                                   node: index, fusedNodes: chain?.nodes ?? []))
        }
        do {
            switch op {
            case .conv2D(let window, let activation):
                try requireInputs(3)
                let x = node.inputs[0]
                let weights = try constant(node.inputs[1], "weights", of: index, op)
                let bias = try constant(node.inputs[2], "bias", of: index, op)
                guard weights.rank == 4, shapes[x].count == 3, weights.shape[2] == shapes[x][2] else {
                    throw GraphRunnerError.invalidGraph("node \(index) (CONV_2D): weights \(weights.shape) (HWIO) for input \(shapes[x])")
                }
                let (kh, kw, cin, cout) = (weights.shape[0], weights.shape[1], weights.shape[2], weights.shape[3])
                guard window.strideHeight == window.strideWidth, window.dilationHeight == 1, window.dilationWidth == 1 else {
                    throw fail("strides \(window.strideHeight)x\(window.strideWidth), dilation \(window.dilationHeight)x\(window.dilationWidth) (equal strides and no dilation are supported)")
                }
                let pointwise = kh == 1 && kw == 1 && window.strideHeight == 1 && window.padding == .zero
                if !pointwise && cout <= Self.fewChannelsLimit && window.padding.top < kh && window.padding.left < kw {
                    step(.fewChannels(weightsOHWI: try Self.ohwi(weights), bias: bias, stride: window.strideHeight,
                                      padTop: window.padding.top, padLeft: window.padding.left, activation), [x])
                    return
                }
                let packed = try PackedPointwiseWeights(weights: weights.reshaped([kh * kw * cin, cout]), bias: bias)
                var epilogue = StepEpilogue(activation)
                if let chain {
                    if let add = chain.add, case .add(let addActivation) = graph.nodes[add].operation {
                        epilogue.activation = addActivation
                        epilogue.addsResidual = true
                    }
                    if let prelu = chain.prelu {
                        epilogue.prelu = try PReLUSlopes(try constant(graph.nodes[prelu].inputs[1], "slope", of: prelu,
                                                                      graph.nodes[prelu].operation))
                    }
                }
                if pointwise {
                    // Reduced precision only here, the 1×1 convolutions (Tensor's `Precision`), and
                    // not under a fused residual or PReLU: the reduced kernels apply those after
                    // storing, which a residual in the output's own buffer would not survive.
                    let layerPrecision = chain == nil ? precision.forLayer(inputChannels: cin) : .fp32
                    step(.pointwise(try packed.converted(to: layerPrecision), epilogue), [x])
                    return
                }
                let (input, padding) = try convolutionInput(x, window: window, output: out, node: index)
                step(.convolution(packed, kernelHeight: kh, kernelWidth: kw, stride: window.strideHeight,
                                  padding: padding, epilogue), [input])
            case .depthwiseConv2D(var window, let activation):
                try requireInputs(3)
                var x = node.inputs[0]
                if let pad = foldedPads.first(where: { $0.value == index })?.key, case .pad(let amounts) = graph.nodes[pad].operation {
                    // Read the pad's input and pad by its amounts as well (no copy).
                    x = graph.nodes[pad].inputs[0]
                    window.padding.top += amounts[0].before; window.padding.bottom += amounts[0].after
                    window.padding.left += amounts[1].before; window.padding.right += amounts[1].after
                }
                var weights = try constant(node.inputs[1], "weights", of: index, op)
                let bias = try constant(node.inputs[2], "bias", of: index, op)
                if weights.rank == 4 && weights.shape[0] == 1 { weights = try weights.reshaped(Array(weights.shape.dropFirst())) }
                guard weights.rank == 3, shapes[x].count == 3, weights.shape[2] == shapes[x][2] else {
                    throw GraphRunnerError.invalidGraph("node \(index) (DEPTHWISE_CONV_2D): weights \(weights.shape) for input \(shapes[x]) (expected [kH, kW, C], depth multiplier 1)")
                }
                guard window.strideHeight == window.strideWidth, window.dilationHeight == 1, window.dilationWidth == 1,
                      weights.shape[0] == weights.shape[1] else {
                    throw fail("\(weights.shape[0])x\(weights.shape[1]) kernel, strides \(window.strideHeight)x\(window.strideWidth), dilation \(window.dilationHeight)x\(window.dilationWidth) (square kernels, equal strides and no dilation are supported)")
                }
                let k = weights.shape[0], stride = window.strideHeight
                if k == 3, (stride == 1 || stride == 2),
                   let padding = Self.convention(of: window, input: shapes[x], output: shapes[out]) {
                    step(.depthwise3x3(weights: weights, bias: bias, stride: stride, padding: padding, activation), [x])
                } else {
                    guard window.padding.top < k, window.padding.left < k else {
                        throw fail("padding \(window.padding) is wider than the \(k)x\(k) window")
                    }
                    step(.depthwise(weights: weights, bias: bias, stride: stride, padTop: window.padding.top,
                                    padLeft: window.padding.left, activation), [x])
                }
            case .fullyConnected(let activation):
                try requireInputs(3)
                let weights = try constant(node.inputs[1], "weights", of: index, op)
                let bias = try constant(node.inputs[2], "bias", of: index, op)
                guard weights.rank == 2, weights.shape[0] == shapes[node.inputs[0]].reduce(1, *),
                      weights.shape[1] == shapes[out].reduce(1, *) else {
                    throw GraphRunnerError.invalidGraph("node \(index) (FULLY_CONNECTED): weights \(weights.shape) ([in, out]) for input \(shapes[node.inputs[0]]) and output \(shapes[out])")
                }
                step(.fullyConnected(try PackedPointwiseWeights(weights: weights, bias: bias), activation), [node.inputs[0]])
            case .add(let activation):
                try requireInputs(2)
                step(.add(activation), node.inputs)
            case .prelu:
                try requireInputs(2)
                step(.prelu(slope: try constant(node.inputs[1], "slope", of: index, op)), [node.inputs[0]])
            case .logistic:
                try requireInputs(1)
                step(.logistic, node.inputs)
            case .pad(let amounts):
                try requireInputs(1)
                if foldedPads[index] != nil { return }
                let inShape = shapes[node.inputs[0]]
                guard amounts.count == inShape.count,
                      zip(zip(amounts, inShape), shapes[out]).allSatisfy({ $0.0.before >= 0 && $0.0.after >= 0 && $0.0.before + $0.1 + $0.0.after == $1 }) else {
                    throw GraphRunnerError.invalidGraph("node \(index) (PAD): amounts \(amounts.map { [$0.before, $0.after] }) take \(inShape) to \(shapes[out])")
                }
                step(.pad(before: amounts.map(\.before)), node.inputs)
            case .maxPool2D(let window):
                try requireInputs(1)
                guard window.padding.top < window.kernelHeight, window.padding.left < window.kernelWidth else {
                    throw fail("padding \(window.padding) is wider than the window")
                }
                step(.maxPool(window), node.inputs)
            case .spatialMean:
                try requireInputs(1)
                step(.spatialMean, node.inputs)
            case .resizeBilinear(let alignCorners, let halfPixelCenters):
                try requireInputs(1)
                guard !alignCorners && halfPixelCenters else {
                    throw fail("align_corners \(alignCorners), half_pixel_centers \(halfPixelCenters) (only half-pixel centers are supported)")
                }
                step(.resizeBilinear, node.inputs)
            case .depthToSpace(let blockSize):
                try requireInputs(1)
                step(.depthToSpace(blockSize: blockSize), node.inputs)
            case .reshape:
                try requireInputs(1)
                guard shapes[node.inputs[0]].reduce(1, *) == shapes[out].reduce(1, *) else {
                    throw GraphRunnerError.invalidGraph("node \(index) (RESHAPE): \(shapes[node.inputs[0]]) to \(shapes[out])")
                }
                step(.reshape, node.inputs)
            case .concatenation(let axis):
                guard !node.inputs.isEmpty else { throw GraphRunnerError.invalidGraph("node \(index) (CONCATENATION) has no inputs") }
                step(.concatenation(axis: axis), node.inputs)
            }
        } catch let error as TensorError {
            throw GraphRunnerError.invalidGraph("node \(index) (\(op.name), '\(names[out])'): \(error.description)")
        }
    }

    /// Whether `node` is a `CONV_2D` that runs on the packed GEMM (`pointwise` or `convolution`
    /// steps, whose kernels take an epilogue): not one of ``fewChannelsLimit`` channels.
    static func runsOnPackedGEMM(_ node: GraphNode, _ graph: Graph) -> Bool {
        guard case .conv2D(let window, _) = node.operation, node.inputs.count == 3,
              let weights = graph.values[node.inputs[1]].constant, weights.rank == 4 else { return false }
        let (kh, kw, cout) = (weights.shape[0], weights.shape[1], weights.shape[3])
        let pointwise = kh == 1 && kw == 1 && window.strideHeight == 1 && window.padding == .zero
        return pointwise || !(cout <= fewChannelsLimit && window.padding.top < kh && window.padding.left < kw)
    }

    /// The convolutions whose epilogue can run the nodes after them: a packed-GEMM `CONV_2D`
    /// whose output only an `ADD` reads (the convolution without an activation of its own, the
    /// other operand a different value: the residual) or only a `PRELU` with constant slopes, one
    /// per channel; after the `ADD`, a `PRELU` that alone reads the sum. A value fused away must
    /// not be a requested output. The values are the same as unfused: the kernels add the
    /// residual, clamp and apply PReLU in the separate kernels' order.
    static func epilogueChains(_ graph: Graph, needed: [Bool], outputs: [ValueID]) -> [Int: EpilogueChain] {
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
            guard let reader = soleReader(id), case .prelu = graph.nodes[reader].operation,
                  graph.nodes[reader].inputs.count == 2, let slopes = graph.values[graph.nodes[reader].inputs[1]].constant,
                  slopes.count == graph.values[id].shape.last, graph.nodes[reader].inputs[0] == id else { return nil }
            return reader
        }
        var chains: [Int: EpilogueChain] = [:]
        var claimed = Set<Int>()  // an ADD read by two convolutions alone is run by the first
        for (index, node) in graph.nodes.enumerated() where needed[index] && runsOnPackedGEMM(node, graph) {
            guard case .conv2D(_, let activation) = node.operation, node.outputs.count == 1 else { continue }
            let y = node.outputs[0]
            if activation == .none, let add = soleReader(y), !claimed.contains(add), case .add = graph.nodes[add].operation,
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

    /// Output channels up to which a k×k convolution runs as dot products
    /// (`Convolution.fewChannels`) rather than on the packed GEMM, whose 16-lane panels one channel
    /// would fill to a sixteenth (pose_landmark_full's segmentation head: 3×3, 8 → 1 at 256×256).
    static let fewChannelsLimit = 4

    /// HWIO weights `[kH, kW, Cin, Cout]` transposed to OHWI `[Cout, kH, kW, Cin]`.
    static func ohwi(_ weights: Tensor) throws -> Tensor {
        let (kh, kw, cin, cout) = (weights.shape[0], weights.shape[1], weights.shape[2], weights.shape[3])
        let hwio = weights.scalars
        var values = [Float](repeating: 0, count: hwio.count)
        for tap in 0..<(kh * kw) {
            for ci in 0..<cin {
                for co in 0..<cout { values[(co * kh * kw + tap) * cin + ci] = hwio[(tap * cin + ci) * cout + co] }
            }
        }
        return try Tensor(shape: [cout, kh, kw, cin], values: values)
    }

    /// The input a k×k convolution reads and its padding convention: `x` itself when the
    /// window's padding is TF SAME's or zero, else `x` zero-padded by a pad step added here.
    private mutating func convolutionInput(_ x: ValueID, window: Window2D, output: ValueID, node: Int) throws -> (ValueID, Padding) {
        if let padding = Self.convention(of: window, input: shapes[x], output: shapes[output]) { return (x, padding) }
        let p = window.padding
        let shape = [shapes[x][0] + p.top + p.bottom, shapes[x][1] + p.left + p.right, shapes[x][2]]
        let padded = addValue(name: names[x] + "/padded", shape: shape)
        steps.append(GraphStep(kernel: .pad(before: [p.top, p.left, 0]), inputs: [x], output: padded, node: node))
        return (padded, .valid)
    }

    /// `.same` or `.valid` when the window's explicit padding is exactly that convention's for
    /// these shapes (TF SAME: the odd pixel bottom/right), else nil.
    static func convention(of window: Window2D, input: [Int], output: [Int]) -> Padding? {
        guard input.count == 3, output.count == 3, window.strideHeight == window.strideWidth,
              window.dilationHeight == window.dilationWidth else { return nil }
        for padding in [Padding.valid, .same] {
            guard let g = try? ConvolutionGeometry(
                inputHeight: input[0], inputWidth: input[1], kernelHeight: window.kernelHeight, kernelWidth: window.kernelWidth,
                stride: window.strideHeight, dilation: window.dilationHeight, padding: padding) else { continue }
            let bottom = (g.outputHeight - 1) * g.stride + (g.kernelHeight - 1) * g.dilation + 1 - input[0] - g.padTop
            let right = (g.outputWidth - 1) * g.stride + (g.kernelWidth - 1) * g.dilation + 1 - input[1] - g.padLeft
            if g.outputHeight == output[0], g.outputWidth == output[1], g.padTop == window.padding.top,
               g.padLeft == window.padding.left, max(0, bottom) == window.padding.bottom, max(0, right) == window.padding.right {
                return padding
            }
        }
        return nil
    }

    /// The `PAD` nodes that a depthwise convolution can take as padding: spatial zero padding
    /// only, read by that one node alone (and not an output), amounts that keep the combined
    /// padding narrower than the window (the pose models' `[1, 1]` before 3×3 and `[2, 2]`
    /// before 5×5 stride-2 layers). Returns pad node → depthwise node.
    static func padsFoldedIntoDepthwise(_ graph: Graph, needed: [Bool], outputs: [ValueID], producer: [Int?]) -> [Int: Int] {
        var readers = [Int](repeating: 0, count: graph.values.count)
        for (index, node) in graph.nodes.enumerated() where needed[index] { for id in node.inputs { readers[id] += 1 } }
        for id in outputs { readers[id] += 1 }
        var folded: [Int: Int] = [:]
        for (index, node) in graph.nodes.enumerated() where needed[index] {
            guard case .depthwiseConv2D(let window, _) = node.operation, let x = node.inputs.first, readers[x] == 1,
                  let pad = producer[x], case .pad(let amounts) = graph.nodes[pad].operation, amounts.count == 3,
                  amounts[2] == PadAmount(before: 0, after: 0),
                  window.padding.top + amounts[0].before < window.kernelHeight,
                  window.padding.left + amounts[1].before < window.kernelWidth else { continue }
            folded[pad] = index
        }
        return folded
    }

    // MARK: Buffers by liveness

    /// Gives every value a step writes (and every graph input) a pool buffer: a buffer is taken
    /// when its value is made and given back after the value's last reader, and a new value takes
    /// the smallest free buffer that holds it (else the largest free one, grown). A reshape's
    /// output is its input's buffer; the requested outputs keep theirs to the end.
    private mutating func placeBuffers(inputs: [ValueID], outputs: [ValueID]) throws {
        var root = Array(0..<shapes.count)  // the value whose buffer a value lives in
        var readers = [Int](repeating: 0, count: shapes.count)
        for step in steps {
            if case .reshape = step.kernel { root[step.output] = root[step.inputs[0]] }
            for id in step.inputs { readers[root[id]] += 1 }
        }
        var kept = [Bool](repeating: false, count: shapes.count)
        for id in outputs { kept[root[id]] = true }
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
        for step in steps {
            if case .reshape = step.kernel {} else if case .none = placement[step.output] { take(step.output) }
            for id in step.inputs {
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
