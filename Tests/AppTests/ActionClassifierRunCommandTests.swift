import Foundation
import Testing

/// `posekit run` and `posekit info` on the action classifiers, which run as graphs like every
/// other model: a Create ML `.mlmodel` gives the independent float64 reference's probabilities
/// for its golden windows; ActionNet's weights give the probabilities and logits
/// `posekit actions` labels windows with (softmax of the logits); both list their inputs and
/// outputs named, with the batch axis, in `run --list` and `info`.
struct ActionClassifierRunCommandTests {
    static let references = CLI.shared.appendingPathComponent("reference/createml")

    @Test(arguments: [("ExerciseClassifier", "lunges_02__s0160.npy", 64), ("PlayerActionClassifier", "jumping_jacks_01__s0032.npy", 45)])
    func aCreateMLModelRunsOnItsWindow(model: String, window: String, frames: Int) throws {
        let url = model == "ExerciseClassifier" ? CreateMLCommandTests.exercise : CreateMLCommandTests.player
        let listed = try CLI.run(["run", url.path, "--list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.lines == ["inputs", "  0  poses  [1, \(frames), 3, 18]", "outputs", "  0  labelProbabilities  [1, 4]"], "\(listed.lines)")
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["run", url.path, "--input", Self.references.appendingPathComponent("\(model)/\(window)").path,
                                  "--output", dir.path, "--threads", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let got = try RunCommandTests.npy(dir.appendingPathComponent("labelProbabilities.npy"))
        let (probabilities, _) = try CreateMLCommandTests.expected(model, window)
        let labels = model == "ExerciseClassifier" ? ["Other Action", "Jumping Jacks", "Burpees", "Lunges"] : ["none", "overhand", "underhand", "underleg"]
        #expect(got.shape == [1, 4])
        for (label, value) in zip(labels, got.values) {
            #expect(abs(Double(value) - probabilities[label]!) < 1e-5, "\(model) \(label): \(value), reference \(probabilities[label]!)")
        }
        let info = try CLI.run(["info", url.path])
        #expect(info.status == 0 && info.stdoutText.contains("run input 0   poses [1, \(frames), 3, 18]")
                && info.stdoutText.contains("run output 0  labelProbabilities [1, 4]") && info.stdoutText.contains("conv2D"), "\(info.stdoutText)")
    }

    @Test func actionNetRunsAsAGraph() throws {
        let listed = try CLI.run(["run", "actionnet", "--list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.lines.count == 5 && listed.lines[1].contains("features  [1, 60, 51]")
                && listed.lines[3].contains("probabilities  [1, 5]") && listed.lines[4].contains("logits  [1, 5]"), "\(listed.lines)")
        // A window of features, [1, 60, 51] as a NumPy file.
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 60, 51), }"
        header += String(repeating: " ", count: (64 - (10 + header.count + 1) % 64) % 64) + "\n"
        var bytes = Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)])
        bytes.append(Data(header.utf8))
        let features: [Float] = (0..<(60 * 51)).map { (i: Int) -> Float in Float((i * 7919) % 1009) / 1009 - 0.5 }
        features.withUnsafeBytes { bytes.append(contentsOf: $0) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("features.npy")
        try bytes.write(to: input)
        let result = try CLI.run(["run", "actionnet", "--input", input.path, "--output", dir.appendingPathComponent("out").path])
        #expect(result.status == 0, "\(result.stderr)")
        let probabilities = try RunCommandTests.npy(dir.appendingPathComponent("out/probabilities.npy"))
        let logits = try RunCommandTests.npy(dir.appendingPathComponent("out/logits.npy"))
        #expect(probabilities.shape == [1, 5] && logits.shape == [1, 5])
        let peak = logits.values.max()!
        let sum = logits.values.reduce(0.0) { $0 + exp(Double($1 - peak)) }
        for (p, l) in zip(probabilities.values, logits.values) {
            #expect(abs(Double(p) - exp(Double(l - peak)) / sum) < 1e-6, "softmax of the logits")
        }
        #expect(logits.values.contains { abs($0) > 0.1 }, "the window gives real logits: \(logits.values)")
        let info = try CLI.run(["info", "actionnet"])
        #expect(info.status == 0 && info.stdoutText.contains("run input 0   features [1, 60, 51]")
                && info.stdoutText.contains("run output 1  logits [1, 5]"), "\(info.stdoutText)")
    }
}
