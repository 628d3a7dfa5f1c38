import ActionNet

/// The held-out bookkeeping of every clip study here (the classifier's `--leave-one-out`, the
/// repetition thresholds' `--choose-thresholds`): one fold per clip, the clip held out and every
/// other clip to choose or train on. A clip is never among its own fold's training clips, so
/// nothing it shows can inform what it is reported with.
public enum LeaveOneClipOut {
    /// One fold per clip, in the clips' order: `(heldOut, training)`, `training` being every other
    /// clip in order. Clips are told apart by `name`; two clips of one name are refused (the
    /// held-out one would also be trained on).
    public static func folds<Clip>(_ clips: [Clip], name: (Clip) -> String) throws -> [(heldOut: Clip, training: [Clip])] {
        let names = clips.map(name)
        if let twice = names.first(where: { n in names.filter { $0 == n }.count > 1 }) {
            throw ActionNetError.badTrainingData("two clips named \(twice): a held-out clip would also be trained on")
        }
        return clips.indices.map { i in (clips[i], clips.indices.filter { names[$0] != names[i] }.map { clips[$0] }) }
    }
}
