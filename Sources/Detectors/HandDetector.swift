import Foundation
import FrameIO
import MediaPipe
import ModelGraph
import PoseCore
import PoseNet
import Tensor

/// Finds hands in images and video frames: MediaPipe's hand pipeline (palm detector, 21 landmarks
/// per hand with handedness and world coordinates, and on video MediaPipe's tracking) on the
/// imported MediaPipe 0.10.14 graphs. `posekit hands` runs exactly this.
///
/// One image:
///
///     let detector = try HandDetector()                        // full models, at most 2 hands
///     for hand in try detector.hands(in: RGBImage(contentsOfFile: "photo.jpg")) {
///         print(hand.handedness, hand.score, hand.pose.keypoint(named: "indexTip")!.position)
///     }
///
/// and video, every frame's hands with their identities:
///
///     for try await frame in detector.hands(inMediaAt: "clip.mp4") {
///         for hand in frame.hands { print(frame.index, hand.id ?? 0, hand.handedness) }
///     }
///
/// **Handedness** is the person's own hand in the image as given. MediaPipe's label assumes a
/// mirrored (selfie) image, so on an ordinary photo it is the opposite of what MediaPipe says;
/// set ``Configuration/mirrored`` when the input is mirrored (a front camera's preview).
///
/// **Coordinates** are image pixels: MediaPipe's normalized landmark times the width (x, and
/// `Keypoint/z`) or the height (y); world points in metres (`Pose/world`).
///
/// **Thread safety.** A detector may be shared: each call holds its lock for the whole frame, so
/// concurrent calls run one after another.
public final class HandDetector: @unchecked Sendable {
    /// Which MediaPipe hand models run: `full` (`palm_detection_full` + `hand_landmark_full`, the
    /// default, as MediaPipe's `model_complexity` 1) or `lite` (both `_lite`, faster, less accurate).
    public enum Model: String, Sendable, CaseIterable {
        case full, lite

        /// The model's name in `ModelCatalogue` (`hands-full`, `hands-lite`).
        public var catalogueName: String { "hands-\(rawValue)" }
        /// The palm detector's bundle name (`Weights/palm_detection_full.pkw`, ...), from `ModelCatalogue`.
        public var palmDetectorBundle: String { ModelCatalogue.model(named: catalogueName)!.bundles[0].name }
        /// The landmark model's bundle name, from `ModelCatalogue`.
        public var landmarkBundle: String { ModelCatalogue.model(named: catalogueName)!.bundles[1].name }
    }

    /// What the detector finds, with `posekit hands`' defaults (MediaPipe's and Vision's).
    public struct Configuration: Sendable, Equatable {
        /// The hand models.
        public var model: Model = .full
        /// At most this many hands per frame (MediaPipe's `max_num_hands`, Vision's
        /// `maximumHandCount`); on video the palm detector runs only while fewer are tracked.
        public var maximumHands = 2
        /// Whether images are mirrored (a selfie view): handedness is then MediaPipe's label as is.
        public var mirrored = false
        /// Palms scoring below are not looked at (MediaPipe's `min_detection_confidence`).
        public var minimumDetectionScore: Float = 0.5
        /// Hands whose presence is below are dropped, and no longer tracked (`min_tracking_confidence`).
        public var minimumPresence: Float = 0.5
        /// Cores each network pass and crop uses; nil: every core.
        public var threads: Int?
        /// The arithmetic of the hand models' (and the body model's) 1×1 convolutions (`.fp32`, the
        /// default); an explicit reduced precision this CPU lacks fails the detector's construction.
        public var precision: Precision = .fp32
        /// Where hands are looked for: the palm detector (MediaPipe exactly, `.palms`), the body
        /// model's wrists (`.body`) or both (`.palmsAndBody`, the default: small hands the palm
        /// detector misses are found through the body; docs/hands.md).
        public var sources: HandSources = .palmsAndBody
        /// How hands found through the body are read and accepted (chosen on `media/images`).
        public var bodySeeding = BodySeeding()
        /// Which person holds each hand (their wrist and forearm).
        public var ownership = HandOwnership()
        /// Hands on clothing and other false hands, left out (`isEnabled` false: every hand kept).
        public var falseHands = FalseHandRule()
        /// The body model that seeds hands (PoseNet, `posekit pose`'s defaults); used unless
        /// `sources` is `.palms`. It runs on every frame: its people hold the hands.
        public var bodyModel: PoseModel = .default

        /// The defaults (`posekit hands`'): full models, 2 hands, unmirrored, MediaPipe's thresholds.
        public static let `default` = Configuration()

