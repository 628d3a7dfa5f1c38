import Foundation
import FrameIO
import MediaPipe
import ModelGraph
import PoseCore
import Streaming
import Tensor

/// BlazePose (MediaPipe Pose, `pose_detection` + `pose_landmark_full`) as a one-call detector:
/// 33 landmarks of one person (`KeypointSet.blazePose33`) in pixels with `z`, visibility and
/// presence, and 33 world points in metres (`Pose.world`).
///
///     let blazePose = try BlazePoseDetector()
///     let poses = try blazePose.poses(in: RGBImage(contentsOfFile: "photo.ppm"))     // MediaPipe's static image mode
///     for try await detected in blazePose.poses(inMediaAt: "clip.mp4") {              // its video mode
///         for pose in detected.poses { print(detected.index, pose.id ?? 0, pose[.nose].position) }
///     }
///
/// **Images** run MediaPipe's static image mode: the detector on the whole image, the first
/// detection's region, the landmarks (nothing carried over). **Video** (a stream's frames, or
/// images made one video) runs MediaPipe's tracking: the next frame's region comes from this
/// frame's landmarks and the detector runs again only after a frame without a pose; landmarks are
/// smoothed by MediaPipe's own One-Euro and low-pass filters (with `smoothing: false`, the
/// raw landmarks; PoseKit's smoother never runs on top). Each stream has its own state, so a
/// detector may run several streams at once; identities (`Pose.id`) come from PoseKit's
/// tracker, as for PoseNet. A stream runs its frames in order, one at a time
/// (`FrameDependence.carriesState`).
///
/// The weights are the imported graphs `pose_detection.pkw` and `pose_landmark_full.pkw`
/// (`posekit import pose_detection.tflite -o pose_detection.pkw`), found as every bundle is
/// (`ModelLocator`). The segmentation branch is computed only with `Configuration.segmentation`
/// (the masks go to `maskHandler`); `Configuration.maximumPoses` above 1 follows several people.
public final class BlazePoseDetector: PoseFrameModel, @unchecked Sendable {
    /// MediaPipe's thresholds and the threads.
    public struct Configuration: Sendable, Equatable {
        /// A detection scoring below is dropped (MediaPipe's `min_detection_confidence`).
        public var minimumDetectionScore: Float = 0.5
        /// A pose flag below loses the pose (MediaPipe's `min_tracking_confidence`; also the
        /// bar for a pose on an image).
        public var minimumPoseScore: Float = 0.5
        /// Cores one frame uses; nil: every core.
        public var threads: Int?
        /// At most this many people, one region each (1: MediaPipe's legacy single-person pipeline;
        /// more: as MediaPipe's `PoseLandmarker` with `num_poses`).
        public var maximumPoses: Int = 1
        /// Compute each person's mask (the landmark model's segmentation branch, otherwise never
        /// computed); `maskHandler` receives them.
        public var segmentation = false
        /// The arithmetic of both graphs' 1×1 convolutions (`.fp32`, the default); an explicit
        /// reduced precision this CPU lacks fails the detector's construction (`PrecisionUnavailable`).
        public var precision: Precision = .fp32
        /// Which MediaPipe the landmarks follow: its graph (the default) or its legacy Python API
        /// (`BlazePoseVariant`, docs/blazepose.md "Which MediaPipe").
        public var variant = BlazePoseVariant.graph
        /// With ``maximumPoses`` above 1, how a person ``BlazePoseDetector/personSource`` finds becomes a region.
        public var personRegion = BlazePoseRegionFromPose()

        public init(minimumDetectionScore: Float = 0.5, minimumPoseScore: Float = 0.5, threads: Int? = nil,
                    maximumPoses: Int = 1, segmentation: Bool = false, precision: Precision = .fp32) {
            self.minimumDetectionScore = minimumDetectionScore
            self.minimumPoseScore = minimumPoseScore
            self.threads = threads
            self.maximumPoses = max(1, maximumPoses)
            self.segmentation = segmentation
            self.precision = precision
        }

        /// MediaPipe Pose's defaults on every core.
        public static let `default` = Configuration()
    }

