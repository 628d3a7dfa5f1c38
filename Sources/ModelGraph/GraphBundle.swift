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
        let threshold = reducedPrecision.minimumInputChannels
        let section = GraphBundleSection(values: entries, nodes: nodes.map { GraphBundleSection.Node($0) }, inputs: inputs, outputs: outputs,
                                         reducedPrecisionMinimumInputChannels: threshold == ReducedPrecisionRule.standard.minimumInputChannels ? nil : threshold)
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

    /// The graph stored in `bundle`, validated; each node's `op` is looked up in `registry`.
    ///
    /// - Throws: `WeightBundleError.wrongKind` for another kind of bundle, `WeightBundleError.corrupt`
    ///   naming the file and the first inconsistency (a missing field, a constant that is not in the
    ///   bundle or has another shape, a graph that fails ``validate()``).
    public init(bundle: WeightBundle, registry: GraphOperationRegistry = .builtin) throws {
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
            do { return try node.graphNode(registry) } catch let error as GraphError { throw corrupt("node \(index): \(error.detail)") }
        }
        var rule = ReducedPrecisionRule.standard
        if let threshold = section.reducedPrecisionMinimumInputChannels {
            guard (1...Graph.maxValueElements).contains(threshold) else { throw corrupt("reducedPrecisionMinimumInputChannels \(threshold) is out of range") }
            rule.minimumInputChannels = threshold
        }
        self.init(values: values, nodes: nodes, inputs: section.inputs, outputs: section.outputs, reducedPrecision: rule)
        do { try validate() } catch let error as GraphError { throw corrupt("graph: \(error.detail)") }
    }

    /// Bundle layout of each constant, from the operation that reads it (``GraphOperation/bundleLayout(ofInput:)``).
    private func constantLayouts() -> [ValueID: TensorLayout] {
        var layouts: [ValueID: TensorLayout] = [:]
        for node in nodes {
            for (position, id) in node.inputs.enumerated() {
                if let layout = node.operation.bundleLayout(ofInput: position) { layouts[id] = layout }
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

    /// One node: its operation's registered name, its values, and the fields that operation
    /// writes (``GraphOperation/encode(into:)``), side by side in one JSON object.
    public struct Node: Codable, Sendable, Equatable {
        public var op: String
        public var inputs: [Int]
        public var outputs: [Int]
        /// The operation's parameters (`kernel`, `stride`, `activation`, ...), by field name.
        public var attributes: [String: GraphAttributes.Value]

        public init(op: String, inputs: [Int], outputs: [Int], attributes: [String: GraphAttributes.Value] = [:]) {
            self.op = op
            self.inputs = inputs
            self.outputs = outputs
            self.attributes = attributes
        }

        init(_ node: GraphNode) {
            var attributes = GraphAttributes(op: node.operation.name)
            node.operation.encode(into: &attributes)
            self.init(op: node.operation.name, inputs: node.inputs, outputs: node.outputs, attributes: attributes.fields)
        }

        /// The node this entry describes, its operation looked up in `registry`; throws a
        /// ``GraphError`` for an unknown operation or a missing, ill-typed or unknown field.
        func graphNode(_ registry: GraphOperationRegistry) throws -> GraphNode {
            GraphNode(operation: try registry.operation(GraphAttributes(op: op, fields: attributes)), inputs: inputs, outputs: outputs)
        }

        private struct Key: CodingKey {
            var stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
        private static let reserved: Set<String> = ["op", "inputs", "outputs"]

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            op = try c.decode(String.self, forKey: Key(stringValue: "op"))
            inputs = try c.decode([Int].self, forKey: Key(stringValue: "inputs"))
            outputs = try c.decode([Int].self, forKey: Key(stringValue: "outputs"))
            var attributes: [String: GraphAttributes.Value] = [:]
            for key in c.allKeys where !Self.reserved.contains(key.stringValue) {
                attributes[key.stringValue] = try c.decode(GraphAttributes.Value.self, forKey: key)
            }
            self.attributes = attributes
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(op, forKey: Key(stringValue: "op"))
            try c.encode(inputs, forKey: Key(stringValue: "inputs"))
            try c.encode(outputs, forKey: Key(stringValue: "outputs"))
            for (name, value) in attributes where !Self.reserved.contains(name) {
                try c.encode(value, forKey: Key(stringValue: name))
            }
        }
    }

    public var values: [Value]
    public var nodes: [Node]
    public var inputs: [Int]
    public var outputs: [Int]
    /// The graph's ``Graph/reducedPrecision`` threshold when it is not the standard one
    /// (`Precision.minimumInputChannels`); absent otherwise.
    public var reducedPrecisionMinimumInputChannels: Int? = nil
}
