/// The skeleton graphs PoseNet uses.
public enum Skeleton {
    /// The 16 parent→child edges of the pose tree rooted at the nose, in TF.js `poseChain` order.
    ///
    /// Edge `e` owns displacement channels `e` (dy) and `e + 16` (dx) of both displacement heads:
    /// the forward head points from parent to child, the backward head from child to parent.
    public static let treeEdges: [(parent: BodyPart, child: BodyPart)] = [
        (.nose, .leftEye), (.leftEye, .leftEar), (.nose, .rightEye), (.rightEye, .rightEar),
        (.nose, .leftShoulder), (.leftShoulder, .leftElbow), (.leftElbow, .leftWrist),
        (.leftShoulder, .leftHip), (.leftHip, .leftKnee), (.leftKnee, .leftAnkle),
        (.nose, .rightShoulder), (.rightShoulder, .rightElbow), (.rightElbow, .rightWrist),
        (.rightShoulder, .rightHip), (.rightHip, .rightKnee), (.rightKnee, .rightAnkle),
    ]

    /// For each edge of ``treeEdges``, the index of its mirror image: the edge joining the
    /// ``BodyPart/mirrored`` parts, in the same direction (`nose → leftEye` ↔ `nose → rightEye`).
    public static let mirroredTreeEdges: [Int] = treeEdges.map { edge in
        treeEdges.firstIndex { $0.parent == edge.parent.mirrored && $0.child == edge.child.mirrored }!
    }

    /// The edges drawn in overlays (TF.js `connectedPartNames`: limbs, torso, and the face).
    public static let drawnEdges: [(BodyPart, BodyPart)] = [
        (.leftHip, .leftShoulder), (.leftElbow, .leftShoulder), (.leftElbow, .leftWrist),
        (.leftHip, .leftKnee), (.leftKnee, .leftAnkle), (.rightHip, .rightShoulder),
        (.rightElbow, .rightShoulder), (.rightElbow, .rightWrist), (.rightHip, .rightKnee),
        (.rightKnee, .rightAnkle), (.leftShoulder, .rightShoulder), (.leftHip, .rightHip),
        (.nose, .leftEye), (.nose, .rightEye), (.leftEye, .leftEar), (.rightEye, .rightEar),
    ]
}
