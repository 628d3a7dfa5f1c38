import Foundation
import PoseCore
import Testing
@testable import ActionNet

/// PoseKit poses → Create ML windows as the reference README states the convention (Vision's
/// joint order, x = px/width, y = 1 − py/height, the neck as the shoulders' midpoint), and the
/// engine and ``ActionRecognizer`` running ExerciseClassifier on the shared clips' poses.
struct CreateMLWindowTests {
    static func poses(_ clip: String) throws -> [PoseFrame] {
        let url = CreateMLReference.shared.appendingPathComponent("reference/createml/poses/\(clip).jsonl")
        var decoder = PoseJSONLinesDecoder(defaultFPS: 30)
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").compactMap { try decoder.decode(line: String($0)) }
    }

    /// Each reference clip window, rebuilt row by row from the PoseKit frames it lists
    /// (`source_frames`; per frame the highest-scoring pose, as the README says), is the .npy the
    /// reference made.
    @Test(arguments: CreateMLReference.models.map(\.name))
    func visionRowsRebuildTheReferenceWindows(_ name: String) throws {
        let expected = try CreateMLReference.expected(name)
        let data = try JSONSerialization.jsonObject(with: Data(contentsOf: CreateMLReference.folder(name).appendingPathComponent("expected.json"))) as! [String: Any]
        let cases = (data["cases"] as! [[String: Any]]).filter { $0["kind"] as? String == "clip" }
        #expect(cases.count == 10)
        var worst: Float = 0
        for testCase in cases {
            let frames = try Self.poses(testCase["clip"] as! String)
            let sources = testCase["source_frames"] as! [Int]
            #expect(sources.count == expected.model.input[0])
            let rebuilt = sources.flatMap { index -> [Float] in
                let frame = frames.first { $0.frame == index }!
                return VisionPoseRow.values(for: frame.poses.max { $0.score < $1.score }, width: frame.width, height: frame.height)
            }
            let reference = try CreateMLReference.window(name, testCase["file"] as! String)
            worst = max(worst, zip(rebuilt, reference).map { abs($0 - $1) }.max()!)
        }
        #expect(worst <= 1e-6, "largest difference from the reference windows: \(worst)")
    }

    /// ExerciseClassifier through ``ActionRecognizer`` on the prominent person of `lunges_02` and
    /// `jumping_jacks_01`: predictions carry the model's labels as spelled, the summary names the
    /// clip's exercise, and repetitions are counted for it.
    @Test(arguments: [("lunges_02", "Lunges", ActionClass.lunges), ("jumping_jacks_01", "Jumping Jacks", .jumpingJacks)])
    func recognizerLabelsClipsWithTheModelsClasses(clip: String, label: String, exercise: ActionClass) throws {
        let recognizer = try ActionRecognizer(createMLModel: CreateMLReference.modelURL("ExerciseClassifier"))
        #expect(recognizer.windowLength == 64 && recognizer.configuration.fps == 30 && recognizer.configuration.windowStride == 10)
        // The frames' "id"s are dropped: the poses come from an older PoseKit, whose identities the
        // engine would otherwise follow; the engine tracks the people itself.
        let frames = try Self.poses(clip).map { frame -> PoseFrame in
            var unnamed = frame
            for i in unnamed.poses.indices { unnamed.poses[i].id = nil }
            return unnamed
        }
        let events = try recognizer.events(for: frames)
        let predictions = events.compactMap { event -> WindowPrediction? in if case .prediction(let p) = event { return p } else { return nil } }
        #expect(predictions.count >= 10)
        for p in predictions {
            #expect(p.classNames == ["Other Action", "Jumping Jacks", "Burpees", "Lunges"])
            #expect(p.label.isClass == false || p.classNames.contains(p.label.name))
        }
        #expect(predictions.filter { $0.label == .modelClass(label) }.count * 10 >= predictions.count * 9, "\(predictions.map(\.label.name))")
        guard case .summary(let summary) = events.last else { Issue.record("no summary"); return }
        #expect(summary.label == .modelClass(label))
        #expect(summary.reps[exercise]! >= 3, "\(summary.reps)")
        #expect(events.last!.jsonLine.contains("\"seconds\": {\"\(label)\": "))
    }

    @Test func createMLLabelsMapToOurExercises() {
        #expect(ActionClass(createMLLabel: "Jumping Jacks") == .jumpingJacks)
        #expect(ActionClass(createMLLabel: "jumping_jack") == .jumpingJacks)
        #expect(ActionClass(createMLLabel: "Lunges") == .lunges)
        #expect(ActionClass(createMLLabel: "Burpees") == .burpees)
        #expect(ActionClass(createMLLabel: "Squat") == .squats)
        #expect(ActionClass(createMLLabel: "Other Action") == nil)
        #expect(ActionClass(createMLLabel: "overhand") == nil)
    }
}
