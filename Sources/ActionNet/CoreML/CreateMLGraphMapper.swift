import ModelGraph
import Tensor

/// A Create ML action classifier's layers (read and checked by ``CoreMLLayerReader``) as one
/// `ModelGraph.Graph`: the Create ML family mapper, as `TFLiteGraphMapper` is TFLite's.
///
/// Layer by layer, each Core ML blob becomes a graph value (``CreateMLBlob``: row-major as Core ML
/// has it, or channels-last `[H, W, C]` where convolutions read it, converted by one transpose
/// where a layer needs the other layout) or, for a shape computation, a constant known here:
/// - convolution → `conv2D` (weights OIHW → HWIO, Core ML's `[H, W]` strides and explicit
///   padding as the window's), the batchnorm after it folded into its weights and bias, the ReLU
///   after that into its activation, a zero `padding` layer before it into its window;
/// - batchnorm standing alone → `scaleShift` along the channel axis; ReLU alone → `activation`;
/// - average pooling over the whole plane → `spatialMean`; max pooling → `maxPool2D`;
/// - transpose, splitND (one `slice` per part), concat / concatND, add / addBroadcastable,
///   softmax / softmaxND, padding → their graph operations with axes mapped to the layout;
/// - reshapeStatic / reshapeDynamic / squeeze / expandDims → `reshape` (no work), or nothing at
///   all where a channels-last blob only gains or loses leading axes of 1;
/// - getShape, loadConstantND, gather, and the layers above on constants → folded here (shapes
///   are static), so `reshapeDynamic`'s target is known.
///
/// Semantics are those of ``CoreMLOperation`` (the reference README's where the proto is
/// ambiguous). The graph's input is the model's input feature (`[T, 3, 18]`, no batch axis), its
/// output the classifier's probability blob without its leading axes of 1 (`[labels]`).
///
/// With `fusing` false nothing is folded or fused: every layer output is a value of its own
/// (``CreateMLGraphMapping/blobs``), which is how the tests compare each layer with the reference.
struct CreateMLGraphMapper {
    let file: String
    let fusing: Bool
    private var values: [GraphValue] = []
    private var nodes: [GraphNode] = []
    private var producer: [ValueID: Int] = [:]
    /// Values more than one blob stands for (a reshape that made no node): never fused into.
    private var shared: Set<ValueID> = []
    private(set) var blobs: [String: CreateMLBlob] = [:]
    /// How many layer inputs (and the model output) read each blob; the layers reading it.
    private var readerCount: [String: Int] = [:]
    private var readerLayers: [String: [CoreMLLayer]] = [:]
    /// Concat layers already mapped with the split before them (``splitJoined(_:split:axis:count:sizes:)``).
    private var joined: Set<String> = []

    init(file: String, fusing: Bool) {
        self.file = file
        self.fusing = fusing
    }

    /// The graph of `layers`, whose input blob `input` holds the model input of `inputShape` and
    /// whose blob `output` the result.
    ///
    /// - Throws: ``CoreMLModelError/layerFailed(layer:detail:)`` naming the first layer whose
    ///   inputs do not fit it, ``CoreMLModelError/unsupportedLayer(file:layer:detail:)`` for a
    ///   configuration no graph operation runs.
    static func map(_ layers: [CoreMLLayer], input: String, inputShape: [Int], output: String, file: String,
                    fusing: Bool = true) throws -> CreateMLGraphMapping {
        var mapper = CreateMLGraphMapper(file: file, fusing: fusing)
        for layer in layers {
            for name in layer.inputs {
                mapper.readerCount[name, default: 0] += 1
                mapper.readerLayers[name, default: []].append(layer)
            }
        }
        mapper.readerCount[output, default: 0] += 1
        let inputValue = mapper.newValue(name: input, shape: inputShape)
        mapper.blobs[input] = CreateMLBlob(shape: inputShape, storage: .value(inputValue, .rowMajor))
        for layer in layers where !mapper.joined.contains(layer.name) {
            let inputs = try layer.inputs.map { name -> CreateMLBlob in
                guard let blob = mapper.blobs[name] else {
                    throw CoreMLModelError.layerFailed(layer: layer.name, detail: "reads blob '\(name)', which no earlier layer writes")
                }
                return blob
            }
            if case .splitND(let axis, let count, let sizes) = layer.operation,
               let (join, blob) = try mapper.splitJoined(inputs[0], split: layer, axis: axis, count: count, sizes: sizes) {
                mapper.blobs[join.outputs[0]] = blob
                mapper.joined.insert(join.name)
                continue
            }
            let outputs = try mapper.map(layer, inputs)
            for (name, blob) in zip(layer.outputs, outputs) { mapper.blobs[name] = blob }
        }
        guard let result = mapper.blobs[output] else {
            throw CoreMLModelError.layerFailed(layer: output, detail: "no layer writes the output blob '\(output)'")
        }
        // The output without its leading axes of 1, as graphs hold outputs ([1, 4] → [4]).
        var kept = Array(result.shape.drop { $0 == 1 })
        if kept.isEmpty { kept = [1] }
        let outputValue = try mapper.reshaped(try mapper.rowMajor(result, name: output, layer: output), to: kept, name: output)
        if fusing { mapper.removeDeadNodes(outputs: [outputValue]) }
        let graph = Graph(values: mapper.values, nodes: mapper.nodes, inputs: [inputValue], outputs: [outputValue])
        do {
            try graph.validate()
        } catch let error as GraphError {
            throw CoreMLModelError.layerFailed(layer: output, detail: "the mapped graph is inconsistent: \(error)")
        }
        return CreateMLGraphMapping(graph: graph, blobs: mapper.blobs, layers: layers)
    }

