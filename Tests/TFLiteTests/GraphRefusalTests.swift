import Foundation
import ModelGraph
import Tensor
import Testing
@testable import TFLite

/// Graphs are refused as the other families are (issue #45 part 6): NaN or infinite weights
/// (named), a constant as an output, no outputs, a manifest over the size cap; each one line,
/// at import and at load.
@Suite struct GraphRefusalTests {
    /// fp16 NaN and +infinity bit patterns.
    static let nan16: UInt16 = 0x7E00, infinity16: UInt16 = 0x7C00

    @Test func nonFiniteWeightsAreRefusedAtImportNamingTheTensor() {
        var weights = TinyTFLite.sparseConv
        weights.buffers[1] = TinyTFLite.halves([0x3C00, Self.nan16, 0x4200, 0xC400])
        HostileTFLiteTests.expectFailure(weights, containing: "tensor 1 'w_sparse' holds nan")
        var bias = TinyTFLite.sparseConv
        bias.buffers[2] = TinyTFLite.halves([0x3800, 0xBC00, Self.infinity16])
        HostileTFLiteTests.expectFailure(bias, containing: "tensor 4 'b16' holds inf")
    }

    /// Writes `graph`'s bundle as the writer would, but with `change` applied to its tensors'
    /// values (the writer itself refuses a graph that fails `validate()`).
    static func bundle(of graph: Graph, at url: URL, changingTensor name: String? = nil, to values: (([Float]) -> [Float])? = nil,
                       section change: ((inout GraphBundleSection) -> Void)? = nil) throws {
        let valid = try graph.bundleWriter(name: "tiny", source: .init(fileName: "tiny.tflite", sha256: "", format: "tflite"),
                                           license: .init(spdx: "NOASSERTION", attribution: "test"))
        let temporary = url.deletingLastPathComponent().appendingPathComponent("valid-\(url.lastPathComponent)")
        try valid.write(to: temporary)
        let bundle = try WeightBundle(contentsOf: temporary)
        var manifest = bundle.manifest
        if let change {
            var section = try bundle.section(GraphBundleSection.self)
            change(&section)
            try manifest.setSection(section)
        }
        manifest.tensors = []
        var writer = WeightBundleWriter(manifest: manifest)
        for entry in bundle.manifest.tensors {
            var data = try bundle.tensor(named: entry.name).scalars
            if entry.name == name, let values { data = values(data) }
            try writer.add(name: entry.name, shape: entry.shape, layout: entry.layout, values: data, storage: .fp32)
        }
        try writer.write(to: url)
    }

    static func loadError(_ url: URL) -> String? {
        do {
            _ = try Graph(bundle: WeightBundle(contentsOf: url))
            return nil
        } catch {
            #expect(!error.localizedDescription.contains("\n"))
            return error.localizedDescription
        }
    }

    @Test func nonFiniteWeightsConstantOutputsAndNoOutputsAreRefusedAtLoad() throws {
        let tiny = try TFLiteImporter.importModel(bytes: TinyTFLite.sparseConv.bytes, file: "tiny.tflite").graph
        let weights = try #require(tiny.nodes.first?.inputs[1])
        let weightsName = tiny.values[weights].name
        try withTemporaryDirectory { dir in
            let nan = dir.appendingPathComponent("nan.pkw")
            try Self.bundle(of: tiny, at: nan, changingTensor: weightsName) { v in var v = v; v[2] = .nan; return v }
            let nanError = Self.loadError(nan)
            #expect(nanError?.contains("nan.pkw") == true && nanError?.contains("constant '\(weightsName)'") == true
                    && nanError?.contains("nan") == true, "\(nanError ?? "loaded")")
            let infinite = dir.appendingPathComponent("inf.pkw")
            try Self.bundle(of: tiny, at: infinite, changingTensor: weightsName) { v in var v = v; v[0] = -.infinity; return v }
            #expect(Self.loadError(infinite)?.contains("holds -inf at element 0") == true, "\(Self.loadError(infinite) ?? "loaded")")

            let constantOutput = dir.appendingPathComponent("constant-output.pkw")
            try Self.bundle(of: tiny, at: constantOutput, section: { $0.outputs = [weights] })
            #expect(Self.loadError(constantOutput)?.contains("is a constant, not computed by any node") == true,
                    "\(Self.loadError(constantOutput) ?? "loaded")")
            let noOutputs = dir.appendingPathComponent("no-outputs.pkw")
            try Self.bundle(of: tiny, at: noOutputs, section: { $0.outputs = [] })
            #expect(Self.loadError(noOutputs)?.contains("the graph has no outputs") == true, "\(Self.loadError(noOutputs) ?? "loaded")")
            // The same graphs are refused before they are written, and by a runner.
            var withNaN = tiny
            withNaN.values[weights].constant = try Tensor(shape: tiny.values[weights].shape,
                                                          values: [Float](repeating: .nan, count: tiny.values[weights].count))
            #expect(throws: GraphError.self) { try GraphRunner(graph: withNaN) }
            var constant = tiny
            constant.outputs = [weights]
            #expect(throws: GraphError.self) {
                try constant.bundleWriter(name: "c", source: .init(fileName: "c", sha256: "", format: "tflite"),
                                          license: .init(spdx: "NOASSERTION", attribution: "test"))
            }
        }
    }

    /// A manifest over the cap is refused from the header, before it is parsed (an 8 MB one
    /// used to take 11 s and 235 MB), and never written.
    @Test func anOversizedManifestIsRefusedUnread() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("huge-manifest.pkw")
            let manifestLength = WeightBundleHeader.maximumManifestLength + 1
            let dataOffset = (64 + manifestLength + 63) / 64 * 64
            var bytes = [UInt8](repeating: 0x20, count: dataOffset)
            bytes.replaceSubrange(0..<64, with: [UInt8](repeating: 0, count: 64))
            bytes.replaceSubrange(0..<8, with: Array("PKWEIGHT".utf8))
            func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
                withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<(offset + $0.count), with: $0) }
            }
            put(UInt32(2), at: 8); put(UInt32(64), at: 12); put(UInt64(manifestLength), at: 16)
            put(UInt64(dataOffset), at: 24); put(UInt64(bytes.count), at: 32); put(UInt32(1), at: 48)
            try Data(bytes).write(to: url)
            do {
                _ = try WeightBundle(contentsOf: url)
                Issue.record("an oversized manifest was read")
            } catch let error as WeightBundleError {
                #expect(error.localizedDescription.contains("huge-manifest.pkw"))
                #expect(error.localizedDescription.contains("larger than the \(WeightBundleHeader.maximumManifestLength)-byte limit"),
                        "\(error.localizedDescription)")
            }
            // The writer refuses to make one.
            let tiny = try TFLiteImporter.importModel(bytes: TinyTFLite.sparseConv.bytes, file: "tiny.tflite").graph
            var huge = tiny
            huge.values[huge.inputs[0]].name = String(repeating: "x", count: WeightBundleHeader.maximumManifestLength)
            #expect(throws: WeightBundleError.self) {
                try huge.bundleWriter(name: "huge", source: .init(fileName: "h", sha256: "", format: "tflite"),
                                      license: .init(spdx: "NOASSERTION", attribution: "test")).encoded()
            }
        }
    }
}