        public init(model: Model = .full, maximumHands: Int = 2, mirrored: Bool = false, threads: Int? = nil,
                    sources: HandSources = .palmsAndBody, precision: Precision = .fp32) {
            self.precision = precision
            self.model = model
            self.maximumHands = maximumHands
            self.mirrored = mirrored
            self.threads = threads
            self.sources = sources
        }
    }

    public let configuration: Configuration
    let pipeline: HandLandmarkPipeline
    /// The body model seeding hands (nil for `.palms`, or when a test gives none).
    private let bodyDetector: PoseDetector?
    private let lock = NSLock()

    /// Loads the two models of `configuration.model` from their weight bundles
    /// (`palm_detection_full.pkw` and `hand_landmark_full.pkw`, found as every bundle is:
    /// `ModelLocator`).
    /// `loadsBodyModel` false: no body model of its own even where `configuration.sources` seeds
    /// hands through the body, because the poses come with each frame (``BodyAndHandsModel``, `pose --hands`).
    public convenience init(configuration: Configuration = .default, loadsBodyModel: Bool = true) throws {
        let threads = configuration.threads ?? Parallelism.defaultThreads
        func load(_ name: String) throws -> GraphModel {
            try GraphModel(graph: try DetectorWeights.graph(name), threads: threads, precision: configuration.precision)
        }
        let body = configuration.sources == .palms || !loadsBodyModel ? nil
            : try PoseDetector(model: configuration.bodyModel,
                               configuration: PoseDetector.Configuration(threads: threads, precision: configuration.precision))
        try self.init(palmDetector: load(configuration.model.palmDetectorBundle),
                      landmarker: load(configuration.model.landmarkBundle), bodyDetector: body, configuration: configuration)
    }

    /// A detector on models of your own (imported graphs as `GraphModel`s, or a test's stand-ins).
    /// - Throws: `HandDetectorError` for a maximum hand count outside 1...``maximumHandsLimit``.
    /// `bodyDetector` seeds hands through the body unless `configuration.sources` is `.palms`.
    public init(palmDetector: any MediaPipeModel, landmarker: any MediaPipeModel, bodyDetector: PoseDetector? = nil,
                configuration: Configuration = .default) throws {
        guard (1...Self.maximumHandsLimit).contains(configuration.maximumHands) else {
            throw HandDetectorError.maximumHands(configuration.maximumHands)
        }
        self.configuration = configuration
        var settings = HandLandmarkPipeline.Configuration()
        settings.maximumHands = configuration.maximumHands
        settings.minimumDetectionScore = configuration.minimumDetectionScore
        settings.minimumPresence = configuration.minimumPresence
        settings.threads = configuration.threads ?? Parallelism.defaultThreads
        pipeline = HandLandmarkPipeline(palmDetector: palmDetector, landmarker: landmarker, configuration: settings)
        self.bodyDetector = configuration.sources == .palms ? nil : bodyDetector
    }

    /// The most hands a frame may be asked for (each costs one landmark pass).
    public static let maximumHandsLimit = 20

    /// The hands in an image on its own (no tracking), in its pixels, in MediaPipe's order (by
    /// palm detection score).
    public func hands(in image: RGBImage) throws -> [Hand] {
        var tracking = HandTracking()
        let found = try findHands(in: image, tracking: &tracking, tracked: false)
        return HandTracks.sided(found.hands, owners: found.owners)
    }

    /// The hands in one frame on its own (no tracking; for a stream use ``hands(from:dropsLateFrames:)``).
    public func hands(in frame: VideoFrame) throws -> [Hand] {
        try hands(in: frame.rgb())
    }

    /// The hands in the image at `path` (PNM directly; JPEG, PNG, ... through ffmpeg; a video's
    /// first frame). Errors name the file.
    public func hands(inImageAtPath path: String) throws -> [Hand] {
        try hands(in: RGBImage(contentsOfFile: path))
    }

