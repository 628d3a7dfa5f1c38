import ActionTraining
import ArgumentParser
import Foundation
import ModelFiles
import PoseKit

/// `posekit train-actions`: trains the action classifier and writes its weight file.
struct TrainActionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train-actions",
        abstract: "Train the action classifier (synthetic motion + labeled pose clips).",
        discussion: """
        Real clips are `<poses-dir>/<clip>.jsonl` (`posekit pose` output) for the entries of \
        --labels; clips without a poses file are skipped. Without --labels, the shared media's \
        labels are used when present, else training is on synthetic motion only; a --labels \
        given must exist, with --poses-dir, and name at least one clip with poses. \
        Deterministic for a given --seed.
        """)

    /// Where `make train-actions` keeps the labels of the shared clips.
    static let defaultLabels = "../shared/media/videos/labels.json"

    @Option(name: .long, help: "labels.json of the real clips (default: \(defaultLabels) when present).")
    var labels: String?

    @Option(name: .long, help: "Directory of <clip>.jsonl pose files.")
    var posesDir: String = ".cache/poses"

    @Option(name: .shortAndLong, help: "Weight file to write.")
    var output: String = "Weights/actionnet.pkw"

    @Option(name: .long, help: "Random seed.")
    var seed: UInt64 = 1

    @Option(name: .long, help: "Training epochs (\(Limits.epochs.text)).")
    var epochs: Int = ActionTrainingConfiguration().epochs

    @Option(name: .long, help: "Synthetic sequences per exercise (\(Limits.sequences.text)).")
    var sequences: Int = ActionTrainingConfiguration().sequencesPerExercise

    @Flag(name: .long, help: "Leave-one-clip-out evaluation instead of writing weights: one model per held-out clip.")
    var leaveOneOut = false

    @Flag(name: .long, help: "Print every event of the held-out clips (with --leave-one-out).")
    var verbose = false

    @Option(name: .long, help: "Evaluate an existing weight file (real clips, fresh synthetic data, speed) instead of training.")
    var evaluate: String?

    @Option(name: .long, help: "With --leave-one-out: hold out only these clips (repeatable).")
    var holdOut: [String] = []

    @Option(name: .long, help: "With --leave-one-out or --choose-thresholds: keep each model as <dir>/without-<clip>.pkw and reuse existing ones.")
    var modelsDir: String?

    @Flag(name: .long, help: ArgumentHelp(
        "Choose the repetition counters' thresholds instead of training: leave-one-clip-out (each clip counted with the thresholds and classifier chosen and trained without it) and on all clips (the classifier of --weights); prints both tables.",
        discussion: "docs/actions.md \"How the thresholds are chosen\"; scripts/rep-protocol.sh runs it end to end."))
    var chooseThresholds = false

    @Option(name: .long, help: "With --choose-thresholds: the classifier the thresholds for all clips are chosen with.")
    var weights: String = "Weights/actionnet.pkw"

    @Option(name: .long, help: ArgumentHelp(
        "With --choose-thresholds: labels of clips no threshold is chosen on (same form as --labels), counted with the thresholds chosen on all clips.",
        discussion: "Their poses: --check-poses-dir. scripts/unseen-segments.json lists two segments of the shared videos no clip covers."))
    var checkLabels: String?

    @Option(name: .long, help: "With --check-labels: directory of their <clip>.jsonl pose files.")
    var checkPosesDir: String = ".cache/poses-unseen"

    func validate() throws {
        try Limits.epochs.check(epochs, "--epochs")
        try Limits.sequences.check(sequences, "--sequences")
        // Labels asked for and missing must not silently become synthetic-only training.
        if let labels {
            guard RegularFile.exists(atPath: labels) else { throw ValidationError("--labels \(labels): no such file") }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: posesDir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--poses-dir \(posesDir): no such directory (the poses of the clips in \(labels))")
            }
        }
    }

    func run() throws {
        var config = ActionTrainingConfiguration()
        config.seed = seed
        config.epochs = epochs
        config.sequencesPerExercise = sequences
        let clips: [LabeledClip]
        let labelsPath = labels ?? Self.defaultLabels
        if labels != nil || (FileManager.default.fileExists(atPath: labelsPath) && FileManager.default.fileExists(atPath: posesDir)) {
            clips = try CLIError.reading(labelsPath) {
                try LabeledClip.load(labels: URL(fileURLWithPath: labelsPath), posesDirectory: URL(fileURLWithPath: posesDir))
            }
            if labels != nil && clips.isEmpty {
                throw CLIError("\(labelsPath): no clip has a poses file in \(posesDir) (<clip>.jsonl, from posekit pose)")
            }
        } else {
            clips = []
        }
        log("real clips: \(clips.isEmpty ? "none (synthetic only)" : clips.map(\.name).joined(separator: ", "))")
        if let evaluate {
            let (net, _) = try CLIError.reading(evaluate) { try ActionWeightsFile.load(contentsOf: URL(fileURLWithPath: evaluate)) }
            ActionTrainer.report(net, clips: clips, seed: seed, log: log)
            return
        }
        if chooseThresholds {
            guard !clips.isEmpty else { throw ValidationError("--choose-thresholds needs real clips in \(posesDir)") }
            try chooseRepetitionThresholds(clips, config: config)
            return
        }
        if leaveOneOut {
            guard !clips.isEmpty else { throw ValidationError("--leave-one-out needs real clips in \(posesDir)") }
            try LeaveOneClipOut.report(clips, holdingOut: holdOut, verbose: verbose,
                                       heldOutModel: { held, training in try heldOutModel(held, training: training, config: config) },
                                       log: log, print: { print($0) })
            return
        }
        let start = MonotonicClock.now()
        let net = try ActionTrainer.train(config, realClips: clips, log: log)
        let training = ["seed": String(seed), "epochs": String(epochs), "sequences_per_exercise": String(sequences),
                        "real_clips": clips.map(\.name).joined(separator: ",")]
        let data = try ActionWeightsFile.encode(net, fps: config.fps, windowStride: 10, training: training)
        try ModelFileOutput.write([UInt8](data), to: output)
        log(String(format: "wrote %@ (%d parameters) in %.0f s", output, net.parameterCount, MonotonicClock.now() - start))
        ActionTrainer.report(net, clips: clips, seed: seed, log: log)
    }

    /// The classifier trained without `held` (on `training`): `<models-dir>/without-<clip>.pkw` when
    /// kept there, else trained (and kept when --models-dir is given).
    private func heldOutModel(_ held: LabeledClip, training: [LabeledClip], config: ActionTrainingConfiguration) throws -> TemporalConvNet {
        let kept = modelsDir.map { URL(fileURLWithPath: $0).appendingPathComponent("without-\(held.name).pkw") }
        if let kept, FileManager.default.fileExists(atPath: kept.path) {
            return try CLIError.reading(kept.path) { try ActionWeightsFile.load(contentsOf: kept).0 }
        }
        log("training without \(held.name)")
        let net = try ActionTrainer.train(config, realClips: training, log: log)
        if let kept {
            try ModelFileOutput.write([UInt8](ActionWeightsFile.encode(net, fps: config.fps, windowStride: 10,
                                                                       training: ["held_out": held.name, "seed": String(config.seed)])), to: kept.path)
        }
        return net
    }

    /// `--choose-thresholds`: the protocol of `RepetitionThresholdSearch`, leave-one-clip-out and on
    /// all clips, printed as Markdown tables.
    private func chooseRepetitionThresholds(_ clips: [LabeledClip], config: ActionTrainingConfiguration) throws {
        try RepetitionThresholdSearch.report(clips, heldOutModel: { held, training in try heldOutModel(held, training: training, config: config) },
                                             classifier: {
            try CLIError.reading(weights) { try ActionWeightsFile.load(contentsOf: URL(fileURLWithPath: weights)).0 }
        }, named: weights, unseen: checkLabels.map { checkLabels in
            (checkLabels, {
                try CLIError.reading(checkLabels) {
                    try LabeledClip.load(labels: URL(fileURLWithPath: checkLabels), posesDirectory: URL(fileURLWithPath: checkPosesDir))
                }
            })
        }, print: { print($0) })
    }

    func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }
}
