import FrameIO
import Tensor

/// One hand MediaPipe's hand pipeline found, MediaPipe-shaped.
public struct HandResult: Sendable, Equatable {
    /// The region the landmarks were read in (from a palm, or tracked from the previous frame).
    public var region: NormalizedRect
    /// The hand flag, a probability.
    public var presence: Float
    /// MediaPipe's label (it assumes a mirrored image; see `Handedness`).
    public var handedness: Handedness
    /// The 21 landmarks normalized to the image, in MediaPipe's order.
    public var landmarks: [Landmark]
    /// The 21 world landmarks in metres.
    public var worldLandmarks: [Landmark]
    /// The hand's region for the next frame (`hand_rects_from_landmarks`).
    public var nextRegion: NormalizedRect
    /// The body seed the hand was found through (a region from a body pose's wrist); nil for a
    /// hand found by the palm detector or tracking.
    public var bodySeed: BodyHandSeed? = nil
}

/// What the hand pipeline found in one image.
public struct HandsResult: Sendable, Equatable {
    public var imageSize: ImageSize
    /// The palm detections (at most the maximum hand count), when the palm detector ran on this frame.
    public var palmDetections: [Detection]
    /// The regions from the palm detections (`hand_rects_from_palm_detections`).
    public var palmRegions: [NormalizedRect]
    /// The hands, in the order of the associated regions (palm regions first, tracked regions after).
    public var hands: [HandResult]
    /// Whether the palm detector ran on this frame.
    public var palmDetectorRan: Bool

    /// The regions the next video frame tracks: each hand's next region, where finite.
    public var nextRegions: [NormalizedRect] { hands.map(\.nextRegion).filter(\.isFinite) }

    /// A hand's landmarks in pixels: x·W, y·H and z·W.
    public func pixelLandmarks(of hand: HandResult) -> [Landmark] { hand.landmarks.map { $0.inPixels(imageSize) } }
}

/// MediaPipe's hand tracking CPU pipeline (legacy `hands` solution): palm detector on the
/// letterboxed frame, the first `maximumHands` palms → regions, associated with the hands tracked
/// from the previous frame (tracked regions win), 21 landmarks per region with handedness; in
/// video mode the palm detector runs only while fewer than `maximumHands` hands are tracked. No
/// landmark smoothing (MediaPipe's hands graph has none).
public final class HandLandmarkPipeline {
    public struct Configuration: Sendable {
        /// At most this many hands (`max_num_hands`).
        public var maximumHands = 2
        /// Palms scoring below are dropped (`min_detection_confidence`).
        public var minimumDetectionScore: Float = 0.5
        /// A hand flag below drops the hand (`min_tracking_confidence`).
        public var minimumPresence: Float = 0.5
        /// Cores the crops (`ImageToTensor`) use; the models have their own.
        public var threads = Parallelism.defaultThreads
        public init() {}
    }

    public let configuration: Configuration
    private let palmDetector: MediaPipeModel
    private let landmarker: MediaPipeModel
    private let postprocessing: DetectorPostprocessing
    private var trackedRegions: [NormalizedRect] = []

    /// - Parameters:
    ///   - palmDetector: `palm_detection_full` or `_lite` (input `[1, 192, 192, 3]`; outputs boxes `[2016 × 18]`, score logits `[2016]`).
    ///   - landmarker: `hand_landmark_full` or `_lite` (input `[1, 224, 224, 3]`; outputs 63 landmark values, the
    ///     flag, P(Left), 63 world values).
    public init(palmDetector: MediaPipeModel, landmarker: MediaPipeModel, configuration: Configuration = Configuration()) {
        self.palmDetector = palmDetector
        self.landmarker = landmarker
        self.configuration = configuration
        var decoding = TensorsToDetections.palmDetection
        decoding.minimumScore = configuration.minimumDetectionScore
        postprocessing = DetectorPostprocessing(anchors: .palmDetection, decoding: decoding)
    }

    /// Forgets the tracked hands (a new video).
    public func reset() { trackedRegions = [] }

