import PoseCore
/// Keypoint positions and scores of one pose while it is being decoded, in ``BodyPart`` order,
/// model-input pixels.
struct DecodedKeypoints {
    var positions = [Point](repeating: Point(x: 0, y: 0), count: PoseNetOutput.keypointCount)
    var scores = [Float](repeating: 0, count: PoseNetOutput.keypointCount)
}

/// Each tree edge as (parent, child) raw part indices, in ``Skeleton/treeEdges`` order.
let treeEdgeParts: [(parent: Int, child: Int)] = Skeleton.treeEdges.map { ($0.parent.rawValue, $0.child.rawValue) }

extension DecodingHeads {
    /// Grows a whole pose from one root candidate (TF.js `decodePose`).
    ///
    /// The root sits at its cell plus its short-range offset. The walk then goes once over the
    /// edges in reverse order following backward displacements (child→parent, up towards the
    /// nose), then once in order following forward displacements (parent→child, down to the
    /// limbs). An edge is taken only when its source is placed and its target is not, so every
    /// keypoint is placed exactly once whatever the root.
    func decodePose(root: PartCandidate, refineSteps: Int) -> DecodedKeypoints {
        var pose = DecodedKeypoints()
        var placed = [Bool](repeating: false, count: PoseNetOutput.keypointCount)
        pose.positions[root.part] = offsetPosition(of: root.part, at: root.cell)
        pose.scores[root.part] = root.score
        placed[root.part] = true

        for edge in treeEdgeParts.indices.reversed() {
            let (parent, child) = treeEdgeParts[edge]
            guard placed[child], !placed[parent] else { continue }
            (pose.positions[parent], pose.scores[parent]) = traverse(
                edge: edge, from: pose.positions[child], to: parent, along: displacementsBwd, refineSteps: refineSteps)
            placed[parent] = true
        }
        for edge in treeEdgeParts.indices {
            let (parent, child) = treeEdgeParts[edge]
            guard placed[parent], !placed[child] else { continue }
            (pose.positions[child], pose.scores[child]) = traverse(
                edge: edge, from: pose.positions[parent], to: child, along: displacementsFwd, refineSteps: refineSteps)
            placed[child] = true
        }
        return pose
    }
}
