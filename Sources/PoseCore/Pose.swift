/// A point in image pixels: `x` to the right, `y` down, origin at the top-left pixel's corner.
public struct Point: Equatable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    /// Squared Euclidean distance, the quantity NMS radii are compared against.
    @inlinable public func squaredDistance(to other: Point) -> Double {
        let dx = x - other.x, dy = y - other.y
        return dx * dx + dy * dy
    }
}

/// One detected body part.
public struct Keypoint: Equatable, Sendable, Codable {
    /// Which part this is.
    public var part: BodyPart
    /// Where it is, in pixels. The decoders return model-input pixels (the resized image the
    /// network saw); ``Pose/mapped(by:)`` with an ``ImageTransform`` moves them onto the original image.
    public var position: Point
    /// Heatmap confidence in 0...1.
    public var score: Double

    public init(part: BodyPart, position: Point, score: Double) {
        self.part = part
        self.position = position
        self.score = score
    }
}

/// An axis-aligned box in image pixels.
public struct BoundingBox: Equatable, Sendable, Codable {
    public var minX: Double, minY: Double, maxX: Double, maxY: Double
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }
    public var width: Double { maxX - minX }
    public var height: Double { maxY - minY }
    /// Width × height; Apple's action sample picks the person with the largest area.
    public var area: Double { width * height }
}

/// One person: 17 keypoints in ``BodyPart`` order and an overall score.
public struct Pose: Equatable, Sendable, Codable {
    /// Exactly 17 keypoints, `keypoints[i].part.rawValue == i`.
    public var keypoints: [Keypoint]
    /// Pose confidence: the mean keypoint score for single-person decoding, the NMS-discounted
    /// mean for multi-person decoding.
    public var score: Double
    /// The person's identity on video: 1, 2, 3, ... in order of first appearance, kept while the
    /// person stays in view (``PoseStream``); nil for still images and untracked poses (`"id"` in
    /// `posekit pose` output).
    public var id: Int?

    public init(keypoints: [Keypoint], score: Double, id: Int? = nil) {
        precondition(keypoints.count == BodyPart.count, "a Pose has \(BodyPart.count) keypoints, got \(keypoints.count)")
        self.keypoints = keypoints
        self.score = score
        self.id = id
    }

    /// The keypoint for `part`.
    public subscript(part: BodyPart) -> Keypoint { keypoints[part.rawValue] }

    /// The box around the keypoints whose score is at least `minimumScore`
    /// (all keypoints when none reach it).
    public func boundingBox(minimumScore: Double = 0) -> BoundingBox {
        var used = keypoints.filter { $0.score >= minimumScore }
        if used.isEmpty { used = keypoints }
        var box = BoundingBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for k in used {
            box.minX = min(box.minX, k.position.x); box.maxX = max(box.maxX, k.position.x)
            box.minY = min(box.minY, k.position.y); box.maxY = max(box.maxY, k.position.y)
        }
        return box
    }

    /// The box around all 17 keypoints (``boundingBox(minimumScore:)`` with no minimum).
    public var boundingBox: BoundingBox { boundingBox() }

    /// Area of the box around all 17 keypoints, in squared pixels: how COCO sizes a detected
    /// pose, and how Apple's action sample picks the main person.
    public var area: Double { boundingBox().area }

    private enum CodingKeys: String, CodingKey { case keypoints, score, id }

    /// Decodes `{"keypoints": [...17...], "score": s}` (and `"id"` when present); throws unless
    /// there are exactly 17 keypoints in ``BodyPart`` order.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let keypoints = try container.decode([Keypoint].self, forKey: .keypoints)
        guard keypoints.map(\.part) == BodyPart.allCases else {
            throw DecodingError.dataCorruptedError(forKey: .keypoints, in: container,
                debugDescription: "a pose needs the 17 keypoints in BodyPart order, got \(keypoints.map(\.part.name))")
        }
        self.init(keypoints: keypoints, score: try container.decode(Double.self, forKey: .score),
                  id: try container.decodeIfPresent(Int.self, forKey: .id))
    }
}