    /// With ``Configuration/maximumPoses`` above 1: the people another body model (PoseNet) finds, each
    /// read by BlazePose in a region of its own (``Configuration/personRegion``) when BlazePose's detector
    /// misses them; nil: BlazePose's detector alone. Set it before the first frame.
    public var personSource: (any BlazePosePersonSource)?

    /// BlazePose's name in `ModelCatalogue` (`--model blazepose`).
    public static let catalogueName = "blazepose"
    /// The bundle names of the two graphs (`ModelLocator` short names), from `ModelCatalogue`.
    public static let detectorModel = ModelCatalogue.model(named: catalogueName)!.bundles[0].name
    public static let landmarkModel = ModelCatalogue.model(named: catalogueName)!.bundles[1].name
    /// The landmark model's outputs not computed: the segmentation logits unless a mask is asked for.
    static func skippedLandmarkOutputs(_ configuration: Configuration) -> Set<Int> {
        configuration.segmentation ? [] : [BlazePosePipeline.segmentationOutput]
    }

    /// Receives every frame's mask when `configuration.segmentation` is on: the people's masks
    /// merged (`SegmentationMask.union`; all background without a pose), at the frame's size, in
    /// frame order within a stream, before the frame's poses are delivered; an error it throws
    /// ends the stream. Set it before the first frame.
    public var maskHandler: (@Sendable (SegmentationMask, VideoFrame) throws -> Void)?

    public let configuration: Configuration
    /// Cores one frame uses.
    public let threads: Int
    private let detectorGraph: Graph
    private let landmarkGraph: Graph
    /// The one-call image methods' pipeline, used under `lock`.
    let imagePipeline: BlazePosePipeline
    private let lock = NSLock()

    /// The detector with the graphs found by `ModelLocator` (`pose_detection`, `pose_landmark_full`).
    /// - Throws: `ModelLocator.NotFound` naming the places searched; a broken bundle's error names its file.
    public convenience init(configuration: Configuration = .default) throws {
        try self.init(detector: try DetectorWeights.graph(Self.detectorModel), landmarker: try DetectorWeights.graph(Self.landmarkModel),
                      configuration: configuration)
    }

    /// The detector on graphs already loaded (`pose_detection`, `pose_landmark_full`).
    public init(detector: Graph, landmarker: Graph, configuration: Configuration = .default) throws {
        self.configuration = configuration
        threads = max(1, configuration.threads ?? Parallelism.defaultThreads)
        detectorGraph = detector
        landmarkGraph = landmarker
        imagePipeline = try Self.pipeline(detector, landmarker, configuration, threads: threads, smoothing: false)
    }

    /// A pipeline of runners of its own on the shared graphs, every model and crop on `threads`.
    static func pipeline(_ detector: Graph, _ landmarker: Graph, _ configuration: Configuration, threads: Int,
                         smoothing: Bool) throws -> BlazePosePipeline {
        BlazePosePipeline(
            detector: try GraphModel(graph: detector, threads: threads, precision: configuration.precision),
            landmarker: try GraphModel(graph: landmarker, skippingOutputs: skippedLandmarkOutputs(configuration), threads: threads,
                                       precision: configuration.precision),
            configuration: pipelineConfiguration(configuration, smoothing: smoothing, threads: threads))
    }

    static func pipelineConfiguration(_ configuration: Configuration, smoothing: Bool, threads: Int) -> BlazePosePipeline.Configuration {
        var pipeline = BlazePosePipeline.Configuration()
        pipeline.threads = threads
        pipeline.minimumDetectionScore = configuration.minimumDetectionScore
        pipeline.minimumPoseScore = configuration.minimumPoseScore
        pipeline.smoothLandmarks = smoothing
        pipeline.maximumPoses = max(1, configuration.maximumPoses)
        pipeline.segmentation = configuration.segmentation
        pipeline.variant = configuration.variant
        return pipeline
    }

    /// The pipeline's seeds of the people ``personSource`` finds (none without one, or with one person): a region
    /// each, or when a pose gives none and such people are reported (``BlazePoseRegionFromPose/reportsUnreadPeople``),
    /// a seed only reported from the pose.
    func personSeeds() -> ((RGBImage) throws -> [BlazePosePersonSeed])? {
        guard configuration.maximumPoses > 1, let source = personSource else { return nil }
        let rule = configuration.personRegion, name = source.modelName
        return { image in
            let size = ImageSize(width: image.width, height: image.height)
            return try source.people(in: image).compactMap { pose in
                var seed = rule.seed(pose, imageSize: size) ?? (rule.reportsUnreadPeople ? rule.unreadSeed(pose, imageSize: size) : nil)
                seed?.modelName = name
                return seed
            }
        }
    }

