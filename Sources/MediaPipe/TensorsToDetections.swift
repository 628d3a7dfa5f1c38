import Foundation

/// MediaPipe's `TensorsToDetectionsCalculator` for SSD heads with fixed-size anchors: raw boxes
/// and score logits → detections above the score threshold, in the detector input's normalized
/// coordinates.
///
/// Per anchor (`reverse_output_order`): raw `x, y, w, h` then keypoints `(x, y)`, in input pixels
/// relative to the anchor centre: `x_c = raw_x / xScale · a_w + a_x`, `w = raw_w / wScale · a_w`,
/// keypoints likewise. Score = sigmoid(clip(logit, ±clip)); boxes with a negative width or height
/// are dropped (MediaPipe b/171391719). All float32, as MediaPipe computes it.
public struct TensorsToDetections: Sendable {
    /// Values per anchor in the box tensor (4 box values + 2 per keypoint).
    public var coordinateCount: Int
    public var keypointCount: Int
    /// Input size in pixels the raw values are measured in (x, y, w, h scales).
    public var scale: Float
    public var scoreClip: Float
    /// Detections scoring below are dropped (`min_detection_confidence`).
    public var minimumScore: Float

    public init(coordinateCount: Int, keypointCount: Int, scale: Float, scoreClip: Float = 100, minimumScore: Float = 0.5) {
        precondition(coordinateCount >= 4 + 2 * keypointCount, "TensorsToDetections: too few coordinates for the keypoints")
        self.coordinateCount = coordinateCount
        self.keypointCount = keypointCount
        self.scale = scale
        self.scoreClip = scoreClip
        self.minimumScore = minimumScore
    }

    /// BlazePose's detector: 12 values per anchor (box + 4 keypoints), 224 px.
    public static let poseDetection = TensorsToDetections(coordinateCount: 12, keypointCount: 4, scale: 224)
    /// The palm detector: 18 values per anchor (box + 7 keypoints), 192 px.
    public static let palmDetection = TensorsToDetections(coordinateCount: 18, keypointCount: 7, scale: 192)

    /// Decodes `boxes` (`[anchors.count, coordinateCount]`) and `scores` (`[anchors.count]` logits).
    public func detections(boxes: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>, anchors: [Anchor]) throws -> [Detection] {
        guard boxes.count == anchors.count * coordinateCount else {
            throw MediaPipeError.outputSize(name: "boxes", count: boxes.count, expected: anchors.count * coordinateCount)
        }
        guard scores.count == anchors.count else {
            throw MediaPipeError.outputSize(name: "scores", count: scores.count, expected: anchors.count)
        }
        var detections: [Detection] = []
        for (i, anchor) in anchors.enumerated() {
            let logit = min(max(scores[i], -scoreClip), scoreClip)
            let score = 1 / (1 + expf(-logit))
            // NaN fails this comparison too, so a NaN logit never becomes a detection.
            guard score >= minimumScore else { continue }
            let raw = boxes.baseAddress! + i * coordinateCount
            let xCenter = raw[0] / scale * anchor.width + anchor.xCenter
            let yCenter = raw[1] / scale * anchor.height + anchor.yCenter
            let h = raw[3] / scale * anchor.height
            let w = raw[2] / scale * anchor.width
            let ymin = yCenter - h / 2, xmin = xCenter - w / 2
            let ymax = yCenter + h / 2, xmax = xCenter + w / 2
            let box = RelativeBox(xmin: xmin, ymin: ymin, width: xmax - xmin, height: ymax - ymin)
            guard box.width >= 0 && box.height >= 0 else { continue }
            var keypoints: [SIMD2<Float>] = []
            keypoints.reserveCapacity(keypointCount)
            for k in 0..<keypointCount {
                keypoints.append(SIMD2(raw[4 + 2 * k] / scale * anchor.width + anchor.xCenter,
                                       raw[5 + 2 * k] / scale * anchor.height + anchor.yCenter))
            }
            detections.append(Detection(score: score, box: box, keypoints: keypoints))
        }
        return detections
    }
}
