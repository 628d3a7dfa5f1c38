import PoseCore
extension DecodingHeads {
    /// Whether `score`, the heatmap value of `part` at `cell`, is a maximum of the
    /// `(2r + 1) × (2r + 1)` window around `cell` (clipped to the grid).
    ///
    /// Ties count as maxima: only a strictly larger neighbor disqualifies the cell, so a plateau
    /// yields one candidate per plateau cell (TF.js `scoreIsMaximumInLocalWindow`).
    func isLocalMaximum(part: Int, score: Float, at cell: GridCell, radius: Int) -> Bool {
        let yStart = Swift.max(cell.y - radius, 0), yEnd = Swift.min(cell.y + radius + 1, height)
        let xStart = Swift.max(cell.x - radius, 0), xEnd = Swift.min(cell.x + radius + 1, width)
        for y in yStart..<yEnd {
            for x in xStart..<xEnd where scores[y, x, part] > score {
                return false
            }
        }
        return true
    }
}
