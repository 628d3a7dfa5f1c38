import Foundation

/// Image size in pixels, as MediaPipe's calculators take it (`IMAGE_SIZE`).
public struct ImageSize: Sendable, Equatable {
    public var width: Int, height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// MediaPipe's detection → region calculators.
///
/// - `alignmentPoints` (`AlignmentPointsRectsCalculator`, BlazePose): centre at the start keypoint,
///   a square of side 2·|end − start| in pixels, rotated so start → end points up.
/// - `boundingBox` (`DetectionsToRectsCalculator`, palms): the box's centre and size, rotated so
///   start → end points up.
/// Both in float32 as MediaPipe computes them; rotation = NormalizeRadians(target − atan2(−Δy, Δx)).
public enum DetectionToRect {
    /// `NormalizeRadians`: the angle in [−π, π).
    public static func normalizeRadians(_ angle: Float) -> Float {
        Float(Double(angle) - 2 * Double.pi * floor((Double(angle) + Double.pi) / (2 * Double.pi)))
    }

    /// The target angle as MediaPipe stores it: `M_PI * degrees / 180.0` as a float.
    static func targetAngle(degrees: Float) -> Float { Float(Double.pi * Double(degrees) / 180) }

    /// The rotation that turns the direction `start → end` (pixels) to `targetDegrees`.
    static func rotation(from start: SIMD2<Float>, to end: SIMD2<Float>, targetDegrees: Float) -> Float {
        normalizeRadians(targetAngle(degrees: targetDegrees) - atan2f(-(end.y - start.y), end.x - start.x))
    }

    /// The keypoint `index` of `detection` in pixels (float32).
    static func pixels(_ detection: Detection, _ index: Int, _ size: ImageSize) -> SIMD2<Float> {
        SIMD2(detection.keypoints[index].x * Float(size.width), detection.keypoints[index].y * Float(size.height))
    }

    /// `AlignmentPointsRectsCalculator` (BlazePose: start 0 = hip centre, end 1 = size/rotation point, target 90°).
    public static func alignmentPoints(_ detection: Detection, start: Int = 0, end: Int = 1, targetDegrees: Float = 90,
                                       imageSize size: ImageSize) -> NormalizedRect {
        let center = pixels(detection, start, size), scalePoint = pixels(detection, end, size)
        let dx = scalePoint.x - center.x, dy = scalePoint.y - center.y
        let boxSize = Float(Double(sqrtf(dx * dx + dy * dy)) * 2)
        return NormalizedRect(xCenter: center.x / Float(size.width), yCenter: center.y / Float(size.height),
                              width: boxSize / Float(size.width), height: boxSize / Float(size.height),
                              rotation: rotation(from: center, to: scalePoint, targetDegrees: targetDegrees))
    }

    /// `DetectionsToRectsCalculator` on a relative box (palms: start 0 = wrist, end 2 = middle-finger MCP, target 90°).
    public static func boundingBox(_ detection: Detection, start: Int = 0, end: Int = 2, targetDegrees: Float = 90,
                                   imageSize size: ImageSize) -> NormalizedRect {
        let box = detection.box
        return NormalizedRect(xCenter: box.xmin + box.width / 2, yCenter: box.ymin + box.height / 2,
                              width: box.width, height: box.height,
                              rotation: rotation(from: pixels(detection, start, size), to: pixels(detection, end, size),
                                                 targetDegrees: targetDegrees))
    }
}
