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

/// One detected point of a pose: where it is and how sure the model is. Which point it is
/// follows from its index in ``Pose/keypoints`` and the pose's ``Pose/keypointSet``.
public struct Keypoint: Equatable, Sendable {
    /// Where it is, in pixels, where the model puts it: it may lie outside the image (a head cut
    /// off by the top edge). The decoders return model-input pixels (the resized image the
    /// network saw); ``Pose/mapped(by:)`` with an ``ImageTransform`` moves them onto the original
    /// image. Consumers that need a point inside the image clamp it (``Pose/clamped(width:height:)``).
    public var position: Point
    /// Confidence in 0...1 (PoseNet: the heatmap score).
    public var score: Double
    /// How likely the point is visible rather than hidden, in 0...1, for models that say so
    /// apart from the score (BlazePose's visibility); nil when the model does not (PoseNet).
    public var visibility: Double?
    /// How likely the point is in the frame at all, in 0...1 (BlazePose's presence); nil when the
    /// model does not say.
    public var presence: Double?
    /// Depth relative to the model's reference point (BlazePose: the hips' midpoint; a hand: the
    /// wrist), in the pixels of ``position``'s x axis, smaller is nearer the camera (MediaPipe's
    /// `z` scaled by the image width); nil for 2D models (PoseNet).
    public var z: Double?

    public init(position: Point, score: Double, visibility: Double? = nil, presence: Double? = nil, z: Double? = nil) {
        self.position = position
        self.score = score
        self.visibility = visibility
        self.presence = presence
        self.z = z
    }
}

/// A point in metres in a model's world frame (MediaPipe's world landmarks: origin at the hips'
/// midpoint for a body, the hand's approximate geometric centre for a hand; `x` right, `y` down,
/// `z` away from the camera).
public struct WorldPoint: Equatable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }
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

/// One person (or hand): one keypoint per point of its ``keypointSet``, in the set's order, and
/// an overall score.
///
/// A model that returns arrays makes a pose with ``init(keypointSet:points:scores:visibilities:score:id:)``:
///
///     // 33 BlazePose landmarks already in image pixels, their scores and visibilities:
///     let pose = Pose(keypointSet: .blazePose33, points: landmarks, scores: presence,
///                     visibilities: visibility)          // score: the mean keypoint score
///     pose[.leftShoulder]                                // through the set's COCO-17 map
///     pose.keypoint(named: "leftHeel")
public struct Pose: Equatable, Sendable {
    /// The points this pose has, their names, skeleton and mirror table.
    public var keypointSet: KeypointSet
    /// Exactly `keypointSet.count` keypoints, in the set's order.
    public var keypoints: [Keypoint]
    /// Pose confidence: the mean keypoint score for single-person decoding, the NMS-discounted
    /// mean for multi-person decoding.
    public var score: Double
    /// The person's identity on video: 1, 2, 3, ... in order of first appearance, kept while the
    /// person stays in view (``PoseStream``); nil for still images and untracked poses (`"id"` in
    /// `posekit pose` output).
    public var id: Int?
    /// The same points in metres, one per keypoint in the set's order, for models that estimate
    /// them (BlazePose's and the hand model's world landmarks); nil otherwise (PoseNet).
    public var world: [WorldPoint]?
    /// The model whose points these are when it is not the model that reported the pose
    /// (`"landmarks_from"` in `posekit pose` output): BlazePose for everyone in the frame reports a
    /// person its landmark model cannot read from PoseNet's pose (`"posenet"`: COCO-17's points at
    /// their BlazePose landmarks, the others absent); nil when the pose is its model's own.
    public var landmarksFrom: String?

    /// A pose of `keypointSet` (COCO-17, PoseNet's, when not given); `keypoints` must have the
    /// set's count (`precondition`).
    public init(keypoints: [Keypoint], score: Double, id: Int? = nil, keypointSet: KeypointSet = .coco17) {
        precondition(keypoints.count == keypointSet.count,
                     "a \(keypointSet.identifier) pose has \(keypointSet.count) keypoints, got \(keypoints.count)")
        self.keypointSet = keypointSet
        self.keypoints = keypoints
        self.score = score
        self.id = id
    }