    /// One frame of a stream you read yourself: the hands looked for in the regions `tracking`
    /// holds from the previous frame and, while fewer than the maximum are tracked, by the palm
    /// detector (and the body model's wrists); each gets its `Hand/id`, `Hand/person` and side from its
    /// track (``HandTracks``) and `tracking` the regions for the next frame. A still image
    /// (`VideoFrame/isStillImage`) is looked at on its own: no ids, `tracking` unchanged.
    ///
    ///     var tracking = HandTracking()
    ///     for try await frame in MediaFrames(path: "clip.mp4") {
    ///         let hands = try detector.hands(in: frame, tracking: &tracking)
    ///     }
    public func hands(in frame: VideoFrame, tracking: inout HandTracking) throws -> [Hand] {
        let found = try findHands(in: frame.rgb(), tracking: &tracking, tracked: !frame.isStillImage)
        guard !frame.isStillImage else { return HandTracks.sided(found.hands, owners: found.owners) }
        // The people this detector's own body model found, with identities, own the hands.
        let time = PoseStream.trackingTime(frameIndex: frame.index, time: frame.time)
        let people = tracking.people.update(poses: found.poses, time: time)
        var idOfPose: [Int: Int] = [:]
        for person in people { if let index = person.sourceIndex { idOfPose[index] = person.trackID } }
        let owners = found.owners.map { owner in owner.flatMap { o in idOfPose[o.person].map { HandOwner(person: $0, side: o.side) } } }
        return tracking.tracks.update(found.hands, owners: owners, people: Set(people.map(\.trackID)), time: time)
    }

    /// ``hands(in:tracking:)`` with the frame's people as a body model found them (before
    /// tracking: a stream's raw poses) seeding hands through the body, instead of this detector's
    /// own body model (none is run). The hands as found, each with its owner among `bodyPoses` (an index);
    /// ids and sides over time are the caller's (``BodyAndHandsModel``: ``HandTracks`` once the people
    /// have their ids).
    public func findHands(in frame: VideoFrame, tracking: inout HandTracking, bodyPoses: [Pose]) throws -> FrameHands {
        try findHands(in: frame.rgb(), tracking: &tracking, tracked: !frame.isStillImage, bodyPoses: bodyPoses)
    }

    /// The hands in `image`, looked for in `tracking`'s regions from the previous frame and, while
    /// fewer than the maximum are tracked, by the palm detector and the body's wrists; each with its owner
    /// among the frame's people (``HandOwnership``), false hands (``FalseHandRule``) and the same hand found
    /// twice left out. `tracked`: `tracking` gets the regions for the next frame (a still image: unchanged).
    /// `bodyPoses`: the frame's people as a body model found them (before tracking), instead of this
    /// detector's own body model.
    func findHands(in image: RGBImage, tracking: inout HandTracking, tracked: Bool, bodyPoses: [Pose]? = nil) throws -> FrameHands {
        let result: HandsResult, poses: [Pose], seeds: [BodyHandSeed], seedOwners: [HandOwner]
        do {
            lock.lock(); defer { lock.unlock() }
            let previous = tracked ? tracking.regions : []
            // The people every frame (their hands belong to them); their wrists seed hands, like the palm
            // detector, only while fewer than the maximum are tracked.
            if configuration.sources != .palms {
                poses = try bodyPoses ?? bodyDetector?.poses(in: image) ?? []
            } else {
                poses = bodyPoses ?? []
            }
            var bodySeeds: [BodyHandSeed] = [], owners: [HandOwner] = []
            if configuration.sources != .palms, previous.count < configuration.maximumHands {
                for (p, pose) in poses.enumerated() {
                    for (seed, side) in BodyHandSeed.sidedSeeds(from: pose) {
                        bodySeeds.append(seed)
                        owners.append(HandOwner(person: p, side: side))
                    }
                }
            }
            seeds = bodySeeds
            seedOwners = owners
            result = try pipeline.track(image, previous: previous, sources: configuration.sources, bodySeeds: seeds,
                                        seeding: configuration.bodySeeding)
        }
        var candidates: [FoundHand] = [], regions: [NormalizedRect?] = []
        var nextKey = tracking.nextRegionKey
        for found in result.hands {
            guard let hand = Self.hand(found, imageSize: result.imageSize, mirrored: configuration.mirrored) else { continue }
            let key: Int
            if tracked, let slot = tracking.regions.firstIndex(of: found.region) {
                key = tracking.regionKeys[slot]
            } else {
                key = nextKey
                nextKey += 1
            }
            let seed = found.bodySeed.flatMap { seeds.firstIndex(of: $0) }.map { seedOwners[$0] }
            // A hand found only through a pose too faint to be a person (under the score PoseKit's tracker and the
            // false-hand rule take a person from) has no body vouching for it: it needs MediaPipe's own flag, as
            // a palm-found hand does (a forearm and a hand of a pasted hand patch made such a "person" and a false
            // hand beside the real one: docs/hands.md, "The pinch on real frames").
            if let seed, seed.person < poses.count, poses[seed.person].score < configuration.falseHands.minimumPoseScore,
               found.presence < pipeline.configuration.minimumPresence { continue }
            let mirroredSeed = seed.map { HandOwner(person: $0.person, side: configuration.mirrored ? $0.side.opposite : $0.side) }
            candidates.append(FoundHand(hand: hand, seed: mirroredSeed, regionKey: key))
            regions.append(found.nextRegion.isFinite ? found.nextRegion : nil)
        }
        var owners = configuration.ownership.owners(of: candidates, in: poses, mirrored: configuration.mirrored)
        var kept = HandOwnership.withoutDuplicates(candidates, owners: owners)
        kept.removeAll { configuration.falseHands.isFalse(candidates[$0].hand, owner: owners[$0], poses: poses,
                                                          ownership: configuration.ownership, mirrored: configuration.mirrored) }
        let hands = kept.map { candidates[$0] }
        owners = kept.map { owners[$0] }
        if tracked {
            var next = HandTracking(keeping: tracking)
            next.nextRegionKey = nextKey
            for k in kept {
                guard let region = regions[k] else { continue }
                next.regions.append(region)
                next.regionKeys.append(candidates[k].regionKey)
            }
            tracking = next
        }
        return FrameHands(hands: hands, owners: owners, poses: poses)
    }

