import Foundation
import ModelGraph
import Tensor
import Testing
@_spi(Training) @testable import ActionNet

/// The action classifiers are graphs like every network here: each stores in a graph bundle
/// (`.pkw` of kind `graph`, its operations coded by the registry: transpose, slice, softmax,
/// scale-shift, ...) and reads back identical, and the graph read back gives the same
/// probabilities as the classifier.
struct ActionGraphBundleTests {
    static func roundTrip(_ graph: Graph, name: String) throws -> Graph {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).pkw")
        defer { try? FileManager.default.removeItem(at: url) }
        try graph.bundleWriter(name: name, source: .init(fileName: name, sha256: "", format: "test", notes: [:]),
                               license: .init(spdx: "NOASSERTION", attribution: "test")).write(to: url)
        let read = try Graph(bundle: WeightBundle(contentsOf: url))
        #expect(read.inputs == graph.inputs && read.outputs == graph.outputs && read.nodes.count == graph.nodes.count)
        for (i, (a, b)) in zip(graph.nodes, read.nodes).enumerated() {
            #expect(a.operation.isEqual(to: b.operation) && a.inputs == b.inputs, "\(name) node \(i): \(a.operation) / \(b.operation)")
        }
        for (a, b) in zip(graph.values, read.values) { #expect(a.shape == b.shape && a.constant?.scalars == b.constant?.scalars, "\(a.name)") }
        return read
    }

    @Test(arguments: CreateMLReference.models.map(\.name))
    func aCreateMLGraphStoresAndRunsTheSame(_ name: String) throws {
        let model = try CreateMLActionClassifier(contentsOf: CreateMLReference.modelURL(name))
        let read = try Self.roundTrip(model.graph, name: name)
        let window = try CreateMLReference.window(name, "uniform_seed1234.npy")
        let fromBundle = try GraphRunner(graph: read, threads: 1).run([Tensor(shape: model.inputShape, values: window)])[0].scalars
        #expect(fromBundle == (try model.classify(window)).probabilities)
        // Each splitND and the concat joining its parts became one transpose; every padding and
        // batchnorm after a convolution went into it.
        let kinds = Set(model.graph.nodes.map(\.operation.name))
        #expect(kinds.isDisjoint(with: ["slice", "concatenation", "pad"]), "\(kinds)")
        #expect(model.graph.nodes.count < model.layerCount, "\(model.graph.nodes.count) nodes for \(model.layerCount) layers")
    }

    @Test func actionNetsGraphStoresAndRunsTheSame() throws {
        let (net, _) = try ActionWeightsFile.load(contentsOf: ActionRecognizerTests.weightsURL())
        let read = try Self.roundTrip(try net.graph(), name: "actionnet")
        let features: [Float] = (0..<(60 * 51)).map { (i: Int) -> Float in Float((i * 31) % 97) / 97 - 0.5 }
        let outputs = try GraphRunner(graph: read, threads: 1).run([Tensor(shape: [60, 51], values: features)])
        let (logits, probabilities) = try net.logitsAndProbabilities(features: features)
        #expect(outputs[0].scalars == probabilities && outputs[1].scalars == logits)
    }
}
