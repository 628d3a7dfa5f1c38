/// One hand from the hand landmark model's outputs, as `HandLandmarkCpu` computes it: 21
/// landmarks (x, y /224, z /224/0.4) projected into the image through the region, world landmarks
/// rotated by the region, the presence score and the handedness.
public struct HandLandmarks: Sendable, Equatable {
    /// The hand flag (`Identity_1`, a probability: the model applies the sigmoid).
    public var presence: Float
    public var handedness: Handedness
    /// The 21 landmarks in MediaPipe's order, normalized to the image (z relative to the wrist, at the scale of x).
    public var landmarks: [Landmark]
    /// The 21 world landmarks in metres (origin near the hand's centre).
    public var worldLandmarks: [Landmark]

    public init(presence: Float, handedness: Handedness, landmarks: [Landmark], worldLandmarks: [Landmark]) {
        self.presence = presence
        self.handedness = handedness
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
    }

    public static let count = 21

    /// Decodes the model's outputs for a crop of `roi` with `padding`.
    /// - Parameters:
    ///   - landmarkTensor: `Identity`, 63 values in 224-px crop units.
    ///   - handFlag: `Identity_1`, one probability.
    ///   - leftProbability: `Identity_2`, the probability of MediaPipe's "Left" label.
    ///   - worldTensor: `Identity_3`, 63 values in metres.
    public init(landmarkTensor: UnsafeBufferPointer<Float>, handFlag: Float, leftProbability: Float,
                worldTensor: UnsafeBufferPointer<Float>, roi: NormalizedRect, padding: LetterboxPadding = .none) throws {
        let crop = try TensorsToLandmarks.hand.landmarks(landmarkTensor)
        self.init(presence: handFlag, handedness: Handedness(leftProbability: leftProbability),
                  landmarks: LandmarkProjection.project(crop, padding: padding, roi: roi),
                  worldLandmarks: LandmarkProjection.rotateWorld(try TensorsToLandmarks.hand.worldLandmarks(worldTensor), roi: roi))
    }
}
