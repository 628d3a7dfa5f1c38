import Foundation
import PoseEvaluation
import PoseKit
import PoseNetImport
import Protobuf
import Testing

/// Every public error type is a `LocalizedError` whose `localizedDescription` is the one line
/// `posekit` prints after `posekit: error: `, never Foundation's "The operation could not be
/// completed. (Module.Type error N.)"; an error about a file names it first. One case per type:
/// the error comes from a real library call, its text is written out here by hand, and where the
/// command meets the same problem its real stderr line must be exactly that text.
@Suite(.serialized) struct ErrorMessageTests {
    static let photo = CLI.shared.appendingPathComponent("media/images/coco_000000000785.ppm").path
    static let exerciseModel = CLI.shared.appendingPathComponent("weights/createml-exercise-classifier/ExerciseClassifier.mlmodel").path
    static let poseNetBundle = CLI.repositoryRoot.appendingPathComponent("Weights/mobilenet075.pkw").path

    /// `body` throws an `E` whose `localizedDescription` is `expected` (and the command's formatter,
    /// `PlainErrorMessage`, gives the same line); with `command`, `posekit` prints exactly
    /// `posekit: error: <expected>`.
    static func expectLine<E: Error>(_ type: E.Type, _ expected: String, command: [String]? = nil, stdin: Data? = nil,
                                     environment: [String: String] = [:],
                                     sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) throws {
        let error = try #require(throws: E.self, sourceLocation: sourceLocation) { try body() }
        #expect(error is LocalizedError, "\(E.self) is not a LocalizedError", sourceLocation: sourceLocation)
        #expect(error.localizedDescription == expected, sourceLocation: sourceLocation)
        #expect(!error.localizedDescription.contains("The operation could not be completed"), sourceLocation: sourceLocation)
        #expect(PlainErrorMessage.describe(error) == expected, sourceLocation: sourceLocation)
        if let command {
            let result = try CLI.run(command, stdin: stdin, environment: environment)
            #expect(result.status == 1 && result.stderr == "posekit: error: \(expected)\n", "posekit \(command)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func tensorModule() throws {
        try Self.expectLine(TensorError.self, "shape mismatch: 3 values for shape [2, 3] (6 elements)") {
            _ = try Tensor(shape: [2, 3], values: [1, 2, 3])
        }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let garbage = dir.appendingPathComponent("garbage.pkw").path
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: garbage))
        try Self.expectLine(WeightBundleError.self,
                            "\(garbage): not a PoseKit weight bundle (no PKWEIGHT magic); import models with `posekit import`",
                            command: ["info", garbage]) {
            _ = try WeightBundle(contentsOf: URL(fileURLWithPath: garbage))
        }
        // Writing a bundle where a regular file stands in for its directory: the system's words
        // (EEXIST from creating the directory), not Foundation's `Error Domain=NSCocoaErrorDomain ...`.
        let notADirectory = dir.appendingPathComponent("file.txt")
        try Data("x".utf8).write(to: notADirectory)
        let unwritable = notADirectory.appendingPathComponent("x.pkw").path
        try Self.expectLine(WeightBundleError.self, "\(unwritable): cannot write: File exists") {
            let writer = WeightBundleWriter(manifest: try WeightBundle(contentsOf: URL(fileURLWithPath: Self.poseNetBundle)).manifest)
            try writer.write(to: URL(fileURLWithPath: unwritable))
        }
        // Where the library and the command look for a model by name: here, the user directory
        // and this checkout's Weights/; a name that is no bundle of PoseKit's gets the names, not weights install.
        let environment = ["POSEKIT_WEIGHTS_DIR": dir.path, "XDG_DATA_HOME": dir.appendingPathComponent("data").path]
        let checkout = CLI.repositoryRoot.appendingPathComponent("Weights").path
        try Self.expectLine(ModelLocator.NotFound.self,
                            "model 'no-such-model' not found (looked in \(dir.path), \(dir.path)/data/posekit/weights, \(checkout)): not one of PoseKit's bundles (bundles: \(ModelCatalogue.bundleNames.joined(separator: ", ")))",
                            command: ["info", "no-such-model"], environment: environment) {
            _ = try ModelLocator.resolve("no-such-model", environment: environment)
        }
    }

    @Test func poseCoreModule() throws {
        try Self.expectLine(PoseDataError.self, "poses line 1: not valid JSON",
                            command: ["actions", "--poses", "-"], stdin: Data("{\"frame\": 0, \"poses\": [\n".utf8)) {
            var decoder = PoseJSONLinesDecoder()
            _ = try decoder.decode(line: "{\"frame\": 0, \"poses\": [")
        }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing.mlmodel").path
        try Self.expectLine(RegularFileError.self, "\(missing): No such file or directory", command: ["info", missing]) {
            _ = try RegularFile.contents(atPath: missing)
        }
    }

    @Test func frameIOModule() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let truncated = dir.appendingPathComponent("truncated.ppm").path
        try Data("P6\n4 4\n255\n".utf8 + [UInt8](repeating: 200, count: 10)).write(to: URL(fileURLWithPath: truncated))
        try Self.expectLine(FrameIOError.self, "\(truncated): pnm: input ends inside frame 0 (10 of 48 bytes)",
                            command: ["pose", truncated]) {
            _ = try RGBImage(contentsOfFile: truncated)
        }
    }

    @Test func poseNetModule() throws {
        try Self.expectLine(PoseNetError.self, "input size must be within 17...4097, got 9") {
            _ = try PoseDetector(model: .mobilenet075, configuration: PoseDetector.Configuration(inputSize: 9))
        }
        try Self.expectLine(PoseDecodingError.self, "decoder parameter out of range: nmsRadius must be finite and ≥ 0, got -1.0") {
            try MultiPoseParameters(nmsRadius: -1).validate()
        }
        // A bundle of the wrong network, given as a file: named by its path.
        let actionNet = CLI.repositoryRoot.appendingPathComponent("Weights/actionnet.pkw").path
        try Self.expectLine(WeightBundleError.self, "\(actionNet): holds actionnet weights, not posenet weights",
                            command: ["pose", "--model", actionNet, Self.photo]) {
            _ = try PoseDetector(model: .bundle(URL(fileURLWithPath: actionNet)))
        }
    }

    @Test func actionNetModule() throws {
        try Self.expectLine(ActionNetError.self, "invalid configuration: a window of 0 frames, but the classifier takes 60") {
            _ = try ActionRecognizer().classify(PoseWindow(frames: []))
        }
        try Self.expectLine(WeightBundleError.self, "\(Self.poseNetBundle): holds posenet weights, not actionnet weights",
                            command: ["actions", "--weights", Self.poseNetBundle, "--poses", "-"]) {
            _ = try ActionRecognizer(weightsURL: URL(fileURLWithPath: Self.poseNetBundle))
        }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let corrupt = dir.appendingPathComponent("corrupt.mlmodel").path
        try Data("this is not a model\n".utf8).write(to: URL(fileURLWithPath: corrupt))
        try Self.expectLine(CoreMLModelError.self,
                            "\(corrupt): not a readable Core ML model (malformed protobuf: wire type 4 for field 14 at byte 0)",
                            command: ["info", corrupt]) {
            _ = try ActionRecognizer(createMLModel: URL(fileURLWithPath: corrupt))
        }
        let missing = dir.appendingPathComponent("missing.mlmodel").path
        try Self.expectLine(RegularFileError.self, "\(missing): No such file or directory",
                            command: ["actions", "--classifier", missing, "--poses", "-"]) {
            _ = try CreateMLActionClassifier(contentsOf: URL(fileURLWithPath: missing))
        }
        // Window files: the path first, for a file that is not a window and for one that is not there.
        let text = dir.appendingPathComponent("text.json").path
        try Data("{\"poses\": 1}".utf8).write(to: URL(fileURLWithPath: text))
        try Self.expectLine(CoreMLModelError.self, "\(text): window: JSON holds something other than nested arrays of numbers",
                            command: ["actions", "--classifier", Self.exerciseModel, "--window", text]) {
            _ = try PoseWindowFile.read(contentsOf: URL(fileURLWithPath: text))
        }
        let noWindow = dir.appendingPathComponent("none.npy").path
        try Self.expectLine(CoreMLModelError.self, "\(noWindow): window: No such file or directory",
                            command: ["actions", "--classifier", Self.exerciseModel, "--window", noWindow]) {
            _ = try PoseWindowFile.read(contentsOf: URL(fileURLWithPath: noWindow))
        }
    }

    /// The tool modules the command is built from: the protobuf reader, the importers, COCO evaluation.
    @Test func toolModules() throws {
        try Self.expectLine(ProtobufError.self, "truncated protobuf: field 1 at byte 0 claims 5 bytes, 0 remain") {
            _ = try ProtobufMessage(buffer: [0x0A, 0x05]).fields()
        }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let garbage = dir.appendingPathComponent("garbage.pb").path
        try Data(repeating: 0xFF, count: 64).write(to: URL(fileURLWithPath: garbage))
        try Self.expectLine(ImportError.self, "\(garbage): unrecognized model format: not a protobuf file (Core ML .mlmodel or TensorFlow .pb expected)",
                            command: ["import", garbage, "-o", dir.appendingPathComponent("x.pkw").path]) {
            _ = try WeightImporter.importModel(at: URL(fileURLWithPath: garbage))
        }
        let truth = dir.appendingPathComponent("missing.json").path
        try Self.expectLine(EvaluationError.self, "invalid ground truth: \(truth): No such file or directory",
                            command: ["eval", "--ground-truth", truth, Self.photo]) {
            _ = try CocoKeypointDataset(contentsOf: URL(fileURLWithPath: truth))
        }
    }

    /// `actions --poses FILE` names the file before the line (the library reads lines, not files).
    @Test func poseLinesFileIsNamed() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let poses = try CLI.textFile("bad.jsonl", "{\"frame\": 0, \"poses\": [\n", in: dir)
        let result = try CLI.run(["actions", "--poses", poses])
        #expect(result.status == 1 && result.stderr == "posekit: error: \(poses): poses line 1: not valid JSON\n", "\(result.stderr)")
    }
}
