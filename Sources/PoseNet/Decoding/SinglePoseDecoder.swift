import PoseCore
/// Decodes one person (TF.js `decodeSinglePose`): each keypoint independently at the heatmap cell
/// where it scores highest, refined by its short-range offset there.
///
/// Ties go to the first cell in row-major order (as `argmax`). Fast and robust for a single
/// subject; with several people in view keypoints may come from different people.
///
/// - Returns: one pose in model-input pixels whose score is the mean keypoint score.
public func decodeSinglePose(_ output: PoseNetOutput) -> Pose {
    output.withHeads { heads -> Pose in
        var decoded = DecodedKeypoints()
        let parts = PoseNetOutput.keypointCount
        // One pass over the grid, keeping a running best cell per keypoint.
        var best = [Float](repeating: -.infinity, count: parts)
        var bestCell = [GridCell](repeating: GridCell(y: 0, x: 0), count: parts)
        for y in 0..<heads.height {
            for x in 0..<heads.width {
                for part in 0..<parts where heads.scores[y, x, part] > best[part] {
                    best[part] = heads.scores[y, x, part]
                    bestCell[part] = GridCell(y: y, x: x)
                }
            }
        }
        var sum = 0.0
        for part in 0..<parts {
            decoded.positions[part] = heads.offsetPosition(of: part, at: bestCell[part])
            decoded.scores[part] = best[part]
            sum += Double(best[part])
        }
        return Pose(decoded: decoded, score: sum / Double(parts))
    }
}
