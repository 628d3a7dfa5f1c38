import FrameIO
import PoseCore

/// A person another body model found whom BlazePose's landmark model reads in none of their regions (half hidden,
/// small, faint: docs/blazepose.md, "Everyone in the frame"), reported from that model's pose when
/// ``BlazePoseRegionFromPose/reportsUnreadPeople``.
extension BlazePosePersonSeed {
    /// The other model's pose (``pose``, COCO-17) in BlazePose's 33 landmarks: each COCO-17 point at its BlazePose
    /// landmark (``BlazePoseRegionFromPose/cocoLandmarks``) with its score, the 16 landmarks COCO-17 lacks absent
    /// as every model's unseen point is (score 0, no visibility, presence or depth) and placed on the point they
    /// hang off (``absentLandmarkAnchors``: a skeleton neighbour COCO-17 has, the mouth on the nose) so the pose's
    /// box stays the person's; no world points;
    /// the pose's score the other model's; `Pose/landmarksFrom` ``modelName``. A point whose position is not
    /// finite is absent too, at the centre of the finite ones. nil without a pose, or with no finite point or score.
    public var reported: Pose? {
        guard let pose, pose.keypoints.count == BlazePoseRegionFromPose.cocoLandmarks.count, pose.score.isFinite else { return nil }
        let finite = pose.keypoints.filter { $0.position.x.isFinite && $0.position.y.isFinite }.map(\.position)
        guard let first = finite.first else { return nil }
        let low = finite.reduce(first) { Point(x: min($0.x, $1.x), y: min($0.y, $1.y)) }
        let high = finite.reduce(first) { Point(x: max($0.x, $1.x), y: max($0.y, $1.y)) }
        let centre = Point(x: (low.x + high.x) / 2, y: (low.y + high.y) / 2)
        var keypoints = [Keypoint](repeating: Keypoint(position: centre, score: 0), count: KeypointSet.blazePose33.count)
        for (k, keypoint) in pose.keypoints.enumerated() where keypoint.position.x.isFinite && keypoint.position.y.isFinite {
            let score = keypoint.score.isFinite ? min(max(keypoint.score, 0), 1) : 0
            keypoints[BlazePoseRegionFromPose.cocoLandmarks[k]] = Keypoint(position: keypoint.position, score: score)
        }
        for (landmark, anchor) in Self.absentLandmarkAnchors { keypoints[landmark].position = keypoints[anchor].position }
        var reported = Pose(keypoints: keypoints, score: min(max(pose.score, 0), 1), keypointSet: .blazePose33)
        reported.landmarksFrom = modelName
        return reported
    }

    /// Each BlazePose landmark COCO-17 lacks → the COCO-17 landmark it hangs off, derived from the skeleton
    /// (`KeypointSet.blazePose33.edges`, MediaPipe's `POSE_CONNECTIONS`): its first neighbour there that COCO-17 has
    /// (an eye's corners on the nose or the eye, a hand's fingers on its wrist, a heel and a foot on the ankle); a
    /// landmark joined to none (the mouth's corners, joined only to each other) on COCO-17's first point, the nose.
    public static let absentLandmarkAnchors: [(landmark: Int, anchor: Int)] = {
        let set = KeypointSet.blazePose33, coco = Set(BlazePoseRegionFromPose.cocoLandmarks)
        return set.names.indices.filter { !coco.contains($0) }.map { landmark in
            let neighbours = set.edges.compactMap { edge -> Int? in
                edge.from == landmark ? edge.to : edge.to == landmark ? edge.from : nil
            }
            return (landmark, neighbours.first { coco.contains($0) } ?? BlazePoseRegionFromPose.cocoLandmarks[0])
        }
    }()
}

extension BlazePoseRegionFromPose {
    /// The seed of a pose that gives no region (``region(_:imageSize:)``: scoring under ``minimumPoseScore``, or
    /// fewer than ``minimumKeypoints`` confident points), never read by BlazePose, only reported from the pose
    /// (``BlazePosePersonSeed/reported``) when nobody reported already lies on it: its region empty, its points the
    /// confident ones (every finite one when fewer than two are). nil when the pose is not COCO-17 or has no
    /// finite score or point.
    public func unreadSeed(_ pose: Pose, imageSize size: ImageSize) -> BlazePosePersonSeed? {
        guard pose.keypoints.count == Self.cocoLandmarks.count, pose.score.isFinite, size.width > 0, size.height > 0 else { return nil }
        func points(minimumScore: Double) -> [(landmark: Int, point: SIMD2<Float>)] {
            pose.keypoints.enumerated().compactMap { k, keypoint in
                guard keypoint.score >= minimumScore, keypoint.position.x.isFinite, keypoint.position.y.isFinite else { return nil }
                return (Self.cocoLandmarks[k], SIMD2(Float(keypoint.position.x), Float(keypoint.position.y)))
            }
        }
        var chosen = points(minimumScore: minimumKeypointScore)
        if chosen.count < 2 { chosen = points(minimumScore: -.infinity) }
        guard let first = chosen.first else { return nil }
        let low = chosen.reduce(first.point) { pointwiseMin($0, $1.point) }, high = chosen.reduce(first.point) { pointwiseMax($0, $1.point) }
        let size = length(high - low)
        return BlazePosePersonSeed(region: NormalizedRect(xCenter: 0, yCenter: 0, width: 0, height: 0), points: chosen,
                                   size: size.isFinite ? size : 0, pose: pose)
    }
}
