import FrameIO
import Tensor

/// What BlazePose found in one image, MediaPipe-shaped (its Python `pose` solution's outputs plus
/// the graph's detection and regions).
public struct BlazePoseResult: Sendable, Equatable {
    /// The image's size in pixels.
    public var imageSize: ImageSize
    /// The detector's first detection, when the detector ran on this frame (normalized, letterbox removed).
    public var detection: Detection?
    /// The region the landmarks were read in (from the detection, or the previous frame's landmarks).
    public var region: NormalizedRect
    /// The pose flag, a probability.
    public var poseScore: Float
    /// The 33 landmarks normalized to the image (smoothed in video mode), with visibility and presence.
    public var landmarks: [Landmark]
    /// The 33 world landmarks in metres (smoothed in video mode).
    public var worldLandmarks: [Landmark]
    /// The region the next frame's landmarks will be read in (`pose_rect_from_landmarks`).
    public var nextRegion: NormalizedRect

    /// The landmarks in pixels: x·W, y·H and z·W (z at the scale of x).
    public var pixelLandmarks: [Landmark] { landmarks.map { $0.inPixels(imageSize) } }
}

/// MediaPipe's BlazePose CPU pipeline (legacy `pose` solution, model complexity 1): detector on the
/// letterboxed frame, the first detection → region, landmarks in the region, and in video mode the
/// next region from this frame's filtered auxiliary landmarks, the detector running again only
/// after a frame without a pose.
///
///     let pipeline = BlazePosePipeline(detector: poseDetection, landmarker: poseLandmarkFull)
///     let pose = try pipeline.process(image)                                   // one image
///     let tracked = try pipeline.process(frame, timestampMicroseconds: t)      // video
public final class BlazePosePipeline {
    public struct Configuration: Sendable {
        /// Detections scoring below are dropped (`min_detection_confidence`).
        public var minimumDetectionScore: Float = 0.5
        /// A pose flag below loses the pose (`min_tracking_confidence`).
        public var minimumPoseScore: Float = 0.5
        /// One-Euro smoothing of landmarks and world landmarks in video mode (`smooth_landmarks`).
        public var smoothLandmarks = true
        public init() {}
    }

    public let configuration: Configuration
    private let detector: MediaPipeModel
    private let landmarker: MediaPipeModel
    private let postprocessing: DetectorPostprocessing
    private var filtering: PoseLandmarkFiltering
    private var trackedRegion: NormalizedRect?

    /// - Parameters:
    ///   - detector: `pose_detection` (input `[1, 224, 224, 3]`; outputs boxes `[2254 × 12]`, score logits `[2254]`).
    ///   - landmarker: `pose_landmark_full` (input `[1, 256, 256, 3]`; outputs 195 landmark values, the flag,
    ///     segmentation, the `[64, 64, 39]` heatmap, 117 world values).
    public init(detector: MediaPipeModel, landmarker: MediaPipeModel, configuration: Configuration = Configuration()) {
        self.detector = detector
        self.landmarker = landmarker
        self.configuration = configuration
        var decoding = TensorsToDetections.poseDetection
        decoding.minimumScore = configuration.minimumDetectionScore
        postprocessing = DetectorPostprocessing(anchors: .poseDetection, decoding: decoding)
        filtering = PoseLandmarkFiltering(smoothLandmarks: configuration.smoothLandmarks)
    }

    /// Forgets the tracked person and the filters' state (a new video).
    public func reset() {
        trackedRegion = nil
        filtering.reset()
    }

    /// One image on its own (static image mode: detector, no smoothing); nil when no pose is found.
    public func process(_ image: RGBImage) throws -> BlazePoseResult? {
        reset()
        defer { reset() }
        return try track(image, timestampMicroseconds: 1, smooth: false)
    }

    /// One video frame (video mode: tracking and smoothing); timestamps must increase.
    public func process(_ image: RGBImage, timestampMicroseconds: Int64) throws -> BlazePoseResult? {
        try track(image, timestampMicroseconds: timestampMicroseconds, smooth: configuration.smoothLandmarks)
    }

    /// One video frame read in `region` instead of the tracked one (MediaPipe's region replayed,
    /// for parity tests of the tracking loop); the filters run as in video mode.
    public func process(_ image: RGBImage, region: NormalizedRect, timestampMicroseconds: Int64) throws -> BlazePoseResult? {
        trackedRegion = region
        return try track(image, timestampMicroseconds: timestampMicroseconds, smooth: configuration.smoothLandmarks)
    }

    /// The detector's detections (best first) on the whole image.
    public func detect(_ image: RGBImage) throws -> [Detection] {
        let (input, padding) = try ImageToTensor.poseDetection.tensor(from: image)
        let outputs = try detector.run(input)
        try MediaPipeError.checkOutputCount(outputs, 2, model: "pose detection")
        return try outputs[0].withUnsafeBufferPointer { boxes in
            try outputs[1].withUnsafeBufferPointer { scores in
                try postprocessing.detections(boxes: boxes, scores: scores, padding: padding)
            }
        }
    }

    /// The landmarks read in `region` (nil when the pose flag is below the threshold).
    public func landmarks(_ image: RGBImage, region: NormalizedRect) throws -> PoseLandmarks? {
        let (input, padding) = try ImageToTensor.poseLandmark.tensor(from: image, roi: region)
        let outputs = try landmarker.run(input)
        try MediaPipeError.checkOutputCount(outputs, 5, model: "pose landmark")
        let flag = outputs[1].count > 0 ? outputs[1].scalars[0] : .nan
        // NaN fails the comparison: a model returning NaN loses the pose.
        guard flag >= configuration.minimumPoseScore else { return nil }
        return try outputs[0].withUnsafeBufferPointer { landmarks in
            try outputs[3].withUnsafeBufferPointer { heatmap in
                try outputs[4].withUnsafeBufferPointer { world in
                    try PoseLandmarks(landmarkTensor: landmarks, poseFlag: flag, heatmap: heatmap, worldTensor: world,
                                      roi: region, padding: padding)
                }
            }
        }
    }

    private func track(_ image: RGBImage, timestampMicroseconds: Int64, smooth: Bool) throws -> BlazePoseResult? {
        let size = ImageSize(width: image.width, height: image.height)
        var detection: Detection?
        let region: NormalizedRect
        if let trackedRegion {
            region = trackedRegion
        } else {
            guard let first = try detect(image).first else { return lost() }
            detection = first
            region = DetectorPostprocessing.poseRegion(first, imageSize: size)
        }
        guard let pose = try landmarks(image, region: region) else { return lost() }
        filtering.smoothLandmarks = smooth
        let filtered = filtering.apply(landmarks: pose.landmarks, worldLandmarks: pose.worldLandmarks, auxiliary: pose.auxiliary,
                                       timestampMicroseconds: timestampMicroseconds, imageSize: size)
        let next = PoseLandmarksToRect.roi(auxiliary: filtered.auxiliary, imageSize: size)
        // A non-finite region (a model returning NaN) is a loss: the detector runs on the next frame.
        trackedRegion = next.isFinite ? next : nil
        if trackedRegion == nil { filtering.reset() }
        return BlazePoseResult(imageSize: size, detection: detection, region: region, poseScore: pose.poseScore,
                               landmarks: filtered.landmarks, worldLandmarks: filtered.worldLandmarks, nextRegion: next)
    }

    /// No pose this frame: every filter resets and the detector runs on the next frame.
    private func lost() -> BlazePoseResult? {
        reset()
        return nil
    }
}
