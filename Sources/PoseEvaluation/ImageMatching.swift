import PoseNet
import PoseCore
/// Per-image greedy matching of detections to ground truth (pycocotools `evaluateImg`).
struct ImageMatching {
    /// Scores of the image's detections, highest first (at most `maxDetections`).
    var detectionScores: [Double]
    /// `matched[t][d]`: detection `d` matched a person at OKS threshold `t`.
    var matched: [[Bool]]
    /// `ignored[t][d]`: detection `d` counts neither as true nor as false positive at threshold `t`
    /// (it matched an ignored person, or is unmatched and outside the area range).
    var ignored: [[Bool]]
    /// Per ground-truth person: ignored (crowd, no labeled keypoints, or outside the area range).
    var groundTruthIgnored: [Bool]

    /// Matches one image's detections (already sorted by decreasing score and truncated) against
    /// its ground truth, for one area range.
    ///
    /// - Parameters:
    ///   - similarities: `similarities[d][g]`, OKS of detection `d` and ground truth `g` (file order).
    ///   - Returns: `nil` when the image has neither detections nor ground truth.
    static func match(detections: [KeypointDetection], groundTruth: [CocoKeypointDataset.Annotation],
                      similarities: [[Double]], areaRange: ClosedRange<Double>, thresholds: [Double]) -> ImageMatching? {
        if detections.isEmpty && groundTruth.isEmpty { return nil }
        let ignoredInFile = groundTruth.map { $0.isIgnored || !areaRange.contains($0.area) }
        // Regular people first, ignored ones last (stable), so a detection prefers a real match.
        let order = groundTruth.indices.filter { !ignoredInFile[$0] } + groundTruth.indices.filter { ignoredInFile[$0] }
        let gtIgnored = order.map { ignoredInFile[$0] }
        let isCrowd = order.map { groundTruth[$0].isCrowd }

        var matched = [[Bool]](repeating: [Bool](repeating: false, count: detections.count), count: thresholds.count)
        var ignored = matched
        for (t, threshold) in thresholds.enumerated() {
            var gtTaken = [Bool](repeating: false, count: order.count)
            for d in detections.indices {
                var best = min(threshold, 1 - 1e-10)
                var m = -1
                for (g, original) in order.enumerated() {
                    if gtTaken[g] && !isCrowd[g] { continue }
                    // Already matched a regular person and only ignored ones remain: stop.
                    if m > -1 && !gtIgnored[m] && gtIgnored[g] { break }
                    if similarities[d][original] < best { continue }
                    best = similarities[d][original]
                    m = g
                }
                guard m >= 0 else { continue }
                ignored[t][d] = gtIgnored[m]
                matched[t][d] = true
                gtTaken[m] = true
            }
        }
        // Unmatched detections outside the area range belong to another range's evaluation.
        for d in detections.indices where !areaRange.contains(detections[d].area) {
            for t in thresholds.indices where !matched[t][d] { ignored[t][d] = true }
        }
        return ImageMatching(detectionScores: detections.map(\.score), matched: matched, ignored: ignored,
                             groundTruthIgnored: gtIgnored)
    }
}
