/// MediaPipe's `LandmarksSmoothingCalculator` with its One-Euro filter: one `OneEuroFilter` per
/// coordinate of every landmark.
///
/// Normalized landmarks are filtered in pixels (x·W, y·H, z·W) and converted back; the speed is
/// scaled by 1 / object scale (the mean of the object region's width and height in pixels)
/// unless `disableValueScaling` (world landmarks, in metres). An object scale under 1e-6 passes
/// the landmarks through. `reset()` when a frame has no landmarks, as the graph does.
public struct LandmarksSmoothing: Sendable {
    public struct Settings: Sendable, Equatable {
        public var minCutoff: Float
        public var beta: Float
        public var derivativeCutoff: Float
        public var disableValueScaling: Bool

        public init(minCutoff: Float, beta: Float, derivativeCutoff: Float = 1, disableValueScaling: Bool = false) {
            self.minCutoff = minCutoff
            self.beta = beta
            self.derivativeCutoff = derivativeCutoff
            self.disableValueScaling = disableValueScaling
        }

        /// BlazePose's 33 landmarks (`pose_landmark_filtering.pbtxt`).
        public static let poseLandmarks = Settings(minCutoff: 0.05, beta: 80)
        /// BlazePose's world landmarks: metres, no value scaling.
        public static let poseWorldLandmarks = Settings(minCutoff: 0.1, beta: 40, disableValueScaling: true)
        /// BlazePose's two auxiliary landmarks (filtered even when smoothing is off: they steer the next region).
        public static let poseAuxiliaryLandmarks = Settings(minCutoff: 0.01, beta: 10)
    }

    public let settings: Settings
    private var filters: [OneEuroFilter] = []
    static let minimumObjectScale: Float = 1e-6

    public init(_ settings: Settings) {
        self.settings = settings
    }

    public mutating func reset() { filters = [] }

    private mutating func filtersFor(count: Int) {
        if filters.count != count * 3 {
            filters = Array(repeating: OneEuroFilter(minCutoff: settings.minCutoff, beta: settings.beta,
                                                     derivativeCutoff: settings.derivativeCutoff), count: count * 3)
        }
    }

    /// The object scale of a region (normalized) in a `width × height` image: the mean side in pixels.
    public static func objectScale(of rect: NormalizedRect, imageSize size: ImageSize) -> Float {
        (rect.width * Float(size.width) + rect.height * Float(size.height)) / 2
    }

    /// Filters landmarks normalized to a `size` image at `timestampMicroseconds`, the speed scaled by
    /// 1 / `objectScale` (pixels).
    public mutating func apply(normalized landmarks: [Landmark], timestampMicroseconds: Int64,
                               imageSize size: ImageSize, objectScale: Float) -> [Landmark] {
        let filtered = apply(landmarks.map { $0.inPixels(size) }, timestampMicroseconds: timestampMicroseconds, objectScale: objectScale)
        return filtered.map { $0.normalized(size) }
    }

    /// Filters landmarks as they are (world landmarks; pixels for the normalized path).
    public mutating func apply(_ landmarks: [Landmark], timestampMicroseconds: Int64, objectScale: Float = 1) -> [Landmark] {
        var valueScale: Float = 1
        if !settings.disableValueScaling {
            // NaN is below nothing: it passes the check and makes the output NaN, as in MediaPipe.
            if objectScale < Self.minimumObjectScale { return landmarks }
            valueScale = 1 / objectScale
        }
        filtersFor(count: landmarks.count)
        let timestamp = timestampMicroseconds &* 1000
        return landmarks.enumerated().map { i, landmark in
            var out = landmark
            out.x = Float(filters[3 * i].apply(Double(landmark.x), timestampNanoseconds: timestamp, valueScale: Double(valueScale)))
            out.y = Float(filters[3 * i + 1].apply(Double(landmark.y), timestampNanoseconds: timestamp, valueScale: Double(valueScale)))
            out.z = Float(filters[3 * i + 2].apply(Double(landmark.z), timestampNanoseconds: timestamp, valueScale: Double(valueScale)))
            return out
        }
    }
}

/// MediaPipe's `VisibilitySmoothingCalculator` (low-pass α = 0.1 on each landmark's visibility).
public struct VisibilitySmoothing: Sendable {
    public let alpha: Float
    private var filters: [LowPassFilter] = []

    public init(alpha: Float = 0.1) {
        self.alpha = alpha
    }

    public mutating func reset() { filters = [] }

    public mutating func apply(_ landmarks: [Landmark]) -> [Landmark] {
        if filters.count != landmarks.count {
            filters = Array(repeating: LowPassFilter(alpha: alpha), count: landmarks.count)
        }
        return landmarks.enumerated().map { i, landmark in
            var out = landmark
            if let visibility = landmark.visibility { out.visibility = filters[i].apply(visibility) }
            return out
        }
    }
}
