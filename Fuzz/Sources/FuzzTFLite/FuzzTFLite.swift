import Foundation
import ModelGraph
import Tensor
import TFLite

/// Where a successful import is written to be read back (one file per fuzzing process).
let roundTripURL = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("posekit-fuzz-tflite-\(getpid()).pkw")

/// libFuzzer entry point: import `data` as a `.tflite` file (FlatBuffers reader, TFLite schema,
/// sparse densify, mapping to a graph). It must either throw a `TFLiteError` or give a graph that
/// validates and survives a `.pkw` round trip unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTFLite(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let imported: ImportedGraph
    do {
        imported = try TFLiteImporter.importModel(bytes: bytes, file: "fuzz.tflite")
    } catch is TFLiteError {
        return 0
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    do {
        try imported.graph.validate()
        try imported.bundleWriter().write(to: roundTripURL)
        let again = try Graph(bundle: WeightBundle(contentsOf: roundTripURL))
        precondition(again.nodes.count == imported.graph.nodes.count && again.values.count == imported.graph.values.count
                     && again.inputs == imported.graph.inputs && again.outputs == imported.graph.outputs, "bundle round trip changed the graph")
        for (a, b) in zip(again.values, imported.graph.values) {
            precondition(a.shape == b.shape && a.constant?.scalars.map(\.bitPattern) == b.constant?.scalars.map(\.bitPattern), "bundle round trip changed value \(a.name)")
        }
        for (a, b) in zip(again.nodes, imported.graph.nodes) {
            precondition(a.operation.isEqual(to: b.operation) && a.inputs == b.inputs && a.outputs == b.outputs, "bundle round trip changed a node")
        }
    } catch {
        fatalError("an imported graph failed to validate or round-trip: \(error)")
    }
    return 0
}
