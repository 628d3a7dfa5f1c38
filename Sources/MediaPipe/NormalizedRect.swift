/// A rotated rectangle in normalized image coordinates, as MediaPipe's `NormalizedRect` proto.
///
/// The centre and size are fractions of the image's width and height (`xCenter · W` is in
/// pixels); `rotation` is in radians, clockwise in image coordinates (y down), about the centre.
/// Every field is float32, as MediaPipe stores and computes them.
public struct NormalizedRect: Sendable, Equatable, CustomStringConvertible {
    public var xCenter: Float
    public var yCenter: Float
    public var width: Float
    public var height: Float
    public var rotation: Float

    public init(xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float = 0) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
        self.rotation = rotation
    }

    /// The axis-aligned box of the rectangle, rotation ignored (MediaPipe's `NormalizedRectToRectangle`).
    var axisAlignedBox: RelativeBox {
        RelativeBox(xmin: xCenter - width / 2, ymin: yCenter - height / 2, width: width, height: height)
    }

    /// Every field is finite.
    public var isFinite: Bool { xCenter.isFinite && yCenter.isFinite && width.isFinite && height.isFinite && rotation.isFinite }

    public var description: String {
        "NormalizedRect(x: \(xCenter), y: \(yCenter), w: \(width), h: \(height), r: \(rotation))"
    }
}

/// The fraction of a model input on each side that holds letterbox padding, not image (MediaPipe's
/// `LETTERBOX_PADDING`: `[left, top, right, bottom]`, each in `[0, 0.5)`).
public struct LetterboxPadding: Sendable, Equatable {
    public var left: Float
    public var top: Float
    public var right: Float
    public var bottom: Float

    public init(left: Float = 0, top: Float = 0, right: Float = 0, bottom: Float = 0) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    /// No padding.
    public static let none = LetterboxPadding()

    /// Maps a normalized x of the padded input to the unpadded region (`DetectionLetterboxRemoval`,
    /// `LandmarkLetterboxRemoval`).
    @inlinable func unpaddedX(_ x: Float) -> Float { (x - left) / (1 - (left + right)) }
    @inlinable func unpaddedY(_ y: Float) -> Float { (y - top) / (1 - (top + bottom)) }
    /// Widths (and z, which scales as x) of the padded input in units of the unpadded region.
    @inlinable func unpaddedWidth(_ w: Float) -> Float { w / (1 - (left + right)) }
    @inlinable func unpaddedHeight(_ h: Float) -> Float { h / (1 - (top + bottom)) }
}
