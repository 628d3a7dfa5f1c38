/// The coordinate system keypoints are written in (`posekit pose --coordinates`, JSON Lines'
/// `"coordinates"`). PoseKit computes in ``pixels``; the others are views of them for a
/// `width × height` image:
///
/// | system | x | y | origin | as in |
/// |---|---|---|---|---|
/// | `pixels` | `px` | `py` | top-left corner, y down | PoseKit, TF.js PoseNet |
/// | `normalized` | `px / width` | `py / height` | top-left corner, y down | MediaPipe's landmarks |
/// | `vision` | `px / width` | `1 − py / height` | lower-left corner, y up | Apple's Vision |
///
/// A point outside the image stays outside (a value below 0 or above 1 when normalized).
public enum KeypointCoordinates: String, Sendable, CaseIterable {
    case pixels, normalized, vision

    /// `point` (image pixels of a `width × height` image) in this system; pixels unchanged.
    /// The size must be positive for the normalized systems (`precondition`).
    @inlinable public func fromPixels(_ point: Point, width: Int, height: Int) -> Point {
        switch self {
        case .pixels: return point
        case .normalized:
            precondition(width > 0 && height > 0, "normalized coordinates need the image size")
            return Point(x: point.x / Double(width), y: point.y / Double(height))
        case .vision:
            precondition(width > 0 && height > 0, "normalized coordinates need the image size")
            return Point(x: point.x / Double(width), y: 1 - point.y / Double(height))
        }
    }

    /// `point` in this system back in image pixels of a `width × height` image (the inverse of
    /// ``fromPixels(_:width:height:)``).
    @inlinable public func toPixels(_ point: Point, width: Int, height: Int) -> Point {
        switch self {
        case .pixels: return point
        case .normalized:
            precondition(width > 0 && height > 0, "normalized coordinates need the image size")
            return Point(x: point.x * Double(width), y: point.y * Double(height))
        case .vision:
            precondition(width > 0 && height > 0, "normalized coordinates need the image size")
            return Point(x: point.x * Double(width), y: (1 - point.y) * Double(height))
        }
    }

    /// A keypoint's depth `z` (MediaPipe's: pixels on the scale of x) in this system: unchanged in
    /// pixels, a fraction of the width in the normalized ones (as MediaPipe's normalized `z`).
    @inlinable public func depthFromPixels(_ z: Double, width: Int) -> Double {
        self == .pixels ? z : z / Double(width)
    }

    /// `z` in this system back in pixels (the inverse of ``depthFromPixels(_:width:)``).
    @inlinable public func depthToPixels(_ z: Double, width: Int) -> Double {
        self == .pixels ? z : z * Double(width)
    }

    /// A box in image pixels in this system, as `[x0, y0, x1, y1]` with `x0 ≤ x1`, `y0 ≤ y1`:
    /// in `vision`, `y0` is the box's bottom edge (Vision's `boundingBox` origin).
    public func box(_ box: BoundingBox, width: Int, height: Int) -> BoundingBox {
        let a = fromPixels(Point(x: box.minX, y: box.minY), width: width, height: height)
        let b = fromPixels(Point(x: box.maxX, y: box.maxY), width: width, height: height)
        return BoundingBox(minX: min(a.x, b.x), minY: min(a.y, b.y), maxX: max(a.x, b.x), maxY: max(a.y, b.y))
    }

    /// Decimals written for a coordinate in this system (``JSONText/Decimals``): 1/100 pixel,
    /// or 10⁻⁶ of the image for the normalized ones (1/100 pixel of an image 10,000 pixels wide).
    public var decimals: Int { self == .pixels ? JSONText.Decimals.pixels : JSONText.Decimals.normalizedCoordinates }
}
