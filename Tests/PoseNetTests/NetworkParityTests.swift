import Foundation
import Testing
import Tensor
@testable import PoseNet
import PoseCore
import TestSupport

/// The network against the float64 numpy reference heads in `shared/reference/`, for both
/// weight sets, input sizes 257/353/513 and output strides 8 and 16.
@Suite struct NetworkParityTests {
    static let cases: [String] = {
        let index = SharedData.root.appendingPathComponent("reference/index.json")
        guard let data = try? Data(contentsOf: index),
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return list.compactMap { $0["case"] as? String }
    }()

    @Test func referenceCasesExist() {
        #expect(Self.cases.count >= 6, "reference/index.json lists \(Self.cases.count) cases")
    }

    @Test(arguments: cases)
    func headsMatchReference(_ name: String) throws {
        let folder = SharedData.root.appendingPathComponent("reference/\(name)")
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("meta.json"))) as! [String: Any]
        let inputSize = meta["input_size"] as! Int
        let outputStride = meta["output_stride"] as! Int
        let modelName = name.hasPrefix("mobilenet075") ? "mobilenet075" : "mobilenet050"
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve(modelName))
        let model = try PoseNetModel(bundle: bundle, inputSize: inputSize, outputStride: outputStride, threads: 2)

        try ReferenceInput.load(folder.appendingPathComponent("input.ppm"), into: model.input)
        try model.run()

        // Heatmap: absolute error; offsets/displacements: relative to the head's largest magnitude
        // (the reference is float64; float32 accumulation error scales with the activations).
        try expectClose(model.heatmapScores, folder, "heatmap.f32", absolute: 1e-4, name)
        for (tensor, file) in [(model.offsets, "offsets.f32"), (model.displacementsFwd, "displacement_fwd.f32"),
                               (model.displacementsBwd, "displacement_bwd.f32")] {
            try expectClose(tensor, folder, file, relativeToMax: 5e-4, name)
        }
    }

    func expectClose(_ tensor: Tensor, _ folder: URL, _ file: String, absolute: Float? = nil,
                     relativeToMax: Float? = nil, _ name: String) throws {
        let data = try Data(contentsOf: folder.appendingPathComponent(file))
        let reference: [Float] = data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
        let ours = tensor.scalars
        #expect(ours.count == reference.count, "\(name) \(file): \(ours.count) values, reference has \(reference.count)")
        guard ours.count == reference.count else { return }
        let largest = reference.map(abs).max() ?? 0
        let bound = absolute ?? (relativeToMax! * largest)
        var worst: Float = 0
        for (a, b) in zip(ours, reference) { worst = max(worst, absoluteError(a, b)) }
        #expect(worst <= bound, "\(name) \(file): max abs error \(worst) > \(bound) (max |ref| \(largest))")
    }
}

/// Reads a reference `input.ppm` (P6, maxval 255, exactly the model input) into `[-1, 1]`.
enum ReferenceInput {
    static func load(_ url: URL, into input: Tensor) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        var fields: [Int] = [], position = 2, current = -1
        while fields.count < 3 {  // width, height, maxval after the "P6" magic
            let c = bytes[position]; position += 1
            if c >= 48 && c <= 57 { current = max(current, 0) * 10 + Int(c - 48) }
            else if current >= 0 { fields.append(current); current = -1 }
        }
        let (width, height) = (fields[0], fields[1])
        #expect(input.shape == [height, width, 3] && fields[2] == 255, "input.ppm is \(width)x\(height), model input is \(input.shape)")
        input.withUnsafeMutableBufferPointer { dst in
            for i in 0..<(width * height * 3) { dst[i] = Float(bytes[position + i]) * (2 / 255) - 1 }
        }
    }
}
