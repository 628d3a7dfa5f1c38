import FrameIO
import PoseCore
import Tensor

/// What BlazePose found for one person in one image, MediaPipe-shaped (its Python `pose`
/// solution's outputs plus the graph's detection and regions).
public struct BlazePoseResult: Sendable, Equatable {
    /// The image's size in pixels.
    public var imageSize: ImageSize
    /// The detection this person's region came from, when the detector found them on this frame
    /// (normalized, letterbox removed); nil for a person tracked from the previous frame.
    public var detection: Detection?
    /// The region the landmarks were read in (from the detection, or the previous frame's landmarks).
    public var region: NormalizedRect
    /// The pose flag, a probability (for a person reported from another model's pose, ``otherModelPose``, that
    /// pose's score).
    public var poseScore: Float
    /// What the person ranks by, their pose's score: the pose flag for the people BlazePose's detector finds, the
    /// rule of ``BlazePosePipeline/seedScoring`` for the people another body model found.
    public var score: Float
    /// The 33 landmarks normalized to the image (smoothed in video mode), with visibility and presence.
    public var landmarks: [Landmark]
    /// The 33 world landmarks in metres (smoothed in video mode).
    public var worldLandmarks: [Landmark]
    /// The region the next frame's landmarks will be read in (`pose_rect_from_landmarks`).
    public var nextRegion: NormalizedRect
    /// The person's mask at the image's size (smoothed in video mode), when the pipeline was
    /// configured with `segmentation`; nil otherwise.
    public var segmentationMask: SegmentationMask?
    /// When BlazePose's landmark model read this person in none of their regions, the other body model's pose
    /// reported in their place (``BlazePosePersonSeed/reported``: BlazePose's 33 landmarks, COCO-17's points
    /// only), which ``pose`` returns; ``landmarks`` then hold its points normalized, ``worldLandmarks`` is empty.
    /// nil: BlazePose's own landmarks.
    public var otherModelPose: Pose?

    /// The landmarks in pixels: x·W, y·H and z·W (z at the scale of x).
    public var pixelLandmarks: [Landmark] { landmarks.map { $0.inPixels(imageSize) } }
}

/// MediaPipe's BlazePose CPU pipeline (legacy `pose` solution, model complexity 1): detector on the
/// letterboxed frame, the first detection → region, landmarks in the region, and in video mode the
/// next region from this frame's filtered auxiliary landmarks, the detector running again only
/// after a frame without a pose. With `segmentation`, the person mask (sigmoid of the model's
/// logits, warped back to the image, smoothed with the previous mask in video mode).
///
/// With `maximumPoses` above 1 it follows several people as MediaPipe's newer `PoseLandmarker`
/// does in video mode: one region per detection (weighted-NMS detections best first, up to the
/// maximum), each tracked person's next region from their own landmarks, a person whose pose flag
/// drops released, the detector again only while fewer than the maximum are tracked; a detection
/// whose region overlaps a tracked person's (IoU > 0.5, `AssociationNormRect`'s rule) is that
/// person again and replaces their region (never a second pose). Each person keeps their own
/// filters. Identities across frames are the caller's (PoseCore's tracker).
///
///     let pipeline = BlazePosePipeline(detector: poseDetection, landmarker: poseLandmarkFull)
///     let pose = try pipeline.process(image)                                   // one image
///     let tracked = try pipeline.process(frame, timestampMicroseconds: t)      // video
///     let people = try pipeline.processPoses(frame, timestampMicroseconds: t)  // several people
public final class BlazePosePipeline {
    public struct Configuration: Sendable {
        /// Detections scoring below are dropped (`min_detection_confidence`).
        public var minimumDetectionScore: Float = 0.5
        /// A pose flag below loses the pose (`min_tracking_confidence`).
        public var minimumPoseScore: Float = 0.5
        /// One-Euro smoothing of landmarks and world landmarks in video mode (`smooth_landmarks`).
        public var smoothLandmarks = true
        /// Compute the person mask (`enable_segmentation`); the landmark model must then compute
        /// its segmentation output (`Identity_2`).
        public var segmentation = false
        /// Blend each mask with the previous frame's in video mode (`smooth_segmentation`).
        public var smoothSegmentation = true
        /// At most this many people (1: MediaPipe's legacy single-person pipeline).
        public var maximumPoses = 1
        /// Two regions whose axis-aligned IoU exceeds this hold one person (PoseLandmarker's
        /// association threshold, its `min_tracking_confidence` 0.5).
        public var duplicateOverlap: Float = 0.5
        /// Cores the crops (`ImageToTensor`) use; the models have their own (the detector's).
        public var threads = Parallelism.defaultThreads
        /// Which MediaPipe's numbers the landmarks follow (``BlazePoseVariant``: the graph's, the default).
        public var variant = BlazePoseVariant.graph
        public init() {}
    }