    /// One image on its own (static image mode: the palm detector, nothing tracked).
    public func process(_ image: RGBImage) throws -> HandsResult {
        reset()
        defer { reset() }
        return try track(image)
    }

    /// One video frame: hands tracked from the previous frame, the palm detector while fewer than
    /// `maximumHands` are tracked.
    public func processVideoFrame(_ image: RGBImage) throws -> HandsResult {
        try track(image)
    }

    /// The palm detections (best first, at most `maximumHands`) on the whole image.
    public func detectPalms(_ image: RGBImage) throws -> [Detection] {
        let (input, padding) = try ImageToTensor.palmDetection.tensor(from: image, threads: configuration.threads)
        let outputs = try palmDetector.run(input)
        try MediaPipeError.checkOutputCount(outputs, 2, model: "palm detection")
        let detections = try outputs[0].withUnsafeBufferPointer { boxes in
            try outputs[1].withUnsafeBufferPointer { scores in
                try postprocessing.detections(boxes: boxes, scores: scores, padding: padding)
            }
        }
        return Array(detections.prefix(configuration.maximumHands))
    }

    /// The hand read in `region` (nil when the hand flag is below the threshold).
    public func hand(_ image: RGBImage, region: NormalizedRect) throws -> HandResult? {
        // NaN fails the comparison: a model returning NaN finds no hand.
        guard let hand = try readHand(image, region: region), hand.presence >= configuration.minimumPresence else { return nil }
        return hand
    }

    /// The hand read in `region` whatever its flag (`presence`), for regions with an acceptance
    /// rule of their own (hands seeded by the body); nil only when the flag is not a number.
    public func readHand(_ image: RGBImage, region: NormalizedRect) throws -> HandResult? {
        let (input, padding) = try ImageToTensor.handLandmark.tensor(from: image, roi: region, threads: configuration.threads)
        let outputs = try landmarker.run(input)
        try MediaPipeError.checkOutputCount(outputs, 4, model: "hand landmark")
        let flag = outputs[1].count > 0 ? outputs[1].scalars[0] : .nan
        let left = outputs[2].count > 0 ? outputs[2].scalars[0] : .nan
        guard !flag.isNaN else { return nil }
        let hand = try outputs[0].withUnsafeBufferPointer { landmarks in
            try outputs[3].withUnsafeBufferPointer { world in
                try HandLandmarks(landmarkTensor: landmarks, handFlag: flag, leftProbability: left, worldTensor: world,
                                  roi: region, padding: padding)
            }
        }
        let next = HandLandmarksToRect.roi(hand.landmarks, imageSize: ImageSize(width: image.width, height: image.height))
        return HandResult(region: region, presence: flag, handedness: hand.handedness, landmarks: hand.landmarks,
                          worldLandmarks: hand.worldLandmarks, nextRegion: next)
    }

    private func track(_ image: RGBImage) throws -> HandsResult {
        let result = try track(image, previous: trackedRegions)
        trackedRegions = result.nextRegions
        return result
    }

    /// One frame given the regions tracked from the previous frame (`previous`: its hands'
    /// ``HandResult/nextRegion``s; empty for a still image). The pipeline keeps no state: the
    /// result's ``HandsResult/nextRegions`` are the next frame's `previous`.
    public func track(_ image: RGBImage, previous trackedRegions: [NormalizedRect]) throws -> HandsResult {
        let size = ImageSize(width: image.width, height: image.height)
        var palms: [Detection] = [], palmRegions: [NormalizedRect] = []
        let runDetector = trackedRegions.count < configuration.maximumHands
        if runDetector {
            palms = try detectPalms(image)
            palmRegions = palms.map { DetectorPostprocessing.palmRegion($0, imageSize: size) }
        }
        let regions = AssociationNormRect.associate([palmRegions, trackedRegions])
        var hands: [HandResult] = []
        for region in regions where region.isFinite && region.width > 0 && region.height > 0 {
            if let hand = try hand(image, region: region) { hands.append(hand) }
        }
        return HandsResult(imageSize: size, palmDetections: palms, palmRegions: palmRegions, hands: hands, palmDetectorRan: runDetector)
    }
}
