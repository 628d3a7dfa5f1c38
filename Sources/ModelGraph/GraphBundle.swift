import Foundation
import Tensor

/// A ``Graph`` stored in a `.pkw` weight bundle (kind `"graph"`): the manifest's network section
/// (``GraphBundleSection``) holds the values, nodes, inputs and outputs; every constant is a named
/// tensor of the bundle, stored fp16 when that is exact (weights imported from fp16 always are).
///
/// Reading back is strict: the section must decode completely, every constant must be a tensor
/// of the bundle with the value's shape, and the graph must pass ``Graph/validate()``, exactly as
/// an import does. Clients that only run graphs need this file, not the TFLite reader.
extension Graph {
    /// The manifest `kind` of a graph bundle.
    public static let bundleKind = "graph"

    /// A bundle writer holding this graph, named `name`, with `source` and `license` as provenance.
    public func bundleWriter(name: String, source: WeightManifest.Source, license: WeightManifest.License) throws -> WeightBundleWriter {
        try validate()
        var entries: [GraphBundleSection.Value] = []
        var usedNames: Set<String> = []
        var stored: [(name: String, value: GraphValue, layout: TensorLayout)] = []
        let layouts = constantLayouts()
        for (id, value) in values.enumerated() {
            var tensorName: String?
            if value.constant != nil {
                var candidate = value.name.isEmpty ? "value \(id)" : value.name
                if !usedNames.insert(candidate).inserted {
                    candidate += "#\(id)"
                    usedNames.insert(candidate)
                }
                tensorName = candidate
                stored.append((candidate, value, layouts[id] ?? .c))
            }
            entries.append(.init(name: value.name, shape: value.shape, constant: tensorName))
        }
        let section = GraphBundleSection(values: entries, nodes: nodes.map(GraphBundleSection.Node.init), inputs: inputs, outputs: outputs)
        var writer = WeightBundleWriter(manifest: try WeightManifest(kind: Graph.bundleKind, name: name, section: section,
                                                                     source: source, license: license))
        for (tensorName, value, layout) in stored {
            let data = value.constant!.scalars
            // Depthwise weights are stored as HWCM with M = 1, the layout's documented rank.
            let shape = layout == .hwcm ? value.shape + [1] : value.shape
            try writer.add(name: tensorName, shape: shape, layout: layout, values: data,
                           storage: HalfPrecision.isExactlyRepresentable(data) ? .fp16 : .fp32)
        }
        return writer
    }

    /// The graph stored in `bundle`, validated.
    ///
    /// - Throws: `WeightBundleError.wrongKind` for another kind of bundle, `WeightBundleError.corrupt`
    ///   naming the file and the first inconsistency (a missing field, a constant that is not in the
    ///   bundle or has another shape, a graph that fails ``validate()``).
    public init(bundle: WeightBundle) throws {
        try bundle.requireKind(Graph.bundleKind)
        let section = try bundle.section(GraphBundleSection.self)
        func corrupt(_ detail: String) -> WeightBundleError { .corrupt(file: bundle.url.path, detail: detail) }
        var values: [GraphValue] = []
        values.reserveCapacity(section.values.count)
        for (id, entry) in section.values.enumerated() {
            var value = GraphValue(name: entry.name, shape: entry.shape)
            if let tensorName = entry.constant {
                guard let stored = bundle.entry(named: tensorName) else { throw corrupt("value \(id) names tensor '\(tensorName)', which the bundle does not hold") }
                let expected = stored.layout == .hwcm ? entry.shape + [1] : entry.shape
                guard stored.shape == expected else { throw corrupt("value \(id) has shape \(entry.shape) but tensor '\(tensorName)' has \(stored.shape)") }
                let tensor = try bundle.tensor(named: tensorName)
                value.constant = try Tensor(shape: entry.shape, values: tensor.scalars)
            }
            values.append(value)
        }
        let nodes = try section.nodes.enumerated().map { index, node in
            do { return try node.graphNode() } catch let error as GraphError { throw corrupt("node \(index): \(error.detail)") }
        }
        self.init(values: values, nodes: nodes, inputs: section.inputs, outputs: section.outputs)
        do { try validate() } catch let error as GraphError { throw corrupt("graph: \(error.detail)") }
    }

    /// Bundle layout of each constant, from the operation that reads it.
    private func constantLayouts() -> [ValueID: TensorLayout] {
        var layouts: [ValueID: TensorLayout] = [:]
        for node in nodes {
            switch node.operation {
            case .conv2D: layouts[node.inputs[1]] = .hwio
            case .depthwiseConv2D: layouts[node.inputs[1]] = .hwcm
            case .fullyConnected: layouts[node.inputs[1]] = .io
            default: break
            }
        }
        return layouts
    }
}

