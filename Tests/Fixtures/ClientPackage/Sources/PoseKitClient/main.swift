// One PoseNet forward pass through PoseKit used as a dependency, checked against a reference
// heatmap: `PoseKitClient WEIGHTS.pkw REFERENCE_CASE_DIR` (a folder of ../shared/reference).
import Foundation
import PoseNet
import Tensor

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("client: error: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: PoseKitClient WEIGHTS.pkw REFERENCE_CASE_DIR") }
let folder = URL(fileURLWithPath: arguments[2])
guard let meta = try? JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("meta.json"))) as? [String: Any],
      let inputSize = meta["input_size"] as? Int, let outputStride = meta["output_stride"] as? Int else {
    fail("cannot read \(folder.path)/meta.json")
}
do {
    let bundle = try WeightBundle(contentsOf: URL(fileURLWithPath: arguments[1]))
    let model = try PoseNetModel(bundle: bundle, inputSize: inputSize, outputStride: outputStride, threads: 2)
    // input.ppm: P6, maxval 255, exactly the model input; the header has no comments.
    let ppm = [UInt8](try Data(contentsOf: folder.appendingPathComponent("input.ppm")))
    var newlines = 0, start = 0
    while newlines < 3 { if ppm[start] == 10 { newlines += 1 }; start += 1 }
    model.input.withUnsafeMutableBufferPointer { dst in
        for i in dst.indices { dst[i] = Float(ppm[start + i]) * (2 / 255) - 1 }
    }
    try model.run()
    let reference = try Data(contentsOf: folder.appendingPathComponent("heatmap.f32")).withUnsafeBytes { raw in
        (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
    }
    let ours = model.heatmapScores.scalars
    guard ours.count == reference.count else { fail("heatmap has \(ours.count) values, the reference \(reference.count)") }
    // A NaN counts as infinitely wrong (`max()` would pass over it).
    let worst = zip(ours, reference).map { a, b -> Float in let d = abs(a - b); return d.isNaN ? .infinity : d }.max() ?? .infinity
    guard worst <= 1e-4 else { fail("heatmap differs from the reference by up to \(worst)") }
    print("client: forward pass at \(inputSize) matches the reference heatmap (max error \(worst))")
} catch {
    fail("\(error)")
}
