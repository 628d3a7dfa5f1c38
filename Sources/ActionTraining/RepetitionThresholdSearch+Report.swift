import Foundation
@_spi(Training) import ActionNet

extension RepetitionThresholdSearch {
    /// The repetition thresholds' protocol as `posekit train-actions --choose-thresholds` prints it
    /// (markdown tables, line by line through `print`): leave-one-clip-out (each clip counted with
    /// the thresholds chosen, and the classifier trained, without it: `heldOutModel`), then the
    /// thresholds chosen on all clips with `classifier` (named `name`) and every clip counted with
    /// them and with ``RepetitionThresholds/shipped``, then `unseen` clips (their labels' name
    /// and a loader), on which nothing was chosen.
    public static func report(_ clips: [LabeledClip], heldOutModel: (LabeledClip, [LabeledClip]) throws -> TemporalConvNet,
                              classifier: () throws -> TemporalConvNet, named name: String,
                              unseen: (name: String, load: () throws -> [LabeledClip])?, print: (String) -> Void) throws {
        func counts(_ c: [ActionClass: Int]) -> String {
            let parts = ActionClass.exercises.filter { (c[$0] ?? 0) > 0 }.map { "\($0.name) \(c[$0]!)" }
            return parts.isEmpty ? "0" : parts.joined(separator: ", ")
        }
        func reading(_ x: Double?) -> String { x.map { String(format: "%.0f", $0) } ?? "-" }
        func given(_ choice: Choice) -> String {
            let names = choice.exercises.filter(\.zoneGiven).map(\.exercise.name)
            return names.isEmpty ? "" : " (zone given, no repetition to count: \(names.joined(separator: ", ")))"
        }
        func labeled(_ clip: LabeledClip) -> Int { clip.label == .other ? 0 : clip.repetitions ?? 0 }
        let heldOut = try leaveOneClipOut(clips, classifier: heldOutModel)
        print("Leave-one-clip-out: thresholds chosen on the other clips with the classifier trained without the clip")
        print("")
        print("| held-out clip | label | labeled reps | counted | rejected | exact | chosen on the other clips |")
        print("|---|---|---|---|---|---|---|")
        var exact = 0
        for h in heldOut {
            let expected = ActionClass.exercises.map { Self.expected($0, on: h.clip) }
            let isExact = ActionClass.exercises.map { h.run.counts[$0] ?? 0 } == expected
            if isExact { exact += 1 }
            print("| \(h.clip.name) | \(h.clip.label.name) | \(labeled(h.clip)) "
                  + "| \(counts(h.run.counts)) | \(counts(h.run.rejected)) | \(isExact ? "yes" : "no") | \(h.choice.thresholds)\(given(h.choice)) |")
        }
        print("")
        print("exact on \(exact) of \(heldOut.count) held-out clips")
        let net = try classifier()
        let all = try choose(on: clips, classifier: net)
        print("")
        print("On all \(clips.count) clips (classifier \(name)): \(all.thresholds)\(given(all))")
        print("")
        print("| exercise | zones with the least error | error | lowest repetition | highest counter-example | counted counter-examples | errors with the rules |")
        print("|---|---|---|---|---|---|---|")
        for e in all.exercises {
            print("| \(e.exercise.name) | \(e.bestZones.map { String(format: "%.3g", $0) }.joined(separator: " ")) | \(e.zoneError) "
                  + "| \(reading(e.lowestRepetition)) | \(reading(e.highestCounterExample)) | \(e.countedCounterExamples) | \(all.errors[e.exercise] ?? 0) |")
        }
        print("")
        for e in all.exercises where !e.counterExamples.isEmpty {
            print("counter-examples of \(e.exercise.name): " + e.counterExamples.map { String(format: "%@ %.2f s: %.0f", $0.clip, $0.time, $0.reading) }
                .joined(separator: "; "))
        }
        print("")
        /// A clip's row: labeled reps, counted and rejected with the thresholds chosen on all clips, counted
        /// (and with `rejectedShipped`, rejected) with the shipped ones.
        func row(_ clip: LabeledClip, rejectedShipped: Bool) throws -> String {
            let chosen = try run(clip, classifier: net, thresholds: all.thresholds)
            let shipped = try run(clip, classifier: net, thresholds: .shipped)
            return "| \(clip.name) | \(labeled(clip)) | \(counts(chosen.counts)) | \(counts(chosen.rejected)) | \(counts(shipped.counts)) |"
                + (rejectedShipped ? " \(counts(shipped.rejected)) |" : "")
        }
        print("| clip | labeled reps | counted (chosen on all clips) | rejected | counted (RepetitionThresholds.shipped) |")
        print("|---|---|---|---|---|")
        for clip in clips { print(try row(clip, rejectedShipped: false)) }
        guard let unseen else { return }
        let unseenClips = try unseen.load()
        print("")
        print("Clips no threshold was chosen on (\(unseen.name)), counted with the thresholds chosen on all clips:")
        print("")
        print("| clip | labeled reps | counted | rejected | counted (RepetitionThresholds.shipped) | rejected (shipped) |")
        print("|---|---|---|---|---|---|")
        for clip in unseenClips { print(try row(clip, rejectedShipped: true)) }
    }
}
