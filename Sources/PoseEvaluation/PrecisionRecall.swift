import PoseNet
import PoseCore
/// Interpolated precision at the 101 recall points and final recall, per OKS threshold, over all
/// images of one area range (pycocotools `accumulate`). `-1` marks "undefined" (no person to find).
struct PrecisionRecall {
    /// `precision[t][r]`: interpolated precision at recall point `r` for threshold `t`.
    var precision: [[Double]]
    /// `recall[t]`: recall reached with every detection, for threshold `t`.
    var recall: [Double]

    init(images: [ImageMatching], thresholds: Int) {
        let recallPoints = KeypointEvaluationSettings.recallThresholds
        precision = [[Double]](repeating: [Double](repeating: -1, count: recallPoints.count), count: thresholds)
        recall = [Double](repeating: -1, count: thresholds)
        let people = images.reduce(0) { $0 + $1.groundTruthIgnored.filter { !$0 }.count }
        guard !images.isEmpty, people > 0 else { return }

        // All detections of all images, by decreasing score; ties keep image order, then rank.
        var all: [(score: Double, image: Int, rank: Int)] = []
        for (i, image) in images.enumerated() {
            for (r, score) in image.detectionScores.enumerated() { all.append((score, i, r)) }
        }
        all = all.enumerated().sorted { $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset }
            .map(\.element)

        let eps = Double.ulpOfOne   // np.spacing(1)
        for t in 0..<thresholds {
            var truePositives = 0.0, falsePositives = 0.0
            var rc: [Double] = [], pr: [Double] = []
            rc.reserveCapacity(all.count); pr.reserveCapacity(all.count)
            for d in all {
                let image = images[d.image]
                if !image.ignored[t][d.rank] {
                    if image.matched[t][d.rank] { truePositives += 1 } else { falsePositives += 1 }
                }
                rc.append(truePositives / Double(people))
                pr.append(truePositives / (falsePositives + truePositives + eps))
            }
            recall[t] = rc.last ?? 0
            // Precision envelope: the best precision at any recall at least this high.
            if pr.count > 1 {
                for i in stride(from: pr.count - 1, to: 0, by: -1) where pr[i] > pr[i - 1] { pr[i - 1] = pr[i] }
            }
            // For each recall point, the first detection reaching it (searchsorted, side left);
            // points no detection reaches keep precision 0.
            var sampled = [Double](repeating: 0, count: recallPoints.count)
            var j = 0
            for (r, point) in recallPoints.enumerated() {
                while j < rc.count && rc[j] < point { j += 1 }
                if j == rc.count { break }
                sampled[r] = pr[j]
            }
            precision[t] = sampled
        }
    }

    /// Mean precision over recall points and either all thresholds (`nil`) or threshold index `t`,
    /// over defined values; -1 when none is defined.
    func meanPrecision(threshold t: Int?) -> Double {
        let rows = t.map { [precision[$0]] } ?? precision
        return PrecisionRecall.meanDefined(rows.flatMap { $0 })
    }

    /// Mean final recall over all thresholds (`nil`) or threshold index `t`; -1 when undefined.
    func meanRecall(threshold t: Int?) -> Double {
        PrecisionRecall.meanDefined(t.map { [recall[$0]] } ?? recall)
    }

    static func meanDefined(_ values: [Double]) -> Double {
        let defined = values.filter { $0 > -1 }
        return defined.isEmpty ? -1 : defined.reduce(0, +) / Double(defined.count)
    }
}
