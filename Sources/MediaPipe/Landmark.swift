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

extension Landmark {
    /// The landmark in pixels of a `size` image: x·W, y·H and z·W (z at the scale of x), as
    /// MediaPipe's `NormalizedLandmarksToLandmarks` converts; visibility and presence kept.
    public func inPixels(_ size: ImageSize) -> Landmark {
        var p = self
        p.x = x * Float(size.width); p.y = y * Float(size.height); p.z = z * Float(size.width)
        return p
    }

    /// The landmark normalized to a `size` image (the inverse of `inPixels`).
    public func normalized(_ size: ImageSize) -> Landmark {
        var l = self
        l.x = x / Float(size.width); l.y = y / Float(size.height); l.z = z / Float(size.width)
        return l
    }
}
