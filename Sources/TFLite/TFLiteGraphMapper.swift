import FlatBuffers
import ModelGraph
import Tensor

/// The TFLite family mapper: a ``TFLiteModel`` becomes a `Graph` that PoseKit's runner executes.
///
/// - fp16 `DEQUANTIZE` and sparse `DENSIFY` of constants are folded into float32 constants;
/// - weights are laid out as each operation documents (`Conv2DOp`, ...): conv OHWI → HWIO, depthwise
///   `[1, kH, kW, C]` → `[kH, kW, C]`, fully connected `[out, in]` → `[in, out]`, PReLU slopes `[C]`;
/// - TF `SAME`/`VALID` become explicit `SpatialPadding` from the static shapes;
/// - the batch axis (always 1) is dropped from every activation;
/// - nodes are put in dependency order (a cycle is refused), and the result passes `Graph.validate()`.
///
/// Any op outside the 15 MediaPipe uses is refused by name and position
/// (`unsupported TFLite op SOFTMAX (builtin 25) at operator 17`).
public enum TFLiteGraphMapper {
    /// The builtin ops that map to a `Graph` node, plus the two folded at import.
    public static let supportedOperators: Set<Int> = [
        TFLiteBuiltinOperator.add, TFLiteBuiltinOperator.concatenation, TFLiteBuiltinOperator.conv2D,
        TFLiteBuiltinOperator.depthwiseConv2D, TFLiteBuiltinOperator.depthToSpace, TFLiteBuiltinOperator.dequantize,
        TFLiteBuiltinOperator.fullyConnected, TFLiteBuiltinOperator.logistic, TFLiteBuiltinOperator.maxPool2D,
        TFLiteBuiltinOperator.reshape, TFLiteBuiltinOperator.resizeBilinear, TFLiteBuiltinOperator.pad,
        TFLiteBuiltinOperator.mean, TFLiteBuiltinOperator.prelu, TFLiteBuiltinOperator.densify,
    ]

    /// Maps `model` (read from `file`, named in errors) to a validated `Graph`.
    ///
    /// Folded constants may hold at most 16 elements per byte of the file plus 2²⁰, so a small
    /// hostile file cannot claim gigabytes of dense weights.
    public static func graph(from model: TFLiteModel, file: String) throws -> Graph {
        var mapper = Mapping(model: model, file: file,
                             constantBudget: 16 * model.buffer.count + (1 << 20))
        do {
            let graph = try mapper.run()
            try graph.validate()
            return graph
        } catch let error as GraphError {
            throw TFLiteError(file: file, "inconsistent graph: \(error.detail)")
        } catch let error as FlatBufferError {
            // Options and sparsity tables are read here, after the model: the same reader's errors.
            throw TFLiteError(file: file, "not a valid TFLite file: \(error.description)")
        }
    }
}

/// A constant folded to float32, in the source's (TFLite) shape.
struct FoldedConstant {
    var shape: [Int]
    var values: [Float]
}

private struct Mapping {
    let model: TFLiteModel
    let file: String
    var constantBudget: Int
    var producer: [Int: Int] = [:]
    var folded: [Int: FoldedConstant] = [:]
    var folding: Set<Int> = []
    var values: [GraphValue] = []
    var valueOfTensor: [Int: ValueID] = [:]
    /// Constant values made so far, by tensor and layout: a tensor read by several ops is stored once.
    var constantValues: [String: ValueID] = [:]

    init(model: TFLiteModel, file: String, constantBudget: Int) {
        self.model = model
        self.file = file
        self.constantBudget = constantBudget
    }

    func error(_ detail: String) -> TFLiteError { TFLiteError(file: file, detail) }
    func tensorName(_ t: Int) -> String { "tensor \(t) '\(model.tensors[t].name)'" }

