import PoseCore
extension DecodingHeads {
    /// Finds keypoint `target` from the already placed `source` along tree edge `edge`
    /// (TF.js `traverseToTargetKeypoint`).
    ///
    /// 1. Read `field`'s displacement for `edge` at the cell nearest `source` and add it:
    ///    a rough guess at the target (mid-range displacements are coarse).
    /// 2. `refineSteps` times, snap the guess to the target's own short-range offset at the cell
    ///    nearest the guess: the offsets are far more precise near the keypoint.
    /// 3. The score is the target's heatmap value at the cell nearest the refined position.
    ///
    /// - Returns: the target position in model-input pixels and its score.
    @inline(__always)
    func traverse(edge: Int, from source: Point, to target: Int, along field: HeadView,
                  refineSteps: Int) -> (position: Point, score: Float) {
        let d = displacement(field, edge: edge, at: nearestCell(to: source))
        var position = Point(x: source.x + d.x, y: source.y + d.y)
        for _ in 0..<refineSteps {
            position = offsetPosition(of: target, at: nearestCell(to: position))
        }
        let cell = nearestCell(to: position)
        return (position, scores[cell.y, cell.x, target])
    }
}
