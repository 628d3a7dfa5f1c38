import Foundation

/// MediaPipe's `HandLandmarksToRectCalculator` as the hand tracking graph feeds it: the next
/// frame's hand region from 12 of the 21 landmarks (wrist, thumb CMC/MCP/IP and the MCP and PIP of
/// each finger: the points that stay put when fingers curl), before `RectTransformation.handLandmarks`.
///
/// Rotation from the wrist to the mean of the middle MCP and the midpoint of index and ring MCP
/// (target 90°); the box is the extent of the 12 points in the de-rotated frame, re-rotated about
/// their axis-aligned centre. MediaPipe's `FLT_MIN` start for the maxima is kept.
public enum HandLandmarksToRect {
    /// The landmarks the graph passes (`SplitNormalizedLandmarkListCalculator` ranges 0–3, 5–6, 9–10, 13–14, 17–18).
    public static let usedLandmarks = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18]

    /// The hand's next region (`HandLandmarkLandmarksToRoi`: `rect`, then shift −0.1, square, × 2).
    public static func roi(_ landmarks: [Landmark], imageSize: ImageSize) -> NormalizedRect {
        RectTransformation.handLandmarks.apply(rect(landmarks, imageSize: imageSize), imageSize: imageSize)
    }

    /// The region of `landmarks` (21 hand landmarks, normalized to the image).
    public static func rect(_ landmarks: [Landmark], imageSize size: ImageSize) -> NormalizedRect {
        precondition(landmarks.count >= 19, "HandLandmarksToRect: 21 hand landmarks expected")
        let points = usedLandmarks.map { SIMD2<Float>(landmarks[$0].x, landmarks[$0].y) }
        let width = Float(size.width), height = Float(size.height)
        // Indices into the 12-point subset, as the calculator's constants are.
        let wrist = points[0], indexMCP = points[4], middleMCP = points[6], ringMCP = points[8]
        let x0 = wrist.x * width, y0 = wrist.y * height
        var x1 = (indexMCP.x + ringMCP.x) / 2, y1 = (indexMCP.y + ringMCP.y) / 2
        x1 = (x1 + middleMCP.x) / 2 * width
        y1 = (y1 + middleMCP.y) / 2 * height
        let rotation = DetectionToRect.normalizeRadians(DetectionToRect.targetAngle(degrees: 90) - atan2f(-(y1 - y0), x1 - x0))
        let reverseAngle = DetectionToRect.normalizeRadians(-rotation)

        var maxX = Float.leastNormalMagnitude, maxY = Float.leastNormalMagnitude
        var minX = Float.greatestFiniteMagnitude, minY = Float.greatestFiniteMagnitude
        for p in points {
            maxX = max(maxX, p.x); maxY = max(maxY, p.y)
            minX = min(minX, p.x); minY = min(minY, p.y)
        }
        let alignedCenterX = (maxX + minX) / 2, alignedCenterY = (maxY + minY) / 2

        maxX = Float.leastNormalMagnitude; maxY = Float.leastNormalMagnitude
        minX = Float.greatestFiniteMagnitude; minY = Float.greatestFiniteMagnitude
        let reverseCos = cosf(reverseAngle), reverseSin = sinf(reverseAngle)
        for p in points {
            let originalX = (p.x - alignedCenterX) * width
            let originalY = (p.y - alignedCenterY) * height
            let projectedX = originalX * reverseCos - originalY * reverseSin
            let projectedY = originalX * reverseSin + originalY * reverseCos
            maxX = max(maxX, projectedX); maxY = max(maxY, projectedY)
            minX = min(minX, projectedX); minY = min(minY, projectedY)
        }
        let projectedCenterX = (maxX + minX) / 2, projectedCenterY = (maxY + minY) / 2
        let centerX = projectedCenterX * cosf(rotation) - projectedCenterY * sinf(rotation) + width * alignedCenterX
        let centerY = projectedCenterX * sinf(rotation) + projectedCenterY * cosf(rotation) + height * alignedCenterY
        return NormalizedRect(xCenter: centerX / width, yCenter: centerY / height,
                              width: (maxX - minX) / width, height: (maxY - minY) / height, rotation: rotation)
    }
}
