import Foundation
import PoseCore
import Testing
@testable import ActionNet

/// Which classes are counted, by which counter, under which label (``RepetitionCounterMapping``):
/// a Create ML model's labels everywhere, nothing for a class it lacks.
struct RepetitionCounterMappingTests {
    static let exerciseLabels = ["Other Action", "Jumping Jacks", "Burpees", "Lunges"]

    @Test func labelsThatNameAnExerciseGetItsCounter() {
        let mapping = RepetitionCounterMapping.matchingNames(Self.exerciseLabels)
        #expect(mapping.entries == [.init(label: "Jumping Jacks", counter: .jumpingJacks), .init(label: "Burpees", counter: .burpees),
                                    .init(label: "Lunges", counter: .lunges)])
        #expect(mapping.counter(forLabel: "Other Action") == nil && mapping.label(for: .squats) == nil)
        #expect(RepetitionCounterMapping.matchingNames(["none", "overhand", "underhand", "underleg"]).entries.isEmpty)
        #expect(RepetitionCounterMapping.actionNet.entries.map(\.label) == ["jumping_jacks", "lunges", "burpees", "squats"])
    }

    @Test func overridesAddDropAndAreChecked() throws {
        let base = RepetitionCounterMapping.matchingNames(Self.exerciseLabels)
        let drop: [String: ActionClass?] = ["Lunges": ActionClass?.none]
        let noLunges = try base.applying(drop, labels: Self.exerciseLabels)
        #expect(noLunges.entries.map(\.label) == ["Jumping Jacks", "Burpees"])
        let otherAsSquats = try base.applying(["Other Action": .squats], labels: Self.exerciseLabels)
        #expect(otherAsSquats.entries.first == .init(label: "Other Action", counter: .squats))
        #expect(throws: ActionNetError.self) { try base.applying(["Squats": .squats], labels: Self.exerciseLabels) }
        do {
            _ = try base.applying(["Squats": .squats], labels: Self.exerciseLabels)
        } catch {
            #expect("\(error)".contains("'Squats'") && "\(error)".contains("'Jumping Jacks'"), "\(error)")
        }
        // Two classes on one counter would make its count ambiguous.
        #expect(throws: ActionNetError.self) { try base.applying(["Other Action": .lunges], labels: Self.exerciseLabels) }
        #expect(throws: ActionNetError.self) { try RepetitionCounterMapping([.init(label: "x", counter: .other)]) }
    }

    /// The summary and the repetition lines of a Create ML model speak its labels, and list only
    /// its counted classes.
    @Test func jsonUsesTheModelsLabelsOnly() {
        let mapping = RepetitionCounterMapping.matchingNames(Self.exerciseLabels)
        let summary = ActionSummary(frames: 90, label: .modelClass("Jumping Jacks"), seconds: [.modelClass("Jumping Jacks"): 3],
                                    reps: [.jumpingJacks: 4, .burpees: 0, .lunges: 0], rejectedReps: [.lunges: 1],
                                    classLabels: Self.exerciseLabels.map { .modelClass($0) }, counters: mapping)
        #expect(ActionEvent.summary(summary).jsonLine.hasSuffix(
            "\"reps\": {\"Jumping Jacks\": 4, \"Burpees\": 0, \"Lunges\": 0}, \"rejected_reps\": {\"Jumping Jacks\": 0, \"Burpees\": 0, \"Lunges\": 1}}"))
        let cue = RepetitionCue.amplitude(armAngle: 150, feetApart: 2)
        let rep = RepetitionEvent(action: .jumpingJacks, count: 1, frame: 20, time: 0.667, cue: cue, label: "Jumping Jacks")
        #expect(ActionEvent.repetition(rep).jsonLine.hasPrefix("{\"type\": \"rep\", \"label\": \"Jumping Jacks\", \"count\": 1"))
    }

    /// ExerciseClassifier on the squat clip's poses: the model has no squat class, so the summary
    /// lists no squats (the old summary listed all four of ActionNet's exercises), and every
    /// `rep` label is one of the model's.
    @Test func aModelWithoutSquatsNeverReportsSquats() throws {
        let recognizer = try ActionRecognizer(createMLModel: CreateMLReference.modelURL("ExerciseClassifier"))
        let frames = try CreateMLWindowTests.poses("squats_01").map { frame -> PoseFrame in
            var unnamed = frame
            for i in unnamed.poses.indices { unnamed.poses[i].id = nil }
            return unnamed
        }
        let events = try recognizer.events(for: frames)
        let lines = events.map(\.jsonLine)
        #expect(!lines.last!.contains("squats"), "\(lines.last!)")
        #expect(lines.last!.contains("\"reps\": {\"Jumping Jacks\": "))
        for case .repetition(let r) in events { #expect(Self.exerciseLabels.contains(r.label)) }
    }
}