    /// One person followed from frame to frame: the region to read next and their filters' state.
    private struct TrackedPerson {
        var region: NormalizedRect
        var detection: Detection?
        var filtering: PoseLandmarkFiltering
        /// A person another body model found on this frame (``personSeeds``), whose reading must lie on them.
        var seed: BlazePosePersonSeed? = nil
        /// Whether the person came from another body model's seed: told from the others by their landmarks,
        /// not by their regions (people found that way are often close to someone).
        var seeded = false
        /// The index of the seed (this frame's people from another body model) the person was read for.
        var seedIndex: Int? = nil
        /// Whether the detector found the person on this frame and nobody followed them before.
        var fresh = false
        /// The other body model's pose score, for a person found through it (``seedScoring``).
        var sourceScore: Float? = nil
        var maskSmoothing = SegmentationSmoothing()
    }

    public let configuration: Configuration
    private let detector: MediaPipeModel
    private let landmarker: MediaPipeModel
    private let postprocessing: DetectorPostprocessing
    private var people: [TrackedPerson] = []
    /// With `maximumPoses` above 1: the people another body model finds in an image (BlazePose's
    /// detector finds few but the most prominent person), looked at while fewer than the maximum are
    /// tracked, after the detector's; a region overlapping a person's already (IoU above `duplicateOverlap`)
    /// is that person. Set before the first frame.
    public var personSeeds: ((RGBImage) throws -> [BlazePosePersonSeed])?
    /// A seeded person's reading is theirs when it agrees with the seed within this (``BlazePosePersonSeed/agrees(with:tolerance:)``).
    public var seedAgreement: Float = 0.25
    /// A seeded person's reading this close to the seed is kept at once (``BlazePoseRegionFromPose/closeEnough``).
    public var seedCloseEnough: Float = 0.1
    /// Whether a person the detector found anew is read in a seed's regions too (``BlazePoseRegionFromPose/rereadsDetected``).
    public var rereadsDetected = true
    /// Whether a seeded person read in none of their regions is reported from the seed's pose
    /// (``BlazePoseRegionFromPose/reportsUnreadPeople``); seeds without a region are only ever reported so.
    public var reportsUnreadPeople = true
    /// The score of a person found through a seed (``BlazePoseRegionFromPose/scoring``).
    public var seedScoring = BlazePosePersonScore.poseFlag
    /// How far a reading of a person found through a seed is moved toward the seed's points (``BlazePoseRegionFromPose/blend``).
    public var seedBlend: Float = 0.5
    /// With one person (`maximumPoses` 1): the filters of the person last lost, as MediaPipe's legacy
    /// graph keeps them (`PoseLandmarkFiltering.resetAfterLoss()`), for the next person found.
    private var filteringAfterLoss: PoseLandmarkFiltering?

    /// - Parameters:
    ///   - detector: `pose_detection` (input `[1, 224, 224, 3]`; outputs boxes `[2254 × 12]`, score logits `[2254]`).
    ///   - landmarker: `pose_landmark_full` (input `[1, 256, 256, 3]`; outputs 195 landmark values, the flag,
    ///     segmentation `[256, 256]` (read only with `configuration.segmentation`), the `[64, 64, 39]` heatmap,
    ///     117 world values).
    public init(detector: MediaPipeModel, landmarker: MediaPipeModel, configuration: Configuration = Configuration()) {
        precondition(configuration.maximumPoses >= 1, "BlazePosePipeline: maximumPoses must be at least 1")
        self.detector = detector
        self.landmarker = landmarker
        self.configuration = configuration
        var decoding = TensorsToDetections.poseDetection
        decoding.minimumScore = configuration.minimumDetectionScore
        postprocessing = DetectorPostprocessing(anchors: .poseDetection, decoding: decoding)
    }

    /// Forgets the tracked people and their filters' state (a new video).
    public func reset() {
        people = []
        filteringAfterLoss = nil
    }

    /// A new person's filters: fresh, or with one person, those MediaPipe keeps from the person lost.
    private func newFiltering() -> PoseLandmarkFiltering {
        defer { filteringAfterLoss = nil }
        return filteringAfterLoss ?? PoseLandmarkFiltering(smoothLandmarks: configuration.smoothLandmarks)
    }