    // MARK: Values and nodes

    private mutating func newValue(name: String, shape: [Int], constant: Tensor? = nil) -> ValueID {
        values.append(GraphValue(name: name, shape: shape, constant: constant))
        return values.count - 1
    }

    /// A node of `operation` on `inputs` writing a new value `name` of `shape`.
    mutating func node(_ operation: any GraphOperation, _ inputs: [ValueID], name: String, shape: [Int]) -> ValueID {
        let out = newValue(name: name, shape: shape)
        producer[out] = nodes.count
        nodes.append(GraphNode(operation: operation, inputs: inputs, outputs: [out]))
        return out
    }

    /// Drops the nodes no output needs (transposes folded into a later one), keeping the order.
    private mutating func removeDeadNodes(outputs: [ValueID]) {
        var needed = Set(outputs)
        var keep = [Bool](repeating: false, count: nodes.count)
        for index in nodes.indices.reversed() where needed.contains(nodes[index].outputs[0]) {
            keep[index] = true
            needed.formUnion(nodes[index].inputs)
        }
        nodes = nodes.indices.filter { keep[$0] }.map { nodes[$0] }
        producer = [:]
        for (index, node) in nodes.enumerated() { producer[node.outputs[0]] = index }
    }

    /// The node that writes `value` (nil: an input or a constant).
    func producerNode(of value: ValueID) -> Int? { producer[value] }

    /// Whether more than one blob stands for `value`.
    func isShared(_ value: ValueID) -> Bool { shared.contains(value) }

    /// A graph constant of `values` with `shape`.
    mutating func constant(_ name: String, _ shape: [Int], _ values: [Float]) throws -> ValueID {
        newValue(name: name, shape: shape, constant: try Tensor(shape: shape, values: values))
    }

    /// The node that writes `value`, with its operation, when a fusion may change it: made by a
    /// node, read by one layer input alone (`readers` of the blob reading it), no other blob on it.
    private func fusible(_ value: ValueID, blob name: String) -> Int? {
        guard fusing, readerCount[name] == 1, !shared.contains(value), let node = producer[value] else { return nil }
        return node
    }

    /// `value` seen with `shape` (a `reshape` node, no work), or `value` itself when the shape is its own.
    mutating func reshaped(_ value: ValueID, to shape: [Int], name: String) throws -> ValueID {
        guard values[value].shape != shape else { return value }
        return node(ReshapeOp(), [value], name: name, shape: shape)
    }

    /// The blob `value` stands for as well (no node made): never fused into afterwards.
    mutating func alias(_ value: ValueID) -> ValueID {
        shared.insert(value)
        return value
    }

    // MARK: Layouts

    /// The blob as a row-major value (converted, padded or made a constant as needed).
    mutating func rowMajor(_ blob: CreateMLBlob, name: String, layer: String) throws -> ValueID {
        switch blob.storage {
        case .constant(let data):
            return try constant(name, blob.shape.isEmpty ? [1] : blob.shape, data)
        case .padded:
            return try rowMajor(CreateMLBlob(shape: blob.shape, storage: .value(try channelsLast(blob, name: name, layer: layer).value, .channelsLast)),
                                name: name, layer: layer)
        case .value(let id, .rowMajor):
            return id
        case .value(let id, .channelsLast):
            // [H, W, C] → [C, H, W], then the leading axes of 1 back.
            return try permute(id, view: values[id].shape, permutation: [2, 0, 1], to: blob.shape, name: name + "/chw", blob: name)
        }
    }

