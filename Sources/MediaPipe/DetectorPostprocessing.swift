/// A detector's post-processing as MediaPipe's `PoseDetectionCpu` / `PalmDetectionCpu` run it:
/// decode against the anchors (`TensorsToDetections`), weighted NMS at IoU 0.3, letterbox removal.
/// The anchors are generated once.
public struct DetectorPostprocessing: Sendable {
    public let anchors: [Anchor]
    public let decoding: TensorsToDetections
    public let iouThreshold: Float

    public init(anchors: SSDAnchorOptions, decoding: TensorsToDetections, iouThreshold: Float = 0.3) {
        self.anchors = anchors.anchors()
        self.decoding = decoding
        self.iouThreshold = iouThreshold
    }

    /// BlazePose's detector (2254 anchors, box + 4 keypoints, threshold 0.5).
    public static let poseDetection = DetectorPostprocessing(anchors: .poseDetection, decoding: .poseDetection)
    /// The palm detector (2016 anchors, box + 7 keypoints, threshold 0.5).
    public static let palmDetection = DetectorPostprocessing(anchors: .palmDetection, decoding: .palmDetection)

    /// The detections, best first, in normalized coordinates of the original image.
    /// - Parameters:
    ///   - boxes: the box output (`Identity`), `anchors.count × coordinateCount` values.
    ///   - scores: the score logits (`Identity_1`), one per anchor.
    ///   - padding: the letterbox padding of the detector's input.
    public func detections(boxes: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>,
                           padding: LetterboxPadding) throws -> [Detection] {
        let decoded = try decoding.detections(boxes: boxes, scores: scores, anchors: anchors)
        return NonMaxSuppression.weighted(decoded, iouThreshold: iouThreshold).map { $0.removingLetterbox(padding) }
    }

    /// BlazePose: detection → landmark region (`PoseDetectionToRoi`: alignment points 0 → 1, × 1.25, square).
    public static func poseRegion(_ detection: Detection, imageSize: ImageSize) -> NormalizedRect {
        RectTransformation.pose.apply(DetectionToRect.alignmentPoints(detection, imageSize: imageSize), imageSize: imageSize)
    }

    /// Palm → hand region (`PalmDetectionDetectionToRoi`: box, rotation 0 → 2, shift −0.5, square, × 2.6).
    public static func palmRegion(_ detection: Detection, imageSize: ImageSize) -> NormalizedRect {
        RectTransformation.palm.apply(DetectionToRect.boundingBox(detection, imageSize: imageSize), imageSize: imageSize)
    }
}