    /// One image on its own (static image mode: detector, no smoothing); nil when no pose is found.
    /// With `maximumPoses` above 1, the first (best-scoring) person; `processPoses(_:)` gives all.
    public func process(_ image: RGBImage) throws -> BlazePoseResult? {
        try processPoses(image).first
    }

    /// Every person in one image on its own (static image mode), best detection first.
    public func processPoses(_ image: RGBImage) throws -> [BlazePoseResult] {
        reset()
        defer { reset() }
        return try track(image, timestampMicroseconds: 1, smooth: false)
    }

    /// One video frame (video mode: tracking and smoothing); timestamps must increase. The first person.
    public func process(_ image: RGBImage, timestampMicroseconds: Int64) throws -> BlazePoseResult? {
        try processPoses(image, timestampMicroseconds: timestampMicroseconds).first
    }

    /// One video frame, every person: those tracked from the previous frame first (in the order
    /// they were found), then the people the detector found on this frame.
    public func processPoses(_ image: RGBImage, timestampMicroseconds: Int64) throws -> [BlazePoseResult] {
        try track(image, timestampMicroseconds: timestampMicroseconds, smooth: true)
    }

    /// One video frame read in `region` instead of the tracked one (MediaPipe's region replayed,
    /// for parity tests of the tracking loop); the filters run as in video mode.
    public func process(_ image: RGBImage, region: NormalizedRect, timestampMicroseconds: Int64) throws -> BlazePoseResult? {
        if people.isEmpty {
            people = [TrackedPerson(region: region, filtering: newFiltering())]
        } else {
            people = [people[0]]
            people[0].region = region
        }
        return try track(image, timestampMicroseconds: timestampMicroseconds, smooth: true).first
    }

    /// The detector's detections (best first) on the whole image.
    public func detect(_ image: RGBImage) throws -> [Detection] {
        let (input, padding) = try ImageToTensor.poseDetection.tensor(from: image, threads: configuration.threads)
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
        try read(image, region: region, mask: false)?.pose
    }

