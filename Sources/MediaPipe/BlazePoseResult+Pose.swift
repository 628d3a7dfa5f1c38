import PoseCore

extension BlazePoseResult {
    /// This result as a PoseKit pose, the one mapping of BlazePose onto `PoseCore.Pose`: the 33
    /// landmarks in BlazePose's order as `KeypointSet.blazePose33`, in the image's pixels (x·W,
    /// y·H) with `z` in pixels of x (z·W); each keypoint's `score` is its visibility, with
    /// `visibility` and `presence` as MediaPipe gives them; `world`: the 33 world landmarks in
    /// metres. The pose's score is ``score`` (the pose flag, ``poseScore``, the probability that a person
    /// is in the region, for the detector's people); no id (the stream's tracker gives it). A person reported from
    /// another model's pose is that pose (``otherModelPose``).
    public var pose: Pose {
        if let otherModelPose { return otherModelPose }
        let width = Double(imageSize.width), height = Double(imageSize.height)
        let keypoints = landmarks.map { landmark -> Keypoint in
            let visibility = landmark.visibility.map(Double.init)
            return Keypoint(position: Point(x: Double(landmark.x) * width, y: Double(landmark.y) * height),
                            score: visibility ?? 0, visibility: visibility, presence: landmark.presence.map(Double.init),
                            z: Double(landmark.z) * width)
        }
        var pose = Pose(keypoints: keypoints, score: Double(score), keypointSet: .blazePose33)
        pose.world = worldLandmarks.map { WorldPoint(x: Double($0.x), y: Double($0.y), z: Double($0.z)) }
        return pose
    }
}
