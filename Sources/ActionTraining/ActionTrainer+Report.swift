import Foundation
@_spi(Training) import ActionNet
import PoseCore

extension ActionTrainer {
    /// What `posekit train-actions` logs after training or with `--evaluate`, line by line through
    /// `log`: `net`'s results on each of `clips` (summary label, repetitions, window accuracy), its
    /// window accuracy on fresh synthetic sequences (from `seed` + 1000) and its time per window.
    public static func report(_ net: TemporalConvNet, clips: [LabeledClip], seed: UInt64, log: (String) -> Void) {
        for clip in clips {
            guard let (r, _) = try? ActionTrainer.evaluate(net, clip: clip) else { continue }
            log(String(format: "  on clip %@: summary %@, reps %d/%@, window accuracy %.2f", r.clip, r.summaryLabel, r.countedReps,
                       r.expectedReps.map(String.init) ?? "-", r.windowAccuracy))
        }
        let synthetic = ActionTrainer.syntheticAccuracy(net, seed: seed &+ 1000, sequences: 20)
        for c in ActionClass.allCases {
            let r = synthetic[c] ?? (0, 0)
            log(String(format: "  fresh synthetic %@: window accuracy %.3f (%d windows)", c.name, Double(r.correct) / Double(max(r.total, 1)), r.total))
        }
        log(String(format: "classifier: %.4f ms per window (median)", ActionTrainer.benchmark(net)))
    }
}

extension LeaveOneClipOut {
    /// The classifier's leave-one-clip-out study as `posekit train-actions --leave-one-out` prints
    /// it: for each clip (only those named in `holdingOut` when it is not empty) the classifier
    /// trained without it (`heldOutModel(clip, training clips)`) evaluated on it, each row logged
    /// (`log`) as it is done and every event printed with `verbose`; then the Markdown table
    /// through `print`.
    public static func report(_ clips: [LabeledClip], holdingOut holdOut: [String], verbose: Bool,
                              heldOutModel: (LabeledClip, [LabeledClip]) throws -> TemporalConvNet,
                              log: (String) -> Void, print: (String) -> Void) throws {
        var rows: [String] = []
        for fold in try LeaveOneClipOut.folds(clips, name: \.name) where holdOut.isEmpty || holdOut.contains(fold.heldOut.name) {
            let held = fold.heldOut
            let start = MonotonicClock.now()
            let net = try heldOutModel(held, fold.training)
            let (r, events) = try ActionTrainer.evaluate(net, clip: held)
            if verbose { for e in events { print(e.jsonLine) } }
            let row = String(format: "%@ | %@ | %@ | %d | %@ | %.2f (%d windows) | %.0f s", r.clip, r.expected.name, r.summaryLabel,
                             r.countedReps, r.expectedReps.map(String.init) ?? "-", r.windowAccuracy, r.windows, MonotonicClock.now() - start)
            log(row)
            rows.append(row)
        }
        print("clip | label | summary label | reps counted | reps labeled | window accuracy | train time")
        for r in rows { print(r) }
    }
}