    /// The model run in `region`: landmarks, and the mask in the image when asked.
    private func read(_ image: RGBImage, region: NormalizedRect, mask: Bool) throws -> (pose: PoseLandmarks, mask: SegmentationMask?)? {
        let (input, padding) = try ImageToTensor.poseLandmark.tensor(from: image, roi: region, threads: configuration.threads)
        let outputs = try landmarker.run(input)
        try MediaPipeError.checkOutputCount(outputs, 5, model: "pose landmark")
        let flag = outputs[1].count > 0 ? outputs[1].scalars[0] : .nan
        // NaN fails the comparison: a model returning NaN loses the pose.
        guard flag >= configuration.minimumPoseScore else { return nil }
        let pose = try outputs[0].withUnsafeBufferPointer { landmarks in
            try outputs[3].withUnsafeBufferPointer { heatmap in
                try outputs[4].withUnsafeBufferPointer { world in
                    try PoseLandmarks(landmarkTensor: landmarks, poseFlag: flag, heatmap: heatmap, worldTensor: world,
                                      roi: region, padding: padding, refinement: configuration.variant.refinement)
                }
            }
        }
        // Non-finite landmarks (a model returning NaN) are no pose: nothing undefined reaches the output.
        let finite = { (points: [Landmark]) in points.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite && !($0.visibility?.isNaN ?? false) && !($0.presence?.isNaN ?? false) } }
        guard finite(pose.landmarks), finite(pose.auxiliary), finite(pose.worldLandmarks) else { return nil }
        guard mask else { return (pose, nil) }
        let size = ImageSize(width: image.width, height: image.height)
        let crop = try outputs[2].withUnsafeBufferPointer { try TensorsToSegmentation.mask(logits: $0) }
        let (pixelRegion, _) = ImageToTensor.poseLandmark.region(imageWidth: image.width, imageHeight: image.height, roi: region)
        return (pose, try SegmentationInverseProjection.project(crop, region: pixelRegion, roi: region, imageSize: size))
    }

    /// Whether `reading` lies on `seed`'s person.
    private func agrees(_ reading: (pose: PoseLandmarks, mask: SegmentationMask?)?, _ seed: BlazePosePersonSeed, _ size: ImageSize) -> Bool {
        guard let pose = reading?.pose else { return false }
        return seed.agrees(with: pose.landmarks.map { SIMD2($0.x * Float(size.width), $0.y * Float(size.height)) }, tolerance: seedAgreement)
    }

    /// Normalized landmarks in pixels.
    static func pixels(_ landmarks: [Landmark], _ size: ImageSize) -> [SIMD2<Float>] {
        landmarks.map { SIMD2($0.x * Float(size.width), $0.y * Float(size.height)) }
    }

    /// A seeded person's reading: BlazePose's landmark model run in each of the seed's regions
    /// (``BlazePosePersonSeed/region`` and ``BlazePosePersonSeed/otherRegions``) and, as MediaPipe's tracking
    /// builds the next region, in the region of each reading's own auxiliary landmarks; of the readings whose
    /// pose flag passes, the first close enough to the seed's points (``seedCloseEnough``), else the closest (BlazePose, read in a region another
    /// model sized, often locks onto a neighbour or reads the person from a crop too tight or too loose:
    /// docs/blazepose.md, "Everyone in the frame"); nil when none lies on the person (``seedAgreement``).
    private func seededRead(_ image: RGBImage, _ seed: BlazePosePersonSeed, _ size: ImageSize) throws
        -> (NormalizedRect, (pose: PoseLandmarks, mask: SegmentationMask?))? {
        var best: (distance: Float, region: NormalizedRect, reading: (pose: PoseLandmarks, mask: SegmentationMask?))?
        func consider(_ region: NormalizedRect, _ reading: (pose: PoseLandmarks, mask: SegmentationMask?)) {
            let distance = seed.distance(to: Self.pixels(reading.pose.landmarks, size))
            if distance.isFinite, distance <= seedAgreement, distance < (best?.distance ?? .infinity) { best = (distance, region, reading) }
        }
        for region in [seed.region] + seed.otherRegions where Self.usable(region) {
            guard let reading = try read(image, region: region, mask: configuration.segmentation) else { continue }
            consider(region, reading)
            if let best, best.distance <= seedCloseEnough { break }
            let refined = PoseLandmarksToRect.roi(auxiliary: reading.pose.auxiliary, imageSize: size)
            if Self.usable(refined), let again = try read(image, region: refined, mask: configuration.segmentation) {
                consider(refined, again)
            }
            if let best, best.distance <= seedCloseEnough { break }
        }
        return best.map { ($0.region, $0.reading) }
    }

    /// Whether `theirs` (a result's normalized landmarks) and `pixels` are one person: their COCO-17 points
    /// within `tolerance` of the size of `theirs` (the diagonal of those points' box) from each other on average.
    static func sameLandmarks(_ theirs: [Landmark], _ pixels: [SIMD2<Float>], imageSize size: ImageSize, tolerance: Float) -> Bool {
        let points = BlazePoseRegionFromPose.cocoLandmarks.filter { $0 < theirs.count && $0 < pixels.count }
            .map { ($0, SIMD2(theirs[$0].x * Float(size.width), theirs[$0].y * Float(size.height))) }
        guard let first = points.first?.1 else { return false }
        let low = points.reduce(first) { pointwiseMin($0, $1.1) }, high = points.reduce(first) { pointwiseMax($0, $1.1) }
        return BlazePosePersonSeed(region: NormalizedRect(xCenter: 0, yCenter: 0, width: 0, height: 0), points: points,
                                   size: length(high - low)).agrees(with: pixels, tolerance: tolerance)
    }

    /// The mean visibility of the COCO-17 landmarks of `landmarks` (0 without any).
    static func meanCOCOVisibility(_ landmarks: [Landmark]) -> Float {
        let visibilities = BlazePoseRegionFromPose.cocoLandmarks.compactMap { $0 < landmarks.count ? landmarks[$0].visibility : nil }
        return visibilities.isEmpty ? 0 : visibilities.reduce(0, +) / Float(visibilities.count)
    }

    /// A region the landmark model can read: finite, with an area.
    private static func usable(_ region: NormalizedRect) -> Bool {
        region.isFinite && region.width > 0 && region.height > 0
    }

    /// Whether `region` holds one of `others`' people (axis-aligned IoU above the threshold).
    private func overlaps(_ region: NormalizedRect, _ others: [NormalizedRect]) -> Bool {
        let box = region.axisAlignedBox
        return others.contains { $0.axisAlignedBox.intersectionOverUnion(box) > configuration.duplicateOverlap }
    }

    /// The people to read on this frame, as MediaPipe's `PoseLandmarker` in video mode associates
    /// them (`pose_landmarker_graph.cc`: `AssociationNormRectCalculator` on the tracked regions,
    /// then the detector's regions, clipped to `num_poses`): the detector's detections (best
    /// first, at most `maximumPoses`, as its `PoseDetectorGraph` clips them) each give a region;
    /// a region overlapping tracked people's regions (axis-aligned IoU above `duplicateOverlap`)
    /// is them again and replaces their region (the later input wins in MediaPipe's association):
    /// the first of them keeps their filters and is read in the detection's region, the others
    /// go; any other region is a new person while there is room.
    private func associate(_ detections: [Detection], with tracked: [TrackedPerson], imageSize: ImageSize) -> [TrackedPerson] {
        var people = tracked
        for detection in detections.prefix(configuration.maximumPoses) {
            let region = DetectorPostprocessing.poseRegion(detection, imageSize: imageSize)
            guard Self.usable(region) else { continue }
            let box = region.axisAlignedBox
            let same = people.indices.filter { people[$0].region.axisAlignedBox.intersectionOverUnion(box) > configuration.duplicateOverlap }
            if let first = same.first {
                people[first].region = region
                people[first].detection = detection
                for index in same.dropFirst().reversed() { people.remove(at: index) }
            } else if people.count < configuration.maximumPoses {
                people.append(TrackedPerson(region: region, detection: detection, filtering: newFiltering(), fresh: true))
            }
        }
        return people
    }

    private func track(_ image: RGBImage, timestampMicroseconds: Int64, smooth: Bool) throws -> [BlazePoseResult] {
        let size = ImageSize(width: image.width, height: image.height)
        var candidates = people
        for i in candidates.indices { candidates[i].detection = nil }
        // The detector runs only while fewer than the maximum are tracked (with one person: after a loss).
        var seeds: [BlazePosePersonSeed] = []
        if candidates.count < configuration.maximumPoses {
            candidates = associate(try detect(image), with: candidates, imageSize: size)
            // The people BlazePose's detector missed, from another body model's people: every one of them is
            // looked at (one that is the detector's person, or someone already followed, is skipped below),
            // so a duplicate never takes a free person's place; the maximum bounds the people reported.
            if configuration.maximumPoses > 1, let personSeeds {
                // A person followed from the last frame is not read again in a seed of theirs.
                // A seed without a region (a faint pose) is only reported from its pose, when that is asked for.
                seeds = try personSeeds(image).filter {
                    Self.usable($0.region) ? !overlaps($0.region, people.map(\.region)) : reportsUnreadPeople && $0.pose != nil
                }
            }
        }
        for (index, seed) in seeds.enumerated() {
            candidates.append(TrackedPerson(region: seed.region, filtering: newFiltering(), seed: seed, seeded: true, seedIndex: index,
                                            sourceScore: seed.pose.map { Float($0.score) }))
        }
        // Seeds already read for a person the detector found.
        var usedSeeds = Set<Int>()
        var results: [BlazePoseResult] = [], kept: [TrackedPerson] = []
        let smoothMask = smooth && configuration.smoothSegmentation
        for var person in candidates where (Self.usable(person.region) || person.seed != nil) && results.count < configuration.maximumPoses {
            var seededReading: (pose: PoseLandmarks, mask: SegmentationMask?)?
            if let seed = person.seed {
                if let index = person.seedIndex, usedSeeds.contains(index) { continue }
                // The person is one of those reported already (the detector's, or an earlier seed's): not read again.
                if results.contains(where: { seed.agrees(with: Self.pixels($0.landmarks, size), tolerance: seedAgreement) }) { continue }
                if Self.usable(seed.region), let (region, reading) = try seededRead(image, seed, size) {
                    person.region = region
                    seededReading = reading
                }
            }
            var ownReading = person.seed != nil ? seededReading : try read(image, region: person.region, mask: configuration.segmentation)
            // A person the detector found anew whom another body model found too: BlazePose's reading in the
            // detector's region competes with its readings in the seed's regions, and the one lying closest
            // to the seed is kept (the detector's region reads some people poorly: docs/blazepose.md).
            if rereadsDetected, person.fresh, person.seed == nil, let own = ownReading {
                let pixels = Self.pixels(own.pose.landmarks, size)
                // Only a seed with regions to read in (a faint pose's seed is never read, only reported).
                let nearest = seeds.indices.filter { !usedSeeds.contains($0) && Self.usable(seeds[$0].region) }.min { seeds[$0].distance(to: pixels) < seeds[$1].distance(to: pixels) }
                if let nearest, seeds[nearest].distance(to: pixels) <= seedAgreement {
                    // The detector's reading close enough to the seed stands as it is.
                    usedSeeds.insert(nearest)
                    if seeds[nearest].distance(to: pixels) > seedCloseEnough, let (region, better) = try seededRead(image, seeds[nearest], size),
                       seeds[nearest].distance(to: Self.pixels(better.pose.landmarks, size)) < seeds[nearest].distance(to: pixels) {
                        person.region = region
                        ownReading = better
                    }
                }
            }
            guard let reading = ownReading else {
                // Another model's person BlazePose reads in no region: reported from that model's pose, not followed
                // (on video that model finds them again on the next frame while fewer than the maximum are followed).
                if reportsUnreadPeople, let seed = person.seed, let reported = seed.reported {
                    let points = reported.keypoints.map { Landmark(x: Float($0.position.x) / Float(size.width),
                                                                   y: Float($0.position.y) / Float(size.height), z: 0) }
                    results.append(BlazePoseResult(imageSize: size, detection: nil, region: seed.region, poseScore: Float(reported.score),
                                                   score: Float(reported.score), landmarks: points, worldLandmarks: [],
                                                   nextRegion: seed.region, segmentationMask: nil, otherModelPose: reported))
                    continue
                }
                // No pose in the region: this person is lost. Several people: their filters go with
                // them (a person found again starts afresh). One person: MediaPipe's legacy graph keeps
                // the filters it does not reset for whoever it finds next.
                if configuration.maximumPoses == 1 {
                    person.filtering.resetAfterLoss()
                    filteringAfterLoss = person.filtering
                }
                continue
            }
            let (pose, mask) = reading
            // A person another body model found: BlazePose's reading must lie on them (it may lock onto a
            // neighbour in a crowded region), and on nobody read already.
            if person.seeded {
                let pixels = Self.pixels(pose.landmarks, size)
                if let seed = person.seed, !seed.agrees(with: pixels, tolerance: seedAgreement) { continue }
                if results.contains(where: { Self.sameLandmarks($0.landmarks, pixels, imageSize: size, tolerance: seedAgreement) }) { continue }
                person.seed = nil
            }
            person.filtering.smoothLandmarks = smooth && configuration.smoothLandmarks
            let filtered = person.filtering.apply(landmarks: pose.landmarks, worldLandmarks: pose.worldLandmarks, auxiliary: pose.auxiliary,
                                                  timestampMicroseconds: timestampMicroseconds, imageSize: size)
            let next = PoseLandmarksToRect.roi(auxiliary: filtered.auxiliary, imageSize: size)
            // Two people whose landmarks lead to one region have become one person: the first keeps them
            // (a seeded person is told apart by their landmarks, above).
            if configuration.maximumPoses > 1 && !person.seeded && overlaps(next, kept.map(\.region)) { continue }
            let smoothed = mask.map { smoothMask ? person.maskSmoothing.apply($0) : $0 }
            // In a photo, the reading is blended with the seed lying nearest it when that is within
            // ``seedCloseEnough`` (the two models read one person; a reading farther from the seed it was read for
            // may lie on a neighbour). Only what is reported is blended: the filters and the next region keep
            // BlazePose's own landmarks. Not on video (`smooth`): after their first frame a tracked person is read in
            // their own region with no seed beside them, so blending where a seed happens to lie would make them
            // jump between frames.
            var reported = filtered.landmarks
            if !smooth && seedBlend > 0 && !seeds.isEmpty {
                let readPixels = Self.pixels(filtered.landmarks, size)
                if let nearest = seeds.min(by: { $0.distance(to: readPixels) < $1.distance(to: readPixels) }),
                   nearest.distance(to: readPixels) <= seedCloseEnough {
                    reported = nearest.blended(filtered.landmarks, imageSize: size, weight: seedBlend)
                }
            }
            results.append(BlazePoseResult(imageSize: size, detection: person.detection, region: person.region, poseScore: pose.poseScore,
                                           score: seedScoring.score(flag: pose.poseScore, visibility: Self.meanCOCOVisibility(pose.landmarks),
                                                                    source: person.sourceScore),
                                           landmarks: reported, worldLandmarks: filtered.worldLandmarks, nextRegion: next,
                                           segmentationMask: smoothed))
            // A non-finite next region (a model returning NaN) loses the person: the detector looks again.
            if Self.usable(next) {
                person.region = next
                person.fresh = false
                person.seedIndex = nil
                kept.append(person)
            }
        }
        people = kept
        return results
    }
}
