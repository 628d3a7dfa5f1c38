import Foundation
import Testing

/// `posekit actions --classifier` with the model's labels everywhere and `--counter` choosing what is
/// counted, on the shared reference poses of a jumping-jack clip (no PoseNet run: `--poses`).
struct CreateMLCounterCommandTests {
    static let poses = CLI.shared.appendingPathComponent("reference/createml/poses/jumping_jacks_01.jsonl").path

    static func summary(_ result: CLI.Result) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.stderr)")
        let last = try #require(result.lines.last)
        return try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
    }

    @Test func countersFollowTheMappingUnderTheModelsLabels() throws {
        let model = CreateMLCommandTests.exercise.path
        let byName = try Self.summary(try CLI.run(["actions", "--classifier", model, "--poses", Self.poses]))
        let reps = try #require(byName["reps"] as? [String: Int])
        #expect(Set(reps.keys) == ["Jumping Jacks", "Burpees", "Lunges"] && reps["Jumping Jacks"]! >= 10, "\(reps)")
        #expect(Set(try #require(byName["rejected_reps"] as? [String: Int]).keys) == Set(reps.keys))
        // No counter for jumping jacks: the class is still predicted, but nothing is counted for it.
        let none = try CLI.run(["actions", "--classifier", model, "--counter", "Jumping Jacks=none", "--poses", Self.poses])
        let noneSummary = try Self.summary(none)
        #expect(Set(try #require(noneSummary["reps"] as? [String: Int]).keys) == ["Burpees", "Lunges"])
        #expect(noneSummary["label"] as? String == "Jumping Jacks")
        #expect(!none.stdoutText.contains("\"type\": \"rep\""))
    }

    @Test func badCounterOptionsAreUsageErrors() throws {
        let model = CreateMLCommandTests.exercise.path
        let cases: [([String], [String])] = [
            (["--classifier", model, "--counter", "Squats=squats"], ["'Squats'", "'Jumping Jacks'", "ExerciseClassifier.mlmodel"]),
            (["--classifier", model, "--counter", "Lunges"], ["LABEL=COUNTER"]),
            (["--classifier", model, "--counter", "Lunges=planks"], ["planks", "jumping_jacks, lunges, burpees, squats"]),
            (["--classifier", model, "--counter", "Other Action=lunges"], ["'Other Action'", "'Lunges'", "lunges counter"]),
            (["--counter", "Lunges=none"], ["--classifier"]),
        ]
        for (arguments, words) in cases {
            let result = try CLI.run(["actions"] + arguments + ["--poses", Self.poses])
            #expect(result.status == 2 && result.stdout.isEmpty, "\(arguments): \(result.status) \(result.stderr)")
            for word in words { #expect(result.stderr.contains(word), "\(arguments): \(result.stderr) lacks \(word)") }
        }
    }
}
