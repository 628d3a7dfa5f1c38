/// BlazePose's landmark model outputs → landmarks, as `TensorsToPoseLandmarksAndSegmentation` and
/// `PoseLandmarksAndSegmentationInverseProjection` compute them: decode 39 × 5 values, refine x, y
/// from the 64×64 heatmap, remove the letterbox, project into the image through the region;
/// world landmarks rotated by the region, with the image landmarks' visibility and presence.
public struct PoseLandmarks: Sendable, Equatable {
    /// The pose flag (`Identity_1`, a probability: the model applies the sigmoid).
    public var poseScore: Float
    /// The 33 landmarks, normalized to the image (z at the scale of x), with visibility and presence.
    public var landmarks: [Landmark]
    /// The two auxiliary landmarks (hip centre, size/rotation point) that steer the next region.
    public var auxiliary: [Landmark]
    /// The 33 world landmarks in metres (origin between the hips), with visibility and presence.
    public var worldLandmarks: [Landmark]

    public init(poseScore: Float, landmarks: [Landmark], auxiliary: [Landmark], worldLandmarks: [Landmark]) {
        self.poseScore = poseScore
        self.landmarks = landmarks
        self.auxiliary = auxiliary
        self.worldLandmarks = worldLandmarks
    }

    /// BlazePose's landmark count (the model's 39 minus the 2 auxiliary and 4 unused).
    public static let count = 33

    /// Decodes the model's outputs for a crop of `roi` with `padding`.
    /// - Parameters:
    ///   - landmarkTensor: `Identity`, 195 values (39 × x, y, z, visibility and presence logits) in 256-px crop units.
    ///   - poseFlag: `Identity_1`, one probability.
    ///   - heatmap: `Identity_3`, `[64, 64, 39]` HWC logits.
    ///   - worldTensor: `Identity_4`, 117 values (39 × x, y, z metres).
    public init(landmarkTensor: UnsafeBufferPointer<Float>, poseFlag: Float, heatmap: UnsafeBufferPointer<Float>,
                worldTensor: UnsafeBufferPointer<Float>, roi: NormalizedRect, padding: LetterboxPadding = .none,
                refinement: RefineLandmarksFromHeatmap = RefineLandmarksFromHeatmap()) throws {
        var crop = try TensorsToLandmarks.pose.landmarks(landmarkTensor)
        try refinement.refine(&crop, heatmap: heatmap, height: 64, width: 64, channels: 39)
        let projected = LandmarkProjection.project(crop, padding: padding, roi: roi)
        var world = LandmarkProjection.rotateWorld(Array(try TensorsToLandmarks.pose.worldLandmarks(worldTensor).prefix(Self.count)), roi: roi)
        for i in world.indices {
            world[i].visibility = projected[i].visibility
            world[i].presence = projected[i].presence
        }
        self.init(poseScore: poseFlag, landmarks: Array(projected[0..<Self.count]), auxiliary: Array(projected[Self.count..<(Self.count + 2)]),
                  worldLandmarks: world)
    }
}
