import Foundation
import ModelGraph
import Tensor
import Testing
@testable import TFLite

/// A graph stored in a `.pkw` bundle reads back identical, with its provenance, and a bundle whose
/// graph section lies is refused as the TFLite reader would refuse the file.
@Suite struct GraphBundleTests {
    static func expectSame(_ a: Graph, _ b: Graph, _ name: String) {
        #expect(a.inputs == b.inputs && a.outputs == b.outputs, "\(name)")
        #expect(a.values.count == b.values.count && a.nodes.count == b.nodes.count, "\(name)")
        for (x, y) in zip(a.values, b.values) {
            #expect(x.name == y.name && x.shape == y.shape, "\(name): \(x.name)")
            #expect(x.constant?.scalars == y.constant?.scalars, "\(name): constant \(x.name)")
        }
        for (i, (x, y)) in zip(a.nodes, b.nodes).enumerated() {
            #expect(x.operation.isEqual(to: y.operation) && x.inputs == y.inputs && x.outputs == y.outputs, "\(name): node \(i)")
        }
    }

    @Test(arguments: mediapipeModels)
    func roundTripsThroughABundle(_ name: String) throws {
        let imported = try #require(mediapipeImports[name])
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("\(name).pkw")
            try imported.bundleWriter().write(to: url)
            let bundle = try WeightBundle(contentsOf: url)
            #expect(bundle.manifest.kind == "graph")
            #expect(bundle.manifest.source == imported.source)
            #expect(bundle.manifest.license.spdx == "Apache-2.0")
            // The weights came from fp16, so they are stored fp16, losslessly.
            #expect(bundle.manifest.dtypes == [.fp16])
            Self.expectSame(imported.graph, try Graph(bundle: bundle), name)
        }
    }

    /// Rewrites `source`'s graph section with `change` (tensors copied as they are) and opens it as a graph.
    static func reopen(_ source: URL, in dir: URL, _ change: (inout GraphBundleSection) -> Void) throws -> Graph {
        let bundle = try WeightBundle(contentsOf: source)
        var manifest = bundle.manifest
        var section = try bundle.section(GraphBundleSection.self)
        change(&section)
        try manifest.setSection(section)
        var writer = WeightBundleWriter(manifest: manifest)
        for entry in bundle.manifest.tensors {
            try writer.add(name: entry.name, shape: entry.shape, layout: entry.layout, values: try bundle.tensor(named: entry.name).scalars, storage: entry.dtype)
        }
        let url = dir.appendingPathComponent("changed.pkw")
        try writer.write(to: url)
        return try Graph(bundle: WeightBundle(contentsOf: url))
    }

    static func expectCorrupt(_ source: URL, in dir: URL, containing text: String, _ change: (inout GraphBundleSection) -> Void,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try reopen(source, in: dir, change)
            Issue.record("the changed bundle opened", sourceLocation: sourceLocation)
        } catch let error as WeightBundleError {
            #expect(error.description.contains("changed.pkw: corrupt weight bundle: "), sourceLocation: sourceLocation)
            #expect(error.description.contains(text), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a WeightBundleError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aLyingGraphSectionIsRefused() throws {
        let tiny = try TFLiteImporter.importModel(bytes: TinyTFLite.sparseConv.bytes, file: "tiny.tflite")
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("tiny.pkw")
            try tiny.bundleWriter().write(to: url)
            Self.expectSame(tiny.graph, try Self.reopen(url, in: dir) { _ in }, "tiny")
            #expect(try WeightBundle(contentsOf: url).manifest.license.spdx == "NOASSERTION")
            // Which value is the conv's weights: its input 1.
            let weights = try #require(tiny.graph.nodes.first?.inputs[1])
            Self.expectCorrupt(url, in: dir, containing: "reads value 99, which does not exist") { $0.nodes[0].inputs[0] = 99 }
            Self.expectCorrupt(url, in: dir, containing: "a cycle, or a missing producer") { $0.nodes[0].inputs[0] = $0.nodes[0].outputs[0] }
            Self.expectCorrupt(url, in: dir, containing: "which the bundle does not hold") { $0.values[weights].constant = "nothing" }
            Self.expectCorrupt(url, in: dir, containing: "but tensor") { $0.values[weights].shape = [1, 1, 3, 4] }
            Self.expectCorrupt(url, in: dir, containing: "reads value \(weights) 'w' before any node computes it") { $0.values[weights].constant = nil }
            Self.expectCorrupt(url, in: dir, containing: "unknown operation \"hardSwishPlus\"") { $0.nodes[0].op = "hardSwishPlus" }
            Self.expectCorrupt(url, in: dir, containing: "conv2D needs \"stride\"") { $0.nodes[0].attributes["stride"] = nil }
            Self.expectCorrupt(url, in: dir, containing: "output shape is [2, 2, 3], but the inputs give [1, 1, 3]") { $0.nodes[0].attributes["stride"] = .ints([2, 2]) }
            Self.expectCorrupt(url, in: dir, containing: "has shape [2, -2, 4]") { $0.values[$0.inputs[0]].shape = [2, -2, 4] }
            Self.expectCorrupt(url, in: dir, containing: "graph output 7 is never computed") { $0.outputs = [7] }
        }
    }
}
