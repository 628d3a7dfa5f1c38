/// BlazePose's auxiliary landmarks → region (`LandmarksToDetectionCalculator`, then
/// `AlignmentPointsRectsCalculator` as for a detection): centre at auxiliary point 0 (hip
/// centre), side 2·|aux1 − aux0|, rotation aux0 → aux1 to 90°. `PoseLandmarksToRoi` then applies
/// `RectTransformation.pose` (× 1.25, square) for the next frame's crop; the filters' object
/// scale uses the rectangle without it.
public enum PoseLandmarksToRect {
    /// The alignment rectangle of the two auxiliary landmarks (normalized to the image).
    public static func alignmentRect(auxiliary: [Landmark], imageSize: ImageSize) -> NormalizedRect {
        precondition(auxiliary.count >= 2, "PoseLandmarksToRect: two auxiliary landmarks expected")
        let detection = Detection(score: 1, box: RelativeBox(xmin: 0, ymin: 0, width: 0, height: 0),
                                  keypoints: auxiliary.map { SIMD2($0.x, $0.y) })
        return DetectionToRect.alignmentPoints(detection, imageSize: imageSize)
    }

    /// The next frame's landmark region from the (filtered) auxiliary landmarks.
    public static func roi(auxiliary: [Landmark], imageSize: ImageSize) -> NormalizedRect {
        RectTransformation.pose.apply(alignmentRect(auxiliary: auxiliary, imageSize: imageSize), imageSize: imageSize)
    }
}