    mutating func run() throws -> Graph {
        for (index, op) in model.operators.enumerated() {
            guard TFLiteGraphMapper.supportedOperators.contains(op.builtinCode) else {
                throw error("unsupported TFLite op \(TFLiteBuiltinOperator.name(op.builtinCode)) (builtin \(op.builtinCode)) at operator \(index)")
            }
            guard op.outputs.count == 1 else { throw error("operator \(index) (\(opName(index))) has \(op.outputs.count) outputs, expected 1") }
            let out = op.outputs[0]
            if let other = producer.updateValue(index, forKey: out) {
                throw error("\(tensorName(out)) is written by operators \(other) and \(index)")
            }
            guard model.data(ofTensor: out) == nil, !model.inputs.contains(out) else {
                throw error("operator \(index) (\(opName(index))) writes \(tensorName(out)), a constant or graph input")
            }
        }
        var inputs: [ValueID] = []
        for t in model.inputs {
            guard producer[t] == nil, model.data(ofTensor: t) == nil else { throw error("graph input \(tensorName(t)) is computed or constant") }
            inputs.append(try activation(t))
        }
        // Fold every DEQUANTIZE / DENSIFY now: each must read a constant.
        for (index, op) in model.operators.enumerated() where isFolded(op) {
            _ = try constant(op.outputs[0], requiredBy: index)
        }
        // Runtime nodes, in file order for now, with the operator each came from.
        var mapped: [(node: GraphNode, op: Int)] = []
        for (index, op) in model.operators.enumerated() where !isFolded(op) {
            mapped.append((try node(for: op, at: index), index))
        }
        let ordered = try topologicalOrder(mapped)
        var outputs: [ValueID] = []
        for t in model.outputs {
            guard let v = valueOfTensor[t], values[v].constant == nil else { throw error("graph output \(tensorName(t)) is not computed by any operator") }
            outputs.append(v)
        }
        return Graph(values: values, nodes: ordered, inputs: inputs, outputs: outputs)
    }

    func isFolded(_ op: TFLiteModel.OperatorInfo) -> Bool {
        op.builtinCode == TFLiteBuiltinOperator.dequantize || op.builtinCode == TFLiteBuiltinOperator.densify
    }

    func opName(_ index: Int) -> String { TFLiteBuiltinOperator.name(model.operators[index].builtinCode) }

    /// A depth-first order of the runtime nodes: each node after the producers of its inputs, and
    /// otherwise in file order (a file already in order stays so). Iterative, so a long chain in a
    /// hostile file cannot overflow the stack; linear in nodes and edges.
    func topologicalOrder(_ mapped: [(node: GraphNode, op: Int)]) throws -> [GraphNode] {
        var producerNode: [ValueID: Int] = [:]
        for (i, m) in mapped.enumerated() { producerNode[m.node.outputs[0]] = i }
        enum State { case new, visiting, done }
        var state = [State](repeating: .new, count: mapped.count)
        var order: [GraphNode] = []
        order.reserveCapacity(mapped.count)
        for root in mapped.indices where state[root] == .new {
            var stack: [(node: Int, nextInput: Int)] = [(root, 0)]
            state[root] = .visiting
            while let (i, next) = stack.last {
                let inputs = mapped[i].node.inputs
                if next < inputs.count {
                    stack[stack.count - 1].nextInput += 1
                    guard let p = producerNode[inputs[next]] else { continue }
                    switch state[p] {
                    case .done: continue
                    case .visiting:
                        throw error("the operators form a cycle (operator \(mapped[p].op) (\(opName(mapped[p].op))) depends on its own output)")
                    case .new:
                        state[p] = .visiting
                        stack.append((p, 0))
                    }
                } else {
                    stack.removeLast()
                    state[i] = .done
                    order.append(mapped[i].node)
                }
            }
        }
        return order
    }

    // MARK: - Values

    /// Drops the leading batch axis of 1 of an activation's shape (`[1]` stays `[1]`).
    func withoutBatch(_ t: Int) throws -> [Int] {
        let shape = model.tensors[t].shape
        guard let batch = shape.first, batch == 1 else {
            throw error("\(tensorName(t)) has shape \(shape): only a leading batch axis of 1 is supported")
        }
        return shape.count == 1 ? [1] : Array(shape.dropFirst())
    }

    /// The value of an activation tensor (float32, batch 1): a graph input or an operator's output.
    mutating func activation(_ t: Int) throws -> ValueID {
        if let v = valueOfTensor[t] { return v }
        guard t >= 0 else { throw error("a required input is omitted (-1)") }
        guard model.tensors[t].type == .float32 else {
            throw error("\(tensorName(t)) has TFLite type \(model.tensors[t].typeCode); only float32 activations are supported")
        }
        if model.data(ofTensor: t) != nil || folded[t] != nil {
            throw error("\(tensorName(t)) is a constant where an operator expects an activation")
        }
        let v = values.count
        values.append(GraphValue(name: model.tensors[t].name, shape: try withoutBatch(t)))
        valueOfTensor[t] = v
        return v
    }

