/// The keypoint sets PoseKit knows. Their tables are checked in `KeypointSetTests` against the
/// landmark tables of `shared/reference/mediapipe/README.md` §6 and Create ML's input order.
extension KeypointSet {
    /// COCO-17, PoseNet's 17 keypoints in its heatmap order (`BodyPart`'s cases and names); the
    /// skeleton is TF.js PoseNet's `connectedPartNames` (`Skeleton.drawnEdges`), the mirror table
    /// `BodyPart.mirrored`.
    public static let coco17 = KeypointSet(
        identifier: "coco17",
        names: BodyPart.allCases.map(\.name),
        edges: Skeleton.drawnEdges.map { KeypointEdge($0.0.rawValue, $0.1.rawValue) },
        mirrored: BodyPart.allCases.map(\.mirrored.rawValue),
        cocoIndices: BodyPart.allCases.map(\.rawValue))

    /// BlazePose's 33 landmarks (MediaPipe `PoseLandmark`, camelCase); the skeleton is
    /// MediaPipe's `POSE_CONNECTIONS` (35 edges). COCO-17 maps by name onto
    /// [0, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28].
    public static let blazePose33: KeypointSet = {
        let names = [
            "nose", "leftEyeInner", "leftEye", "leftEyeOuter", "rightEyeInner", "rightEye", "rightEyeOuter",
            "leftEar", "rightEar", "mouthLeft", "mouthRight", "leftShoulder", "rightShoulder",
            "leftElbow", "rightElbow", "leftWrist", "rightWrist", "leftPinky", "rightPinky",
            "leftIndex", "rightIndex", "leftThumb", "rightThumb", "leftHip", "rightHip",
            "leftKnee", "rightKnee", "leftAnkle", "rightAnkle", "leftHeel", "rightHeel",
            "leftFootIndex", "rightFootIndex",
        ]
        let connections: [(Int, Int)] = [
            (0, 1), (1, 2), (2, 3), (3, 7), (0, 4), (4, 5), (5, 6), (6, 8), (9, 10), (11, 12), (11, 13),
            (13, 15), (15, 17), (15, 19), (15, 21), (17, 19), (12, 14), (14, 16), (16, 18), (16, 20), (16, 22),
            (18, 20), (11, 23), (12, 24), (23, 24), (23, 25), (24, 26), (25, 27), (26, 28), (27, 29), (28, 30),
            (29, 31), (30, 32), (27, 31), (28, 32),
        ]
        return KeypointSet(identifier: "blazePose33", names: names, edges: connections.map { KeypointEdge($0.0, $0.1) },
                           cocoIndices: cocoIndicesByName(names))
    }()

    /// A hand's 21 landmarks in MediaPipe's order (`HandLandmark`: wrist, then each finger from
    /// its base to its tip), named as Vision names them (`VNHumanHandPoseObservation.JointName`:
    /// `thumbCMC`, `thumbMP`, …, `littleTip`); the skeleton is MediaPipe's `HAND_CONNECTIONS`
    /// (palm, then each finger). A hand has no left and right points and no COCO keypoints.
    public static let hand21: KeypointSet = {
        var names = ["wrist", "thumbCMC", "thumbMP", "thumbIP", "thumbTip"]
        for finger in ["index", "middle", "ring", "little"] { names += ["MCP", "PIP", "DIP", "Tip"].map { finger + $0 } }
        let connections: [(Int, Int)] = [
            (0, 1), (0, 5), (9, 13), (13, 17), (5, 9), (0, 17),   // palm
            (1, 2), (2, 3), (3, 4), (5, 6), (6, 7), (7, 8), (9, 10), (10, 11), (11, 12),
            (13, 14), (14, 15), (15, 16), (17, 18), (18, 19), (19, 20),
        ]
        return KeypointSet(identifier: "hand21", names: names, edges: connections.map { KeypointEdge($0.0, $0.1) },
                           cocoIndices: cocoIndicesByName(names))
    }()

    /// Vision's 18 body joints in the order of a Create ML action classifier's input rows
    /// (`VNHumanBodyPoseObservation.keypointsMultiArray()`, ActionNet's `VisionJoint`): the 17
    /// COCO keypoints, by name, and the neck. Vision publishes no skeleton; the edges here join
    /// the neck to the nose and the shoulders and are otherwise COCO-17's limbs and face.
    public static let vision18: KeypointSet = {
        let names = [
            "nose", "neck", "rightShoulder", "rightElbow", "rightWrist", "leftShoulder", "leftElbow", "leftWrist",
            "rightHip", "rightKnee", "rightAnkle", "leftHip", "leftKnee", "leftAnkle", "rightEye", "leftEye",
            "rightEar", "leftEar",
        ]
        let index = { (name: String) in names.firstIndex(of: name)! }
        let pairs = [("nose", "neck"), ("neck", "leftShoulder"), ("neck", "rightShoulder"), ("leftShoulder", "rightShoulder"),
                     ("leftShoulder", "leftElbow"), ("leftElbow", "leftWrist"), ("rightShoulder", "rightElbow"),
                     ("rightElbow", "rightWrist"), ("leftShoulder", "leftHip"), ("rightShoulder", "rightHip"),
                     ("leftHip", "rightHip"), ("leftHip", "leftKnee"), ("leftKnee", "leftAnkle"), ("rightHip", "rightKnee"),
                     ("rightKnee", "rightAnkle"), ("nose", "leftEye"), ("nose", "rightEye"), ("leftEye", "leftEar"),
                     ("rightEye", "rightEar")]
        return KeypointSet(identifier: "vision18", names: names, edges: pairs.map { KeypointEdge(index($0.0), index($0.1)) },
                           cocoIndices: cocoIndicesByName(names))
    }()
}
