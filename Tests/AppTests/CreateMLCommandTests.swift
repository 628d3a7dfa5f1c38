import Foundation
import Testing

/// `posekit actions --classifier MODEL --window FILE` and `posekit info MODEL.mlmodel` on Apple's
/// Create ML classifiers, and every kind of bad input: one line on stderr, exit 1, stdout empty.
struct CreateMLCommandTests {
    static let exercise = CLI.shared.appendingPathComponent("weights/createml-exercise-classifier/ExerciseClassifier.mlmodel")
    static let player = CLI.shared.appendingPathComponent("weights/createml-player-action-classifier/PlayerActionClassifier.mlmodel")
    static let references = CLI.shared.appendingPathComponent("reference/createml")

    /// The reference case's expected probabilities (label → p) and top label.
    static func expected(_ model: String, _ file: String) throws -> (probabilities: [String: Double], top: String) {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: references.appendingPathComponent("\(model)/expected.json"))) as! [String: Any]
        let found = (json["cases"] as! [[String: Any]]).first { $0["file"] as? String == file }!
        return (found["probabilities"] as! [String: Double], found["top"] as! String)
    }

    static func prediction(_ result: CLI.Result) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 1)
        return try JSONSerialization.jsonObject(with: Data(result.lines.first!.utf8)) as! [String: Any]
    }

    /// Exit 1, exactly one line on stderr, nothing on stdout.
    static func expectOneLineError(_ result: CLI.Result, mentioning words: [String], _ comment: String) {
        #expect(result.status == 1, "\(comment): status \(result.status)")
        #expect(result.stdout.isEmpty, "\(comment): stdout \(result.stdoutText)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(comment): stderr \(result.stderr)")
        for word in words { #expect(result.stderr.contains(word), "\(comment): \(result.stderr) lacks \(word)") }
    }

    @Test(arguments: [("ExerciseClassifier", "lunges_02__s0160.npy"), ("PlayerActionClassifier", "jumping_jacks_01__s0032.npy")])
    func windowFilePrintsTheReferencePrediction(model: String, file: String) throws {
        let url = model == "ExerciseClassifier" ? Self.exercise : Self.player
        let result = try CLI.run(["actions", "--classifier", url.path, "--window", Self.references.appendingPathComponent("\(model)/\(file)").path])
        let line = try Self.prediction(result)
        let (probabilities, top) = try Self.expected(model, file)
        #expect(line["type"] as? String == "prediction")
        #expect(line["label"] as? String == top)
        let printed = line["probabilities"] as! [String: Double]
        #expect(Set(printed.keys) == Set(probabilities.keys))
        for (label, p) in probabilities { #expect(abs(printed[label]! - p) < 2e-6, "\(label)") }
        // The labels come in the model's output order.
        let order = result.lines[0].components(separatedBy: "\"probabilities\": {")[1]
        let positions = ["Other Action", "Jumping Jacks", "Burpees", "Lunges", "none", "overhand", "underhand", "underleg"]
            .compactMap { order.range(of: "\"\($0)\"")?.lowerBound }
        #expect(positions == positions.sorted() && positions.count == 4)
    }

    /// The same window as JSON nested arrays gives the same line as the .npy.
    @Test func jsonWindowMatchesNpy() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let npy = Self.references.appendingPathComponent("ExerciseClassifier/jumping_jacks_02__s0032.npy")
        let bytes = try Data(contentsOf: npy)
        var floats: [Double] = []
        for i in 0..<(64 * 54) {
            var bits: UInt32 = 0
            for k in 0..<4 { bits |= UInt32(bytes[128 + 4 * i + k]) << (8 * UInt32(k)) }
            floats.append(Double(Float(bitPattern: bits)))
        }
        var nested: [[[Double]]] = []
        for t in 0..<64 {
            nested.append((0..<3).map { c in Array(floats[(t * 54 + c * 18)..<(t * 54 + c * 18 + 18)]) })
        }
        let json = dir.appendingPathComponent("window.json")
        try JSONSerialization.data(withJSONObject: nested).write(to: json)
        let fromJSON = try CLI.run(["actions", "--classifier", Self.exercise.path, "--window", json.path])
        let fromNpy = try CLI.run(["actions", "--classifier", Self.exercise.path, "--window", npy.path])
        #expect(fromJSON.status == 0 && fromJSON.stdoutText == fromNpy.stdoutText, "\(fromJSON.stderr)")
    }

    @Test func infoDescribesBothModels() throws {
        let exercise = try CLI.run(["info", Self.exercise.path])
        #expect(exercise.status == 0, "\(exercise.stderr)")
        for part in ["105 layers", "64 frames at 30 frames/s", "Other Action, Jumping Jacks, Burpees, Lunges", "Apple Inc.",
                     "216fb25ed4918ae9e354e43d1d3a2793e04507e8f4813367151c69a90020bc27", "[64, 3, 18]"] {
            #expect(exercise.stdoutText.contains(part), "\(part)")
        }
        let player = try CLI.run(["info", Self.player.path])
        for part in ["117 layers", "45 frames at 30 frames/s", "none, overhand, underhand, underleg", "Action classifier for WWDC 2020"] {
            #expect(player.stdoutText.contains(part), "\(part)")
        }
    }

    /// A copy of ExerciseClassifier with `pattern` replaced by `replacement` (same length, so
    /// the protobuf stays well-formed).
    static func patchedModel(in dir: URL, _ pattern: [UInt8], _ replacement: [UInt8]) throws -> URL {
        var bytes = [UInt8](try Data(contentsOf: exercise))
        let at = (0...(bytes.count - pattern.count)).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }!
        bytes.replaceSubrange(at..<(at + pattern.count), with: replacement)
        let url = dir.appendingPathComponent("patched-\(UUID().uuidString).mlmodel")
        try Data(bytes).write(to: url)
        return url
    }

    @Test func badModelsAreOneLineErrors() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let window = Self.references.appendingPathComponent("ExerciseClassifier/zeros.npy").path
        let whole = try Data(contentsOf: Self.exercise)
        let truncated = dir.appendingPathComponent("truncated.mlmodel")
        try whole.prefix(whole.count / 2).write(to: truncated)
        let corrupt = dir.appendingPathComponent("corrupt.mlmodel")
        try Data("this is not a model\n".utf8).write(to: corrupt)
        // The first layer's kind, expandDims (field 1125, key AA 46), becomes flattenTo2D (1130, key D2 46).
        let unknownKind = try Self.patchedModel(in: dir, [0xAA, 0x46, 0x03, 0x0A, 0x01, 0x00], [0xD2, 0x46, 0x03, 0x0A, 0x01, 0x00])
        // The input shape [64, 3, 18] becomes [64, 3, 17].
        let badInput = try Self.patchedModel(in: dir, [0x0A, 0x03, 0x40, 0x03, 0x12], [0x0A, 0x03, 0x40, 0x03, 0x11])
        let posenet = CLI.shared.appendingPathComponent("weights/posenet-mobilenet075-s16-coreml/PoseNetMobileNet075S16FP16.mlmodel")
        let cases: [(URL, [String])] = [
            (truncated, ["truncated.mlmodel", "truncated"]),
            (corrupt, ["corrupt.mlmodel"]),
            (unknownKind, ["expand_input", "flattenTo2D"]),
            (badInput, ["[64, 3, 17]", "[T, 3, 18]"]),
            (posenet, ["PoseNetMobileNet075S16FP16.mlmodel", "not a Core ML action classifier"]),
        ]
        for (model, words) in cases {
            Self.expectOneLineError(try CLI.run(["actions", "--classifier", model.path, "--window", window]), mentioning: words, "actions \(model.lastPathComponent)")
            Self.expectOneLineError(try CLI.run(["info", model.path]), mentioning: words, "info \(model.lastPathComponent)")
        }
    }

    @Test func badWindowsAreOneLineErrors() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(_ name: String, _ text: String) throws -> String { try CLI.textFile(name, text, in: dir) }
        let frame = "[" + Array(repeating: "[" + Array(repeating: "0.5", count: 18).joined(separator: ",") + "]", count: 3).joined(separator: ",") + "]"
        // A Player window (45 frames) to the Exercise model (64), a wrong joint count, ragged rows,
        // non-numbers, and a NaN in an otherwise good .npy.
        let player = Self.references.appendingPathComponent("PlayerActionClassifier/zeros.npy").path
        var nan = [UInt8](try Data(contentsOf: Self.references.appendingPathComponent("ExerciseClassifier/zeros.npy")))
        nan.replaceSubrange((128 + 4 * 100)..<(132 + 4 * 100), with: [0x00, 0x00, 0xC0, 0x7F])
        let nanURL = dir.appendingPathComponent("nan.npy")
        try Data(nan).write(to: nanURL)
        let cases: [(String, [String])] = [
            (player, ["[45, 3, 18]", "[64, 3, 18]"]),
            (try write("joints.json", "[[[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]]"), ["row 0 has 2 values", "[T, 3, 18]"]),
            (try write("ragged.json", "[" + frame + ", [[1]]]"), ["ragged"]),
            (try write("text.json", "{\"poses\": 1}"), ["nested arrays"]),
            (nanURL.path, ["nan", "[1, 2, 10]"]),
            (dir.appendingPathComponent("missing.npy").path, ["missing.npy"]),
        ]
        for (window, words) in cases {
            let result = try CLI.run(["actions", "--classifier", Self.exercise.path, "--window", window])
            Self.expectOneLineError(result, mentioning: words, window)
        }
    }
}

