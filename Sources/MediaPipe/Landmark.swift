/// A landmark as MediaPipe's `NormalizedLandmark` / `Landmark` protos: x, y, z and, for BlazePose,
/// visibility and presence (probabilities). Normalized landmarks are fractions of the image (z at
/// the scale of x); world landmarks are metres.
public struct Landmark: Sendable, Equatable {
    public var x: Float
    public var y: Float
    public var z: Float
    /// The probability that the point is visible (not occluded); nil where the model gives none (hands).
    public var visibility: Float?
    /// The probability that the point is in the image; nil where the model gives none (hands).
    public var presence: Float?

    public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }
}