    /// A constant value of tensor `t` laid out as `shape` (the consuming op's layout); `data`
    /// makes its values, only the first time this tensor is asked for in this role and shape.
    mutating func constantValue(_ t: Int, as role: String, shape: [Int], values data: @autoclosure () -> [Float]) throws -> ValueID {
        let key = "\(t) \(role) \(shape)"
        if let v = constantValues[key] { return v }
        let v = values.count
        values.append(GraphValue(name: model.tensors[t].name, shape: shape, constant: try Tensor(shape: shape, values: data())))
        constantValues[key] = v
        return v
    }

    // MARK: - Constants

    /// The float32 data of constant tensor `t`: stored fp32 or fp16 (possibly sparse), or the output
    /// of a `DEQUANTIZE` / `DENSIFY` of one.
    mutating func constant(_ t: Int, requiredBy index: Int) throws -> FoldedConstant {
        guard t >= 0 else { throw error("operator \(index) (\(opName(index))) omits a required constant input") }
        if let c = folded[t] { return c }
        let tensor = model.tensors[t]
        let count = tensor.elementCount
        guard count <= constantBudget else {
            throw error("\(tensorName(t)) claims \(tensor.shape) elements, more constant data than a \(model.buffer.count)-byte file can hold")
        }
        let result: FoldedConstant
        if let range = model.data(ofTensor: t) {
            let width: Int
            switch tensor.type {
            case .float32: width = 4
            case .float16: width = 2
            default: throw error("\(tensorName(t)) of TFLite type \(tensor.typeCode) is used as float weights")
            }
            guard range.count % width == 0 else { throw error("\(tensorName(t)) stores \(range.count) bytes, not a whole number of values") }
            let stored = range.count / width
            let dense = try decodeFloats(range, width: width, count: stored)
            if let sparsity = tensor.sparsity {
                // A sparse constant is only read through DENSIFY; its stored shape is the dense one.
                let offsets = try TFLiteSparsity.denseOffsets(shape: tensor.shape, storedCount: stored, sparsity: sparsity) {
                    self.error("\(self.tensorName(t)): \($0)")
                }
                var values = [Float](repeating: 0, count: count)
                for (o, x) in zip(offsets, dense) { values[o] = x }
                result = FoldedConstant(shape: tensor.shape, values: values)
            } else {
                guard stored == count else { throw error("\(tensorName(t)) stores \(stored) values for shape \(tensor.shape) (\(count) elements)") }
                result = FoldedConstant(shape: tensor.shape, values: dense)
            }
        } else if let p = producer[t], isFolded(model.operators[p]) {
            let op = model.operators[p]
            guard folding.insert(t).inserted else { throw error("the constant folds at operator \(p) form a cycle") }
            try TFLiteOptions.checkType(op, op.builtinCode == TFLiteBuiltinOperator.dequantize ? TFLiteOptions.dequantizeType : TFLiteOptions.densifyType) {
                self.error("operator \(p) (\(self.opName(p))) \($0)")
            }
            guard op.inputs.count == 1, op.inputs[0] >= 0 else { throw error("operator \(p) (\(opName(p))) has \(op.inputs.count) inputs, expected 1") }
            let source = op.inputs[0]
            guard model.data(ofTensor: source) != nil || producer[source].map({ isFolded(model.operators[$0]) }) == true else {
                throw error("operator \(p) (\(opName(p))) reads \(tensorName(source)), which is not a constant: only weights are dequantized or densified here")
            }
            if op.builtinCode == TFLiteBuiltinOperator.densify {
                guard model.tensors[source].sparsity != nil || producer[source] != nil else { throw error("operator \(p) (DENSIFY) reads \(tensorName(source)), which is not sparse") }
            } else {
                guard model.tensors[source].type == .float16 else { throw error("operator \(p) (DEQUANTIZE) reads \(tensorName(source)) of TFLite type \(model.tensors[source].typeCode); only fp16 weights are dequantized") }
            }
            let input = try constant(source, requiredBy: p)
            guard input.shape.reduce(1, *) == count, input.shape == tensor.shape else {
                throw error("operator \(p) (\(opName(p))) turns shape \(input.shape) into \(tensor.shape)")
            }
            result = input
            folding.remove(t)
        } else {
            throw error("operator \(index) (\(opName(index))) expects constant weights in \(tensorName(t))")
        }
        // Weights that are NaN or infinite give NaN everywhere (or nothing found at all): refused
        // here, naming the tensor, as PoseNet's and Create ML's importers refuse them.
        if let index = result.values.firstIndex(where: { !$0.isFinite }) {
            throw error("\(tensorName(t)) holds \(result.values[index]) at element \(index): weights must be finite")
        }
        constantBudget -= count
        folded[t] = result
        return result
    }

