import PoseCore
/// A root candidate: keypoint `part` peaking at grid `cell` with heatmap value `score`.
struct PartCandidate {
    var score: Float
    var part: Int
    var cell: GridCell
}

extension DecodingHeads {
    /// All local heatmap maxima with score ≥ `threshold`, over every keypoint at once, in a max-heap
    /// (TF.js `buildPartWithScoreQueue`). Cells are visited row by row, keypoints fastest, which is
    /// the order TF.js enqueues them in and so fixes the order of equal-score candidates.
    func partCandidateQueue(threshold: Double, localMaximumRadius: Int) -> MaxHeap<PartCandidate> {
        var queue = MaxHeap<PartCandidate>(capacity: 64) { $0.score }
        let parts = PoseNetOutput.keypointCount
        for y in 0..<height {
            for x in 0..<width {
                for part in 0..<parts {
                    let score = scores[y, x, part]
                    // Compared in Double, as TF.js compares float32 scores against a JavaScript number.
                    guard Double(score) >= threshold else { continue }
                    let cell = GridCell(y: y, x: x)
                    if isLocalMaximum(part: part, score: score, at: cell, radius: localMaximumRadius) {
                        queue.enqueue(PartCandidate(score: score, part: part, cell: cell))
                    }
                }
            }
        }
        return queue
    }
}