    /// The blob as a channels-last `[H, W, C]` value, and the zero padding a consumer must add
    /// along H and W (a folded `padding` layer; `.zero` unless `takingPadding`).
    mutating func channelsLast(_ blob: CreateMLBlob, name: String, layer: String,
                               takingPadding: Bool = false) throws -> (value: ValueID, padding: SpatialPadding) {
        guard CreateMLBlob.fitsChannelsLast(blob.shape) else {
            throw CoreMLModelError.layerFailed(layer: layer, detail: "needs [.., C, H, W] with batch 1, got \(blob.shape)")
        }
        switch blob.storage {
        case .value(let id, .channelsLast):
            return (id, .zero)
        case .padded(let id, let padding):
            if takingPadding { return (id, padding) }
            let s = values[id].shape
            let padded = node(PadOp(amounts: [PadAmount(before: padding.top, after: padding.bottom),
                                              PadAmount(before: padding.left, after: padding.right), PadAmount(before: 0, after: 0)]),
                              [id], name: name, shape: [s[0] + padding.top + padding.bottom, s[1] + padding.left + padding.right, s[2]])
            return (padded, .zero)
        case .constant, .value(_, .rowMajor):
            let id = try rowMajor(blob, name: name, layer: layer)
            let r = blob.rank
            let (c, h, w) = (blob.shape[r - 3], blob.shape[r - 2], blob.shape[r - 1])
            return (try permute(id, view: [c, h, w], permutation: [1, 2, 0], to: [h, w, c], name: name + "/hwc", blob: name), .zero)
        }
    }

    /// The layout to give several blobs one layer combines: channels-last when one of them is and
    /// all can be, else row-major.
    static func commonLayout(_ blobs: [CreateMLBlob]) -> CreateMLBlob.Layout {
        let anyChannelsLast = blobs.contains {
            switch $0.storage {
            case .value(_, .channelsLast), .padded: return true
            default: return false
            }
        }
        return anyChannelsLast && blobs.allSatisfy({ CreateMLBlob.fitsChannelsLast($0.shape) && $0.rank == blobs[0].rank }) ? .channelsLast : .rowMajor
    }

    /// The blob as a value in `layout`.
    mutating func value(_ blob: CreateMLBlob, in layout: CreateMLBlob.Layout, name: String, layer: String) throws -> ValueID {
        layout == .channelsLast ? try channelsLast(blob, name: name, layer: layer).value : try rowMajor(blob, name: name, layer: layer)
    }

    /// Where Core ML axis `axis` (resolved, of a rank-`rank` blob) is in a value of `layout`, or
    /// nil for a leading axis a channels-last value does not hold.
    static func heldAxis(_ axis: Int, rank: Int, _ layout: CreateMLBlob.Layout) -> Int? {
        CreateMLBlob.heldAxes(layout, rank: rank).firstIndex(of: axis)
    }

    /// The layout a blob is held in (constants and pads read as row-major and channels-last).
    static func layout(of blob: CreateMLBlob) -> CreateMLBlob.Layout {
        switch blob.storage {
        case .value(_, let layout): return layout
        case .padded: return .channelsLast
        case .constant: return .rowMajor
        }
    }

    /// Whether the blob is made by a node whose ops and readers allow changing it in place.
    func fusibleNode(of blob: CreateMLBlob, named name: String) -> (node: Int, value: ValueID)? {
        guard case .value(let id, _) = blob.storage, let node = fusible(id, blob: name) else { return nil }
        return (node, id)
    }

    /// Replaces node `index`'s operation (a fusion), keeping its inputs and output.
    mutating func replace(_ index: Int, with operation: any GraphOperation) {
        nodes[index].operation = operation
    }

    /// The constant a graph value holds (fusions rewrite the weights of the node they fold into).
    func constantTensor(_ id: ValueID) -> Tensor? { values[id].constant }

    mutating func setConstant(_ id: ValueID, _ tensor: Tensor) { values[id].constant = tensor }

    func node(at index: Int) -> GraphNode { nodes[index] }

    func shape(of value: ValueID) -> [Int] { values[value].shape }

    /// The layers that read blob `name`.
    func readers(of name: String) -> [CoreMLLayer] { readerLayers[name] ?? [] }

    func readCount(of name: String) -> Int { readerCount[name] ?? 0 }
}

/// What ``CreateMLGraphMapper`` makes of a model: the graph, and each Core ML blob's place in it
/// (for layer-by-layer comparisons; with fusing off, every layer output is a value of its own).
struct CreateMLGraphMapping {
    let graph: Graph
    let blobs: [String: CreateMLBlob]
    let layers: [CoreMLLayer]
}