    func decodeFloats(_ range: Range<Int>, width: Int, count: Int) throws -> [Float] {
        model.buffer.bytes.withUnsafeBytes { raw in
            [Float](unsafeUninitializedCapacity: count) { out, initialized in
                if width == 2 {
                    if count > 0 { HalfPrecision.convert(raw.baseAddress! + range.lowerBound, count: count, into: out.baseAddress!) }
                } else {
                    for i in 0..<count {
                        out[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: range.lowerBound + 4 * i, as: UInt32.self)))
                    }
                }
                initialized = count
            }
        }
    }

    /// The int32 data of constant tensor `t` (shapes, paddings, axes).
    func int32s(_ t: Int, requiredBy index: Int) throws -> [Int] {
        guard t >= 0, let range = model.data(ofTensor: t), model.tensors[t].type == .int32 else {
            throw error("operator \(index) (\(opName(index))) expects a constant int32 tensor as its argument")
        }
        guard range.count == 4 * model.tensors[t].elementCount else {
            throw error("\(tensorName(t)) stores \(range.count) bytes for \(model.tensors[t].elementCount) int32 values")
        }
        return model.buffer.bytes.withUnsafeBytes { raw in
            (0..<(range.count / 4)).map { Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: range.lowerBound + 4 * $0, as: Int32.self))) }
        }
    }

    // MARK: - Operators

    mutating func node(for op: TFLiteModel.OperatorInfo, at index: Int) throws -> GraphNode {
        func fail(_ detail: String) -> Error { error("operator \(index) (\(opName(index))) \(detail)") }
        func arity(_ n: Int) throws { guard op.inputs.count == n else { throw fail("has \(op.inputs.count) inputs, expected \(n)") } }
        func input(_ i: Int) -> Int { op.inputs[i] }
        let output = op.outputs[0]
        let out = try activation(output)
        let operation: any GraphOperation
        var inputs: [ValueID]
        switch op.builtinCode {
        case TFLiteBuiltinOperator.conv2D, TFLiteBuiltinOperator.depthwiseConv2D:
            guard op.inputs.count == 3 || op.inputs.count == 2 else { throw fail("has \(op.inputs.count) inputs, expected 3") }
            let isDepthwise = op.builtinCode == TFLiteBuiltinOperator.depthwiseConv2D
            let options = isDepthwise ? try TFLiteOptions.depthwise(op, fail) : try TFLiteOptions.conv2D(op, fail)
            let x = try activation(input(0))
            let w = try constant(input(1), requiredBy: index)
            let xShape = values[x].shape
            guard xShape.count == 3, w.shape.count == 4 else { throw fail("has input \(xShape) and weights \(w.shape), expected [1, H, W, C] and 4-D weights") }
            let (kh, kw) = (w.shape[1], w.shape[2])
            let outChannels: Int
            let weights: ValueID
            if isDepthwise {
                guard w.shape[0] == 1, w.shape[3] == xShape[2], options.depthMultiplier == 1 || options.depthMultiplier == 0 else {
                    throw fail("has weights \(w.shape) for \(xShape[2]) channels with depth multiplier \(options.depthMultiplier); only multiplier 1 is supported")
                }
                outChannels = xShape[2]
                weights = try constantValue(input(1), as: "depthwise", shape: [kh, kw, outChannels], values: w.values)  // [1,kH,kW,C] is [kH,kW,C]
            } else {
                guard w.shape[3] == xShape[2] else { throw fail("has weights \(w.shape) for \(xShape[2]) input channels (grouped convolutions are not supported)") }
                outChannels = w.shape[0]
                weights = try constantValue(input(1), as: "conv", shape: [kh, kw, w.shape[3], outChannels], values: Layout.ohwiToHWIO(w.values, w.shape))
            }
            let bias = try biasValue(op, at: index, count: outChannels)
            let window = try window(options, kernel: (kh, kw), input: xShape, fail)
            operation = isDepthwise ? DepthwiseConv2DOp(window: window, activation: options.activation)
                                    : Conv2DOp(window: window, activation: options.activation)
            inputs = [x, weights, bias]
        case TFLiteBuiltinOperator.fullyConnected:
            guard op.inputs.count == 3 || op.inputs.count == 2 else { throw fail("has \(op.inputs.count) inputs, expected 3") }
            let options = try TFLiteOptions.fullyConnected(op, fail)
            let x = try activation(input(0))
            let w = try constant(input(1), requiredBy: index)
            guard w.shape.count == 2, w.shape[1] == values[x].count else { throw fail("has weights \(w.shape) for an input of \(values[x].count) elements") }
            let weights = try constantValue(input(1), as: "fc", shape: [w.shape[1], w.shape[0]], values: Layout.transpose(w.values, rows: w.shape[0], columns: w.shape[1]))
            inputs = [x, weights, try biasValue(op, at: index, count: w.shape[0])]
            operation = FullyConnectedOp(activation: options.activation)
            _ = options.keepNumDims   // the output value's shape (batch dropped) is [out] either way
        case TFLiteBuiltinOperator.add:
            try arity(2)
            operation = AddOp(activation: try TFLiteOptions.add(op, fail))
            inputs = [try activation(input(0)), try activation(input(1))]
        case TFLiteBuiltinOperator.prelu:
            try arity(2)
            try TFLiteOptions.checkType(op, nil, fail)
            let x = try activation(input(0))
            let slope = try constant(input(1), requiredBy: index)
            guard let channels = values[x].shape.last, slope.values.count == channels, slope.shape.last == channels else {
                throw fail("has slope \(slope.shape) for input \(values[x].shape); only a slope per channel is supported")
            }
            operation = PReLUOp()
            inputs = [x, try constantValue(input(1), as: "vector", shape: [channels], values: slope.values)]
        case TFLiteBuiltinOperator.logistic:
            try arity(1)
            operation = LogisticOp()
            inputs = [try activation(input(0))]
        case TFLiteBuiltinOperator.pad:
            try arity(2)
            try TFLiteOptions.checkType(op, TFLiteOptions.padType, fail)
            let x = try activation(input(0))
            let rank = model.tensors[input(0)].shape.count
            let paddings = try int32s(input(1), requiredBy: index)
            guard paddings.count == 2 * rank, rank >= 2, paddings[0] == 0, paddings[1] == 0 else {
                throw fail("has paddings \(paddings) for rank \(rank) (the batch axis must not be padded)")
            }
            operation = PadOp(amounts: (1..<rank).map { PadAmount(before: paddings[2 * $0], after: paddings[2 * $0 + 1]) })
            inputs = [x]
        case TFLiteBuiltinOperator.maxPool2D:
            try arity(1)
            let options = try TFLiteOptions.pool2D(op, fail)
            guard options.activation == .none else { throw fail("has a fused activation, which PoseKit does not run after pooling") }
            let x = try activation(input(0))
            guard values[x].shape.count == 3 else { throw fail("has input \(values[x].shape), expected [1, H, W, C]") }
            operation = MaxPool2DOp(window: try window(options, kernel: (options.filterHeight, options.filterWidth), input: values[x].shape, fail))
            inputs = [x]
        case TFLiteBuiltinOperator.mean:
            try arity(2)
            let keepDims = try TFLiteOptions.reducerKeepDims(op, fail)
            let rank = model.tensors[input(0)].shape.count
            let axes = Set(try int32s(input(1), requiredBy: index).map { $0 < 0 ? $0 + rank : $0 })
            guard rank == 4, axes == [1, 2], !keepDims else { throw fail("reduces axes \(axes.sorted()) of rank \(rank) (keep_dims \(keepDims)); only the spatial mean of [1, H, W, C] is supported") }
            operation = SpatialMeanOp()
            inputs = [try activation(input(0))]
        case TFLiteBuiltinOperator.resizeBilinear:
            try arity(2)
            let options = try TFLiteOptions.resizeBilinear(op, fail)
            let size = try int32s(input(1), requiredBy: index)
            let outShape = values[out].shape
            guard size.count == 2, outShape.count == 3, size == Array(outShape[0..<2]) else { throw fail("resizes to \(size), but its output is \(outShape)") }
            operation = ResizeBilinearOp(alignCorners: options.alignCorners, halfPixelCenters: options.halfPixelCenters)
            inputs = [try activation(input(0))]
        case TFLiteBuiltinOperator.depthToSpace:
            try arity(1)
            operation = DepthToSpaceOp(blockSize: try TFLiteOptions.depthToSpace(op, fail))
            inputs = [try activation(input(0))]
        case TFLiteBuiltinOperator.reshape:
            guard op.inputs.count == 1 || op.inputs.count == 2 else { throw fail("has \(op.inputs.count) inputs, expected 1 or 2") }
            try TFLiteOptions.checkType(op, TFLiteOptions.reshapeType, fail)
            operation = ReshapeOp()
            inputs = [try activation(input(0))]
        case TFLiteBuiltinOperator.concatenation:
            guard !op.inputs.isEmpty else { throw fail("has no inputs") }
            let options = try TFLiteOptions.concatenation(op, fail)
            guard options.activation == .none else { throw fail("has a fused activation") }
            let rank = model.tensors[output].shape.count
            let axis = options.axis < 0 ? options.axis + rank : options.axis
            guard axis >= 1, axis < rank else { throw fail("concatenates along axis \(options.axis) of rank \(rank) (not the batch axis)") }
            operation = ConcatenationOp(axis: axis - 1)
            inputs = try op.inputs.map { try activation($0) }
        default:
            throw fail("is not mapped")   // unreachable: supportedOperators was checked
        }
        return GraphNode(operation: operation, inputs: inputs, outputs: [out])
    }

    /// The bias of a conv / depthwise / FC (input 2): its values as `[count]`, zeros when omitted.
    mutating func biasValue(_ op: TFLiteModel.OperatorInfo, at index: Int, count: Int) throws -> ValueID {
        guard op.inputs.count == 3, op.inputs[2] >= 0 else {
            let v = values.count
            values.append(GraphValue(name: "\(model.tensors[op.outputs[0]].name)/zero_bias", shape: [count], constant: try Tensor(zeros: [count])))
            return v
        }
        let b = try constant(op.inputs[2], requiredBy: index)
        guard b.values.count == count else { throw error("operator \(index) (\(opName(index))) has bias \(b.shape) for \(count) channels") }
        return try constantValue(op.inputs[2], as: "vector", shape: [count], values: b.values)
    }

    /// A TFLite window with its `SAME`/`VALID` padding resolved on `input` `[H, W, C]`.
    func window(_ o: TFLiteOptions.Window, kernel: (Int, Int), input: [Int], _ fail: (String) -> Error) throws -> Window2D {
        let limit = 1 << 16
        for v in [kernel.0, kernel.1, o.strideHeight, o.strideWidth, o.dilationHeight, o.dilationWidth] where !(v >= 1 && v <= limit) {
            throw fail("has window \(kernel.0)×\(kernel.1), stride \(o.strideHeight)×\(o.strideWidth), dilation \(o.dilationHeight)×\(o.dilationWidth): out of range")
        }
        func same(_ n: Int, _ k: Int, _ s: Int, _ d: Int) -> (Int, Int) {
            let out = (n + s - 1) / s
            let total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
            return (total / 2, total - total / 2)
        }
        var padding = SpatialPadding.zero
        if o.padding == .same {
            (padding.top, padding.bottom) = same(input[0], kernel.0, o.strideHeight, o.dilationHeight)
            (padding.left, padding.right) = same(input[1], kernel.1, o.strideWidth, o.dilationWidth)
        }
        return Window2D(kernelHeight: kernel.0, kernelWidth: kernel.1, strideHeight: o.strideHeight, strideWidth: o.strideWidth,
                        dilationHeight: o.dilationHeight, dilationWidth: o.dilationWidth, padding: padding)
    }
}

/// Weight layout conversions (row-major throughout).
enum Layout {
    /// `[O, kH, kW, I]` → `[kH, kW, I, O]`.
    static func ohwiToHWIO(_ v: [Float], _ shape: [Int]) -> [Float] {
        let (o, spatialIn) = (shape[0], shape[1] * shape[2] * shape[3])
        return transpose(v, rows: o, columns: spatialIn)   // [O, (kH·kW·I)] → [(kH·kW·I), O]
    }

    /// `[rows, columns]` → `[columns, rows]`.
    static func transpose(_ v: [Float], rows: Int, columns: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: v.count) { out, n in
            v.withUnsafeBufferPointer { src in
                for r in 0..<rows { for c in 0..<columns { out[c * rows + r] = src[r * columns + c] } }
            }
            n = v.count
        }
    }
}
