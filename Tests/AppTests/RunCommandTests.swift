import Foundation
import Testing

/// `posekit run MODEL --input X.npy --output DIR`: TFLite's outputs on MediaPipe's golden input, in
/// the model's order and shapes; `--outputs` and `--list`; one-line errors for bad tensors.
struct RunCommandTests {
    static let model = CLI.shared.appendingPathComponent("weights/mediapipe-0.10.14/hand_landmark_lite.tflite").path
    static let golden = CLI.shared.appendingPathComponent("reference/mediapipe/models/hand_landmark_lite")

    /// The `.npy` header's shape and the float32 payload of a NumPy 1.0 file.
    static func npy(_ url: URL) throws -> (shape: [Int], values: [Float]) {
        let data = try Data(contentsOf: url)
        let headerLength = Int(data[8]) | Int(data[9]) << 8
        let header = String(decoding: data[10..<(10 + headerLength)], as: UTF8.self)
        let shapeText = header.split(separator: "(")[1].split(separator: ")")[0]
        let shape = shapeText.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let values = data[(10 + headerLength)...].withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return (shape, values)
    }

    @Test func writesTheModelsOutputsInOrder() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Self.golden.appendingPathComponent("mpii_004645041_input_1.npy").path
        let result = try CLI.run(["run", Self.model, "--input", input, "--output", dir.path, "--threads", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let references = ["Identity_landmarks", "Identity_1_handflag", "Identity_2_handedness", "Identity_3_world"]
        for (i, name) in references.enumerated() {
            let got = try Self.npy(dir.appendingPathComponent("output_\(i).npy"))
            let want = try Self.npy(Self.golden.appendingPathComponent("mpii_004645041_\(name).npy"))
            #expect(got.shape == want.shape, "output \(i)")
            // Within 1e-4 of the output's range (of its magnitude for a single value).
            var range = Double((want.values.max() ?? 0) - (want.values.min() ?? 0))
            if range == 0 { range = max(1e-6, Double(want.values.map(abs).max() ?? 0)) }
            let worst = zip(got.values, want.values).map { Double(abs($0 - $1)) }.max() ?? .infinity
            #expect(got.values.count == want.values.count && worst <= 1e-4 * range, "output \(i): \(worst) over \(range)")
        }
        // --outputs writes only those, under their model indices.
        let some = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: some) }
        let selected = try CLI.run(["run", Self.model, "--input", input, "--output", some.path, "--outputs", "3", "Identity_1"])
        #expect(selected.status == 0, "\(selected.stderr)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: some.path)) == ["output_1.npy", "output_3.npy"])
        let listed = try CLI.run(["run", Self.model, "--list"])
        #expect(listed.status == 0 && listed.stdoutText.contains("[1, 224, 224, 3]") && listed.stdoutText.contains("[1, 63]"), "\(listed.stdoutText)")
    }

    @Test func badTensorsAreOneLine() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A float32 .npy of the wrong shape: the line names the file, the shape given and the one expected.
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 224, 224, 4), }"
        header += String(repeating: " ", count: (64 - (10 + header.count + 1) % 64) % 64) + "\n"
        var bytes = Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)])
        bytes.append(Data(header.utf8))
        bytes.append(Data(count: 224 * 224 * 4 * 4))
        let wrong = dir.appendingPathComponent("wrong.npy")
        try bytes.write(to: wrong)
        let result = try CLI.run(["run", Self.model, "--input", wrong.path, "--output", dir.appendingPathComponent("out").path])
        #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        for word in ["wrong.npy", "[1, 224, 224, 4]", "[1, 224, 224, 3]", "input_1"] {
            #expect(result.stderr.contains(word), "\(result.stderr) lacks \(word)")
        }
        // Not a .npy at all.
        let text = dir.appendingPathComponent("text.npy")
        try Data("hello".utf8).write(to: text)
        let garbage = try CLI.run(["run", Self.model, "--input", text.path, "--output", dir.appendingPathComponent("out").path])
        #expect(garbage.status == 1 && garbage.stderr.split(separator: "\n").count == 1 && garbage.stderr.contains("text.npy"), "\(garbage.stderr)")
    }

    /// `--precision int8` runs reduced: its outputs differ from fp32's (so something ran in int8) and
    /// stay within int8's graph tolerance of TFLite's (0.1 of the range, GraphPrecisionParityTests).
    /// On a CPU without VNNI that is one error line and exit 1 (PrecisionCommandTests).
    @Test func int8RunsReducedWithinItsTolerance() throws {
        let input = Self.golden.appendingPathComponent("mpii_004645041_input_1.npy").path
        let fp32 = try CLI.temporaryDirectory(), int8 = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: fp32); try? FileManager.default.removeItem(at: int8) }
        let plain = try CLI.run(["run", Self.model, "--input", input, "--output", fp32.path, "--outputs", "0", "--threads", "1"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let result = try CLI.run(["run", Self.model, "--input", input, "--output", int8.path, "--outputs", "0",
                                  "--threads", "1", "--precision", "int8"])
        guard result.status == 0 else {
            #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1
                    && result.stderr.hasPrefix("posekit: error: --precision int8: int8 precision needs"), "\(result.stderr)")
            return
        }
        let got = try Self.npy(int8.appendingPathComponent("output_0.npy")).values
        let reference = try Self.npy(fp32.appendingPathComponent("output_0.npy")).values
        let want = try Self.npy(Self.golden.appendingPathComponent("mpii_004645041_Identity_landmarks.npy")).values
        let range = Double((want.max() ?? 0) - (want.min() ?? 0))
        let worst = zip(got, want).map { Double(abs($0 - $1)) }.max() ?? .infinity
        #expect(got.count == want.count && worst <= 0.1 * range, "int8: \(worst) over \(range)")
        #expect(got != reference, "int8 gave fp32's bytes: nothing ran reduced")
    }

    /// A PoseNet bundle runs as its graph made for the input's size: its four heads, named, against
    /// the float64 reference's; `--list` and `info` describe it as a graph.
    @Test func aPoseNetBundleRunsAsItsGraph() throws {
        let folder = CLI.shared.appendingPathComponent("reference/mobilenet075__coco_000000000785__257_os16")
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // input.ppm (P6, 257×257) scaled as the bundle's preprocessing says, x·2/255 − 1, as a .npy.
        let ppm = try Data(contentsOf: folder.appendingPathComponent("input.ppm"))
        var newlines = 0, start = 0
        for (i, byte) in ppm.enumerated() where byte == 0x0A { newlines += 1; if newlines == 3 { start = i + 1; break } }
        let pixels = ppm[start...].map { Float($0) * 2 / 255 - 1 }
        #expect(pixels.count == 257 * 257 * 3)
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (257, 257, 3), }"
        header += String(repeating: " ", count: (64 - (10 + header.count + 1) % 64) % 64) + "\n"
        var bytes = Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)])
        bytes.append(Data(header.utf8))
        pixels.withUnsafeBytes { bytes.append(contentsOf: $0) }
        let input = dir.appendingPathComponent("image.npy")
        try bytes.write(to: input)
        let out = dir.appendingPathComponent("out")
        let result = try CLI.run(["run", "mobilenet075", "--input", input.path, "--output", out.path, "--threads", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        for (i, (file, shape)) in [("heatmap.f32", [1, 17, 17, 17]), ("offsets.f32", [1, 17, 17, 34]),
                                   ("displacement_fwd.f32", [1, 17, 17, 32]), ("displacement_bwd.f32", [1, 17, 17, 32])].enumerated() {
            let got = try Self.npy(out.appendingPathComponent("output_\(i).npy"))
            let want = try Data(contentsOf: folder.appendingPathComponent(file)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let largest = Double(want.map(abs).max() ?? 0)
            let worst = zip(got.values, want).map { Double(abs($0 - $1)) }.max() ?? .infinity
            #expect(got.shape == shape && got.values.count == want.count, "output \(i): \(got.shape)")
            #expect(worst <= (i == 0 ? 1e-4 : 5e-4 * largest), "output \(i) \(file): \(worst) (largest \(largest))")
        }
        let listed = try CLI.run(["run", "mobilenet075", "--list"])
        for text in ["image  [1, 513, 513, 3]", "heatmap  [1, 33, 33, 17]", "displacement_bwd  [1, 33, 33, 32]"] {
            #expect(listed.status == 0 && listed.stdoutText.contains(text), "\(listed.stdoutText) lacks \(text)")
        }
        let info = try CLI.run(["info", "mobilenet075"])
        #expect(info.status == 0 && info.stdoutText.contains("network       graph: 32 operations") && info.stdoutText.contains("multiply-adds"),
                "\(info.stdoutText)")
    }
}