/// `posekit actions --classifier` on a video: the same event stream as ActionNet's, with the
/// model's labels (runs PoseNet, so one short clip).
@Suite(.serialized) struct CreateMLVideoCommandTests {
    @Test func videoEventsCarryTheModelsLabels() throws {
        let video = CLI.shared.appendingPathComponent("media/videos/ahmedlila_jumping-jacks-counter__3_Count_Jumping_Jacks.mp4")
        let y4m = try CLI.ffmpeg(["-ss", "0", "-i", video.path, "-t", "4", "-an",
                                  "-vf", "scale='min(640,iw)':-2:flags=lanczos,format=yuv420p", "-f", "yuv4mpegpipe", "-"])
        let result = try CLI.run(["actions", "--classifier", CreateMLCommandTests.exercise.path, "-"], stdin: y4m)
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let predictions = objects.filter { $0["type"] as? String == "prediction" }
        #expect(predictions.count >= 5)
        for p in predictions {
            #expect(Set((p["probabilities"] as! [String: Double]).keys) == ["Other Action", "Jumping Jacks", "Burpees", "Lunges"])
        }
        #expect(predictions.allSatisfy { $0["label"] as? String == "Jumping Jacks" }, "\(predictions.map { $0["label"] ?? "" })")
        let summary = objects.last!
        #expect(summary["type"] as? String == "summary" && summary["label"] as? String == "Jumping Jacks")
        // The model's labels in the summary too, and only its classes with a counter (it has no squats).
        let reps = summary["reps"] as! [String: Int]
        #expect(Set(reps.keys) == ["Jumping Jacks", "Burpees", "Lunges"], "\(reps)")
        #expect((reps["Jumping Jacks"] ?? 0) >= 3)
        for rep in objects where rep["type"] as? String == "rep" { #expect(rep["label"] as? String == "Jumping Jacks") }
    }
}

/// A Create ML model kept where weight bundles are is found by its short name.
struct CreateMLModelByNameTests {
    @Test func shortNameFindsTheModelInTheWeightsDirectory() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: CreateMLCommandTests.exercise, to: dir.appendingPathComponent("ExerciseClassifier.mlmodel"))
        let window = CreateMLCommandTests.references.appendingPathComponent("ExerciseClassifier/lunges_02__s0032.npy").path
        let env = ["POSEKIT_WEIGHTS_DIR": dir.path]
        let byName = try CLI.run(["actions", "--classifier", "ExerciseClassifier", "--window", window], environment: env)
        let byPath = try CLI.run(["actions", "--classifier", CreateMLCommandTests.exercise.path, "--window", window])
        #expect(byName.status == 0 && byName.stdoutText == byPath.stdoutText, "\(byName.stderr)")
        let info = try CLI.run(["info", "ExerciseClassifier"], environment: env)
        #expect(info.status == 0 && info.stdoutText.contains("105 layers"), "\(info.stderr)")
        let missing = try CLI.run(["actions", "--classifier", "NoSuchClassifier", "--window", window], environment: env)
        // The places searched, each named: the current directory and every weights directory.
        CreateMLCommandTests.expectOneLineError(missing, mentioning: ["NoSuchClassifier", dir.path + "/NoSuchClassifier.mlmodel", "looked for"],
                                                "missing model")
    }
}