    /// MediaPipe's hand as a `Hand` in pixels of `imageSize`, with the person's own handedness;
    /// nil when it holds a number that is not finite (a model gone wrong finds no hand).
    static func hand(_ found: HandResult, imageSize: ImageSize, mirrored: Bool) -> Hand? {
        guard found.presence.isFinite, found.handedness.score.isFinite,
              found.landmarks.count == KeypointSet.hand21.count, found.worldLandmarks.count == KeypointSet.hand21.count
        else { return nil }
        // A hand found through the body is vouched for by the body model: its score is the seed's
        // (the flag of such small hands says little; docs/hands.md), the palm and tracked hands' the flag.
        let presence = Double(found.bodySeed.map { max($0.score, found.presence) } ?? found.presence)
        var keypoints: [Keypoint] = [], world: [WorldPoint] = []
        keypoints.reserveCapacity(found.landmarks.count)
        world.reserveCapacity(found.worldLandmarks.count)
        for landmark in found.landmarks {
            let pixel = landmark.inPixels(imageSize)
            guard pixel.x.isFinite, pixel.y.isFinite, pixel.z.isFinite else { return nil }
            keypoints.append(Keypoint(position: Point(x: Double(pixel.x), y: Double(pixel.y)), score: presence, z: Double(pixel.z)))
        }
        for point in found.worldLandmarks {
            guard point.x.isFinite, point.y.isFinite, point.z.isFinite else { return nil }
            world.append(WorldPoint(x: Double(point.x), y: Double(point.y), z: Double(point.z)))
        }
        var pose = Pose(keypoints: keypoints, score: presence, keypointSet: .hand21)
        pose.world = world
        let right = found.handedness.isPersonsRightHand(mirrored: mirrored)
        return Hand(pose: pose, handedness: right ? .right : .left, handednessScore: Double(found.handedness.score))
    }
}

/// A stream's hands between frames (``HandDetector/hands(in:tracking:)``): the regions to look in
/// next (MediaPipe's `hand_rects_from_landmarks`) and the key of the hand each came from, and for a
/// detector with its own body model the people (``/PoseCore/PoseTracker``) and the hands' tracks (``HandTracks``).
/// A new stream starts from `HandTracking()`.
public struct HandTracking: Sendable {
    var regions: [NormalizedRect] = []
    var regionKeys: [Int] = []
    /// The key the next hand found anew gets.
    var nextRegionKey = 1
    /// The people of the detector's own body model, with identities (the default configuration is valid).
    var people = try! PoseTracker()
    /// Ids, people and sides of the hands over time.
    var tracks = HandTracks()

    public init() {}

    /// The next frame's state: `previous`'s people and tracks, regions to come.
    init(keeping previous: HandTracking) {
        nextRegionKey = previous.nextRegionKey
        people = previous.people
        tracks = previous.tracks
    }

    /// How many hands are tracked into the next frame.
    public var trackedHands: Int { regions.count }
}

/// One frame's hands as ``HandDetector/findHands(in:tracking:bodyPoses:)`` finds them: the hands (false
/// hands and the same hand twice left out), the person and side holding each (an index into `poses`), and
/// the frame's people as the body model found them (before tracking).
public struct FrameHands: Sendable {
    public var hands: [FoundHand]
    public var owners: [HandOwner?]
    public var poses: [Pose]
}

/// Why a hand detector cannot be made.
public enum HandDetectorError: LocalizedError, Equatable {
    case maximumHands(Int)

    public var errorDescription: String? {
        switch self {
        case .maximumHands(let count):
            return "the maximum hand count must be in 1...\(HandDetector.maximumHandsLimit), got \(count)"
        }
    }
}
