import Foundation

/// MediaPipe's `RectTransformationCalculator` on a `NormalizedRect`: shift in the rectangle's own
/// (rotated) frame, optionally square on the long side in pixels, then scale. Float32 throughout.
public struct RectTransformation: Sendable {
    public var scaleX: Float = 1
    public var scaleY: Float = 1
    public var shiftX: Float = 0
    public var shiftY: Float = 0
    public var squareLong = false

    public init(scale: Float, shiftX: Float = 0, shiftY: Float = 0, squareLong: Bool = true) {
        self.scaleX = scale
        self.scaleY = scale
        self.shiftX = shiftX
        self.shiftY = shiftY
        self.squareLong = squareLong
    }

    /// BlazePose: detection or auxiliary landmarks → landmark region (× 1.25, square).
    public static let pose = RectTransformation(scale: 1.25)
    /// Palm detection → hand region (shift −0.5 towards the fingers, square, × 2.6).
    public static let palm = RectTransformation(scale: 2.6, shiftY: -0.5)
    /// Hand landmarks → next hand region (shift −0.1, square, × 2.0).
    public static let handLandmarks = RectTransformation(scale: 2.0, shiftY: -0.1)

    public func apply(_ rect: NormalizedRect, imageSize size: ImageSize) -> NormalizedRect {
        var rect = rect
        var width = rect.width, height = rect.height
        let rotation = rect.rotation
        let imageWidth = Float(size.width), imageHeight = Float(size.height)
        if rotation == 0 {
            rect.xCenter += width * shiftX
            rect.yCenter += height * shiftY
        } else {
            let xShift = (imageWidth * width * shiftX * cosf(rotation) - imageHeight * height * shiftY * sinf(rotation)) / imageWidth
            let yShift = (imageWidth * width * shiftX * sinf(rotation) + imageHeight * height * shiftY * cosf(rotation)) / imageHeight
            rect.xCenter += xShift
            rect.yCenter += yShift
        }
        if squareLong {
            let longSide = max(width * imageWidth, height * imageHeight)
            width = longSide / imageWidth
            height = longSide / imageHeight
        }
        rect.width = width * scaleX
        rect.height = height * scaleY
        return rect
    }
}