    /// A pose of `keypointSet` from parallel arrays, one entry per point in the set's order
    /// (`precondition`: each array has the set's count): positions in image pixels, scores in
    /// 0...1 and, when the model gives them, visibilities. `score` nil: the mean keypoint score.
    public init(keypointSet: KeypointSet, points: [Point], scores: [Double], visibilities: [Double]? = nil,
                score: Double? = nil, id: Int? = nil) {
        precondition(points.count == keypointSet.count && scores.count == keypointSet.count
                     && (visibilities?.count ?? keypointSet.count) == keypointSet.count,
                     "a \(keypointSet.identifier) pose needs \(keypointSet.count) points, scores and visibilities")
        let keypoints = points.indices.map { Keypoint(position: points[$0], score: scores[$0], visibility: visibilities?[$0]) }
        self.init(keypoints: keypoints, score: score ?? scores.reduce(0, +) / Double(scores.count), id: id,
                  keypointSet: keypointSet)
    }

    /// The keypoint of COCO-17 keypoint `part`, through the set's COCO map; the set must have
    /// it (`precondition`; every body set does, a hand does not: see ``keypoint(_:)``).
    @inlinable public subscript(part: BodyPart) -> Keypoint {
        guard let index = keypointSet.cocoIndices[part.rawValue] else {
            preconditionFailure("a \(keypointSet.identifier) pose has no \(part.name)")
        }
        return keypoints[index]
    }

    /// The keypoint of COCO-17 keypoint `part`, or nil when the set has no such point.
    public func keypoint(_ part: BodyPart) -> Keypoint? { keypointSet.index(of: part).map { keypoints[$0] } }

    /// The keypoint called `name` in the set, or nil.
    public func keypoint(named name: String) -> Keypoint? { keypointSet.index(of: name).map { keypoints[$0] } }

    /// This pose as a COCO-17 pose (the set's mapped points, same score and id), for what reads
    /// COCO-17 (action windows, COCO evaluation); nil when the set lacks a COCO keypoint (a
    /// hand). A COCO-17 pose is itself.
    public var cocoSeventeen: Pose? {
        if keypointSet === KeypointSet.coco17 { return self }
        var keypoints: [Keypoint] = []
        keypoints.reserveCapacity(BodyPart.count)
        for index in keypointSet.cocoIndices {
            guard let index else { return nil }
            keypoints.append(self.keypoints[index])
        }
        return Pose(keypoints: keypoints, score: score, id: id, keypointSet: .coco17)
    }

    /// This pose with every keypoint moved into a `width × height` image (`0...width-1`,
    /// `0...height-1`), for consumers that need points on the image (overlays, action windows,
    /// COCO results); unchanged when the size is not known (0).
    public func clamped(width: Int, height: Int) -> Pose {
        guard width > 0, height > 0 else { return self }
        let maxX = Double(width - 1), maxY = Double(height - 1)
        var copy = self
        for i in copy.keypoints.indices {
            copy.keypoints[i].position.x = min(max(copy.keypoints[i].position.x, 0), maxX)
            copy.keypoints[i].position.y = min(max(copy.keypoints[i].position.y, 0), maxY)
        }
        return copy
    }

    /// The box around the keypoints whose score is at least `minimumScore`
    /// (all keypoints when none reach it).
    public func boundingBox(minimumScore: Double = 0) -> BoundingBox {
        var box = BoundingBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        var used = false
        for k in keypoints where k.score >= minimumScore { box.include(k.position); used = true }
        if !used { for k in keypoints { box.include(k.position) } }
        return box
    }

    /// The box around all keypoints (``boundingBox(minimumScore:)`` with no minimum).
    public var boundingBox: BoundingBox { boundingBox() }

    /// Area of the box around all keypoints, in squared pixels: how COCO sizes a detected
    /// pose, and how Apple's action sample picks the main person.
    public var area: Double { boundingBox().area }
}

extension BoundingBox {
    /// Grows the box to hold `point`.
    mutating func include(_ point: Point) {
        minX = min(minX, point.x); maxX = max(maxX, point.x)
        minY = min(minY, point.y); maxY = max(maxY, point.y)
    }
}