/// The network section of a graph bundle's manifest: the graph without its constants' data.
///
/// ```json
/// { "inputs": [0], "outputs": [301, 302],
///   "values": [ { "name": "input_1", "shape": [224, 224, 3] },
///               { "name": "model_1/model/conv2d/Conv2D", "shape": [3, 3, 3, 24], "constant": "model_1/model/conv2d/Conv2D" }, ... ],
///   "nodes": [ { "op": "conv2D", "inputs": [0, 1, 2], "outputs": [3], "kernel": [3, 3], "stride": [2, 2],
///                "dilation": [1, 1], "padding": [0, 0, 1, 1], "activation": "relu6" }, ... ] }
/// ```
/// `padding` is `[top, left, bottom, right]`; `pad` lists `[before, after]` per axis.
public struct GraphBundleSection: Codable, Sendable, Equatable {
    public struct Value: Codable, Sendable, Equatable {
        public var name: String
        public var shape: [Int]
        /// The bundle tensor holding this constant's data, or nil for inputs and intermediate values.
        public var constant: String?
    }

    /// One node; only the fields its `op` needs are present.
    public struct Node: Codable, Sendable, Equatable {
        public var op: String
        public var inputs: [Int]
        public var outputs: [Int]
        public var kernel: [Int]?
        public var stride: [Int]?
        public var dilation: [Int]?
        public var padding: [Int]?
        public var activation: String?
        public var pad: [[Int]]?
        public var alignCorners: Bool?
        public var halfPixelCenters: Bool?
        public var blockSize: Int?
        public var axis: Int?

        init(_ node: GraphNode) {
            op = node.operation.name
            inputs = node.inputs
            outputs = node.outputs
            func window(_ w: Window2D) {
                kernel = [w.kernelHeight, w.kernelWidth]
                stride = [w.strideHeight, w.strideWidth]
                dilation = [w.dilationHeight, w.dilationWidth]
                padding = [w.padding.top, w.padding.left, w.padding.bottom, w.padding.right]
            }
            switch node.operation {
            case .conv2D(let w, let a), .depthwiseConv2D(let w, let a):
                window(w)
                activation = a.description
            case .fullyConnected(let a), .add(let a):
                activation = a.description
            case .maxPool2D(let w):
                window(w)
            case .pad(let amounts):
                pad = amounts.map { [$0.before, $0.after] }
            case .resizeBilinear(let ac, let hp):
                alignCorners = ac
                halfPixelCenters = hp
            case .depthToSpace(let b):
                blockSize = b
            case .concatenation(let a):
                axis = a
            case .prelu, .logistic, .spatialMean, .reshape:
                break
            }
        }

        /// The node this entry describes; throws a ``GraphError`` for a missing or unknown field.
        func graphNode() throws -> GraphNode {
            func need<T>(_ v: T?, _ field: String) throws -> T {
                guard let v else { throw GraphError("\(op) needs \"\(field)\"") }
                return v
            }
            func pair(_ v: [Int]?, _ field: String) throws -> (Int, Int) {
                let a = try need(v, field)
                guard a.count == 2 else { throw GraphError("\"\(field)\" of \(op) must hold 2 numbers") }
                return (a[0], a[1])
            }
            func window() throws -> Window2D {
                let (kh, kw) = try pair(kernel, "kernel"), (sh, sw) = try pair(stride, "stride"), (dh, dw) = try pair(dilation, "dilation")
                let p = try need(padding, "padding")
                guard p.count == 4 else { throw GraphError("\"padding\" of \(op) must hold 4 numbers") }
                return Window2D(kernelHeight: kh, kernelWidth: kw, strideHeight: sh, strideWidth: sw, dilationHeight: dh, dilationWidth: dw,
                                padding: SpatialPadding(top: p[0], left: p[1], bottom: p[2], right: p[3]))
            }
            func act() throws -> Activation {
                let name = try need(activation, "activation")
                guard let a = [Activation.none, .relu, .relu6].first(where: { $0.description == name }) else {
                    throw GraphError("unknown activation \"\(name)\"")
                }
                return a
            }
            let operation: GraphOperation
            switch op {
            case "conv2D": operation = .conv2D(window: try window(), activation: try act())
            case "depthwiseConv2D": operation = .depthwiseConv2D(window: try window(), activation: try act())
            case "fullyConnected": operation = .fullyConnected(activation: try act())
            case "add": operation = .add(activation: try act())
            case "prelu": operation = .prelu
            case "logistic": operation = .logistic
            case "pad":
                let amounts = try need(pad, "pad")
                guard amounts.allSatisfy({ $0.count == 2 }) else { throw GraphError("\"pad\" must hold [before, after] pairs") }
                operation = .pad(amounts: amounts.map { PadAmount(before: $0[0], after: $0[1]) })
            case "maxPool2D": operation = .maxPool2D(window: try window())
            case "spatialMean": operation = .spatialMean
            case "resizeBilinear":
                operation = .resizeBilinear(alignCorners: try need(alignCorners, "alignCorners"), halfPixelCenters: try need(halfPixelCenters, "halfPixelCenters"))
            case "depthToSpace": operation = .depthToSpace(blockSize: try need(blockSize, "blockSize"))
            case "reshape": operation = .reshape
            case "concatenation": operation = .concatenation(axis: try need(axis, "axis"))
            default: throw GraphError("unknown operation \"\(op)\"")
            }
            return GraphNode(operation: operation, inputs: inputs, outputs: outputs)
        }
    }

    public var values: [Value]
    public var nodes: [Node]
    public var inputs: [Int]
    public var outputs: [Int]
}
