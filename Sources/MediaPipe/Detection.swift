/// An axis-aligned box in normalized image coordinates (MediaPipe's `RelativeBoundingBox`).
public struct RelativeBox: Sendable, Equatable {
    public var xmin: Float, ymin: Float, width: Float, height: Float

    public init(xmin: Float, ymin: Float, width: Float, height: Float) {
        self.xmin = xmin
        self.ymin = ymin
        self.width = width
        self.height = height
    }

    /// The area as `Rectangle_f` computes it: from its corners (min and min + size).
    var area: Float { ((xmin + width) - xmin) * ((ymin + height) - ymin) }

    /// Intersection over union as MediaPipe's `Rectangle_f` computes it (0 when they do not overlap).
    func intersectionOverUnion(_ other: RelativeBox) -> Float {
        let left = max(xmin, other.xmin), right = min(xmin + width, other.xmin + other.width)
        let top = max(ymin, other.ymin), bottom = min(ymin + height, other.ymin + other.height)
        guard left <= right && top <= bottom else { return 0 }
        let intersection = (right - left) * (bottom - top)
        let union = area + other.area - intersection
        return union > 0 ? intersection / union : 0
    }
}

/// A detection as MediaPipe's `Detection` proto with a relative bounding box: score, box and
/// keypoints, all in normalized coordinates of the image the detector saw (or, after letterbox
/// removal, of the original image).
public struct Detection: Sendable, Equatable {
    public var score: Float
    public var box: RelativeBox
    /// The keypoints (x, y), normalized.
    public var keypoints: [SIMD2<Float>]

    public init(score: Float, box: RelativeBox, keypoints: [SIMD2<Float>]) {
        self.score = score
        self.box = box
        self.keypoints = keypoints
    }

    /// The detection in the coordinates of the image without the letterbox padding
    /// (`DetectionLetterboxRemovalCalculator`).
    public func removingLetterbox(_ padding: LetterboxPadding) -> Detection {
        Detection(score: score,
                  box: RelativeBox(xmin: padding.unpaddedX(box.xmin), ymin: padding.unpaddedY(box.ymin),
                                   width: padding.unpaddedWidth(box.width), height: padding.unpaddedHeight(box.height)),
                  keypoints: keypoints.map { SIMD2(padding.unpaddedX($0.x), padding.unpaddedY($0.y)) })
    }
}
