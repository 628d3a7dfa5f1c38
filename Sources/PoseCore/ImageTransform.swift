/// An axis-aligned scale and offset from model-input pixels to original-image pixels:
/// `original = input × scale + offset`, per axis.
///
/// The decoders work in the pixels of the square image the network saw; this undoes the resize
/// (and any padding) so callers get keypoints on their own image. ``InputPlacement/inputToImage``
/// is the one for a frame (the one definition of the image ↔ input geometry).
public struct ImageTransform: Sendable, Equatable {
    public var scaleX: Double
    public var scaleY: Double
    public var offsetX: Double
    public var offsetY: Double

    public init(scaleX: Double, scaleY: Double, offsetX: Double = 0, offsetY: Double = 0) {
        self.scaleX = scaleX; self.scaleY = scaleY
        self.offsetX = offsetX; self.offsetY = offsetY
    }

    /// Leaves positions unchanged.
    public static let identity = ImageTransform(scaleX: 1, scaleY: 1)

    /// `point` (model-input pixels) in original-image pixels.
    public func apply(_ point: Point) -> Point {
        Point(x: point.x * scaleX + offsetX, y: point.y * scaleY + offsetY)
    }
}

extension Pose {
    /// This pose with every keypoint moved by `transform`; scores unchanged.
    public func mapped(by transform: ImageTransform) -> Pose {
        var copy = self
        for i in copy.keypoints.indices { copy.keypoints[i].position = transform.apply(copy.keypoints[i].position) }
        return copy
    }
}