    /// Sets `pipeline`'s people from ``personSource`` and its rules (``Configuration/personRegion``).
    func seedPeople(_ pipeline: BlazePosePipeline) {
        let rule = configuration.personRegion
        pipeline.personSeeds = personSeeds()
        pipeline.seedAgreement = rule.agreement
        pipeline.seedCloseEnough = rule.closeEnough
        pipeline.rereadsDetected = rule.rereadsDetected
        pipeline.reportsUnreadPeople = rule.reportsUnreadPeople
        pipeline.seedScoring = rule.scoring
        pipeline.seedBlend = rule.blend
    }

    /// The pose in `image` (MediaPipe's static image mode): none or one.
    public func poses(in image: RGBImage) throws -> [Pose] {
        lock.lock()
        defer { lock.unlock() }
        seedPeople(imagePipeline)
        return try imagePipeline.processPoses(image).map(\.pose)
    }

    /// The pose in `frame` taken on its own, as an image (static image mode): none or one.
    public func poses(in frame: VideoFrame) throws -> [Pose] {
        try poses(in: frame.rgb())
    }

    /// BlazePose's whole result on `image` (static image mode): detection, region, landmarks
    /// normalized, world landmarks; nil without a pose.
    public func result(in image: RGBImage) throws -> BlazePoseResult? {
        lock.lock()
        defer { lock.unlock() }
        return try imagePipeline.process(image)
    }

    // MARK: PoseFrameModel

    /// A video frame's region comes from the previous frame's landmarks.
    public var frameDependence: FrameDependence { .carriesState }
    /// MediaPipe's filters smooth the landmarks (PoseKit's smoother stays off).
    public var smoothsKeypoints: Bool { true }

    /// A stream's own pipeline: runners of its own on the shared graphs, tracking from nothing.
    public func makeFrameWorker(threads: Int, smoothing: Bool) throws -> any PoseFrameWorker {
        let pipeline = try Self.pipeline(detectorGraph, landmarkGraph, configuration, threads: threads, smoothing: smoothing)
        seedPeople(pipeline)
        return BlazePoseFrameWorker(pipeline: pipeline, maskHandler: configuration.segmentation ? maskHandler : nil)
    }
}

/// One stream's BlazePose: still images in static image mode, video frames tracked from the last.
/// The stream never overlaps its calls, which is what makes the `@unchecked Sendable` sound.
final class BlazePoseFrameWorker: PoseFrameWorker, @unchecked Sendable {
    let pipeline: BlazePosePipeline
    private let maskHandler: (@Sendable (SegmentationMask, VideoFrame) throws -> Void)?

    init(pipeline: BlazePosePipeline, maskHandler: (@Sendable (SegmentationMask, VideoFrame) throws -> Void)? = nil) {
        self.pipeline = pipeline
        self.maskHandler = maskHandler
    }

    func poses(in frame: VideoFrame) throws -> [Pose] {
        let image = frame.rgb()
        let results = frame.isStillImage ? try pipeline.processPoses(image)
            : try pipeline.processPoses(image, timestampMicroseconds: Self.timestamp(of: frame))
        if let maskHandler {
            try maskHandler(SegmentationMask.union(results.compactMap(\.segmentationMask), width: image.width, height: image.height), frame)
        }
        return results.map(\.pose)
    }

    /// The frame's time in microseconds for MediaPipe's filters, one microsecond after the
    /// stream's start (its filters take a zero timestamp for "none yet"); a stream without a rate
    /// is timed at `PoseStream.fallbackFrameRate`, as tracking is.
    static func timestamp(of frame: VideoFrame) -> Int64 {
        let seconds = PoseStream.trackingTime(frameIndex: frame.index, time: frame.time)
        guard seconds.isFinite, abs(seconds) < 1e9 else { return 1 }
        return Int64((seconds * 1e6).rounded()) + 1
    }
}
