import Foundation
import Testing

/// `posekit import` and `posekit info` on TFLite models and the graph bundles they make: what a
/// user sees, and one line with exit 1 for a file the importer refuses.
@Suite struct GraphImportCommandTests {
    static let models = CLI.shared.appendingPathComponent("weights/mediapipe-0.10.14")
    static let handLite = models.appendingPathComponent("hand_landmark_lite.tflite").path

    @Test func importsATFLiteModelAndDescribesItAndItsBundle() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = dir.appendingPathComponent("hand_landmark_lite.pkw").path
        let imported = try CLI.run(["import", Self.handLite, "-o", bundle])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdoutText.contains("imported hand_landmark_lite.tflite (tflite, 167 operators) → \(bundle): 65 operations, 1011712 parameters, 145.6 M multiply-adds"))

        // The same facts from the .tflite and from the bundle (README §2/§3: input_1 [1,224,224,3], four outputs).
        for source in [Self.handLite, bundle] {
            let info = try CLI.run(["info", source])
            #expect(info.status == 0, "\(info.stderr)")
            let text = info.stdoutText
            #expect(text.contains("input         input_1 [1, 224, 224, 3]"), "\(text)")
            for (i, (name, shape)) in [("Identity", "[1, 63]"), ("Identity_1", "[1, 1]"), ("Identity_2", "[1, 1]"), ("Identity_3", "[1, 63]")].enumerated() {
                #expect(text.contains("output \(i)      \(name) \(shape)"), "\(text)")
            }
            #expect(text.contains("conv2D 31, depthwiseConv2D 16, add 10"))
            #expect(text.contains("parameters    1011712"))
            #expect(text.contains("multiply-adds 145.6 M (conv2D 123.9 M, depthwiseConv2D 21.6 M, fullyConnected 0.09 M)"), "\(text)")
            #expect(text.contains("048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6"))
            #expect(text.contains("Apache-2.0"))
        }
        let stored = try CLI.run(["info", Self.handLite]).stdoutText
        #expect(stored.contains("stored ops    167: DEQUANTIZE 102, CONV_2D 31, DEPTHWISE_CONV_2D 16, ADD 10"))
    }

    @Test func refusedFilesGiveOneLineAndExitOne() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.handLite))
        let truncated = dir.appendingPathComponent("truncated.tflite")
        try whole.prefix(3000).write(to: truncated)
        // (Unsupported ops, cycles, lying sparsity: Tests/TFLiteTests, through the same error type.)
        for arguments in [["import", truncated.path, "-o", dir.appendingPathComponent("x.pkw").path], ["info", truncated.path]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("posekit: error: \(truncated.path): not a valid TFLite file: byte "), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.pkw").path))
    }

    /// `info` knows a TFLite model by its content (`TFL3` at byte 4), not by its name: a renamed
    /// model is described (0.10 sent it to the bundle reader, which refused it); a file named
    /// `.tflite` that is not one is one line naming it, exit 1.
    @Test func infoRecognizesTFLiteByContent() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let renamed = dir.appendingPathComponent("hand-model.bin")
        try FileManager.default.copyItem(atPath: Self.handLite, toPath: renamed.path)
        let info = try CLI.run(["info", renamed.path])
        #expect(info.status == 0, "\(info.stderr)")
        let size = try Data(contentsOf: renamed).count
        #expect(info.stdoutText.hasPrefix("\(renamed.path)  (\(size) bytes, TFLite schema version 3"), "\(info.stdoutText)")
        #expect(info.stdoutText.contains("parameters    1011712"), "\(info.stdoutText)")

        let impostor = dir.appendingPathComponent("model.tflite")
        try Data("P6\n1 1\n255\n\u{0}\u{0}\u{0}".utf8).write(to: impostor)
        let refused = try CLI.run(["info", impostor.path])
        #expect(refused.status == 1)
        #expect(refused.stderr == "posekit: error: \(impostor.path): not a TFLite model (no TFL3 file identifier at byte 4)\n", "\(refused.stderr)")
    }

    @Test func importHelpTeachesTFLite() throws {
        let help = try CLI.run(["import", "--help"]).stdoutText
        #expect(help.contains("mediapipe-0.10.14/pose_detection.tflite"))
        #expect(help.contains("A TFLite model (MediaPipe's pose, palm and hand models) becomes a graph bundle"))
        #expect(help.contains("--license"))
    }
}
