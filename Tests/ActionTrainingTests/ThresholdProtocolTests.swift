import Testing
import Foundation
@_spi(Training) @testable import ActionNet
@_spi(Training) @testable import ActionTraining
import PoseCore

/// The held-out bookkeeping of the repetition thresholds' protocol (docs/actions.md "How the
/// thresholds are chosen"): a clip never informs the settings it is counted with.
struct ThresholdProtocolTests {
    @Test func everyFoldHoldsOutItsClipAndTrainsOnEveryOther() throws {
        let names = ["a", "b", "c", "d"]
        let folds = try LeaveOneClipOut.folds(names, name: { $0 })
        #expect(folds.map(\.heldOut) == names)
        for fold in folds {
            #expect(!fold.training.contains(fold.heldOut))
            #expect(fold.training == names.filter { $0 != fold.heldOut })
        }
        // Two clips of one name: the held-out one would also be trained on.
        #expect(throws: ActionNetError.self) { try LeaveOneClipOut.folds(["a", "b", "a"], name: { $0 }) }
    }

    @Test func theLongestRunsMiddleAndThePostureGap() {
        #expect(RepetitionThresholdSearch.middleOfLongestRun([false, true, true, false, true, true, true, true]) == 5)
        #expect(RepetitionThresholdSearch.middleOfLongestRun([true, true, false, true, true]) == 0)
        #expect(RepetitionThresholdSearch.middleOfLongestRun([false, false]) == nil)
        // Just above what the pipeline counted wrongly; the middle of the gap when that reaches a repetition; nil: keep.
        #expect(RepetitionThresholdSearch.postureThreshold(repetitions: [120, 90], counted: [30, 41]) == 42)
        #expect(RepetitionThresholdSearch.postureThreshold(repetitions: [], counted: [30, 41.5]) == 42)
        #expect(RepetitionThresholdSearch.postureThreshold(repetitions: [70, 95], counted: [80]) == 75)
        #expect(RepetitionThresholdSearch.postureThreshold(repetitions: [120], counted: []) == nil)
    }

    /// A stick-figure clip of `kind` (the training data's renderer), labeled `label`.
    static func clip(_ name: String, _ kind: MotionKind, label: ActionClass, seed: UInt64) -> LabeledClip {
        var rng = SeededRandom(seed: seed)
        let fps = 30.0
        let motion = MotionGenerator.sequence(kind, count: 240, fps: fps, rng: &rng)
        var figure = StickFigure(random: &rng)
        var frames: [PoseFrame] = []
        for (i, m) in motion.enumerated() {
            let pose = figure.render(m.pose, rng: &rng)
            frames.append(PoseFrame(frame: i, time: Double(i) / fps, width: Int(figure.imageWidth), height: Int(figure.imageHeight),
                                    poses: pose.map { [$0] } ?? []))
        }
        return LabeledClip(name: name, label: label, repetitions: 3, frames: frames)
    }

    /// A classifier that calls every window `action`.
    static func constant(_ action: ActionClass) throws -> TemporalConvNet {
        let net = try TemporalConvNet()
        var values = [Float](repeating: 0, count: net.parameterCount)
        values[net.parameterCount - ActionClass.count + action.rawValue] = 10
        net.parameterValues = values
        return net
    }

    /// Relabeling one clip (squats → other: its squat turning points, counted in the squat windows
    /// of a classifier that calls everything squats, turn from repetitions into count errors)
    /// changes the thresholds of a fold that trains on it (the squat zone), and not those of the
    /// fold that holds it out; the classifier of each fold is asked for with that fold's clips.
    @Test func aClipNeverInformsItsOwnSettings() throws {
        let squats = Self.clip("squats", .squats, label: .squats, seed: 11)
        let jacks = Self.clip("jacks", .jumpingJacks, label: .jumpingJacks, seed: 12)
        let deep = Self.clip("deep", .squats, label: .squats, seed: 13)
        var relabeled = deep
        relabeled.label = .other
        let net = try Self.constant(.squats)
        var asked: [(String, [String])] = []
        func protocolRun(_ clips: [LabeledClip]) throws -> [String: RepetitionThresholds] {
            let folds = try RepetitionThresholdSearch.leaveOneClipOut(clips) { held, training in
                asked.append((held.name, training.map(\.name)))
                return net
            }
            return Dictionary(uniqueKeysWithValues: folds.map { ($0.clip.name, $0.choice.thresholds) })
        }
        let before = try protocolRun([squats, jacks, deep])
        #expect(asked.map(\.0) == ["squats", "jacks", "deep"])
        for (held, training) in asked { #expect(!training.contains(held) && training.count == 2) }
        let after = try protocolRun([squats, jacks, relabeled])
        #expect(after["deep"] == before["deep"], "the held-out clip changed its own thresholds")
        #expect(after["jacks"] != before["jacks"],
                "the relabeled clip is in this fold's training: its labels must count (\(before["jacks"]!) vs \(after["jacks"]!))")
    }
}
