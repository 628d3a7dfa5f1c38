import FrameIO

/// Where the hand pipeline looks for hands.
public enum HandSources: String, Sendable, CaseIterable {
    /// MediaPipe's pipeline exactly: the palm detector (and, on video, tracking).
    case palms
    /// Only regions from body poses (and tracking).
    case body
    /// Palms first, then the body poses' hands the palms missed.
    case palmsAndBody = "palms+body"

    var usesPalms: Bool { self != .body }
    var usesBody: Bool { self != .palms }
}

/// How hands found through the body are read and accepted.
///
/// The hand landmark model's flag is trained on palm-detector regions: on small hands
/// (11–24 pixels) it stays under MediaPipe's 0.5 for most hands although many joints land well.
/// A body-seeded region has the body model's word that a hand is there, so it is accepted on a
/// rule of its own: a flag of at least `minimumPresence` and the hand's wrist within
/// `maximumWristDistance` seed lengths (`BodyHandSeed.scaleLength`: the forearm) of the body's
/// wrist. The defaults were chosen on `media/images` and reported on `media/hands` and
/// `media/images-val` (docs/hands.md, "Hands found through the body").
public struct BodySeeding: Sendable, Equatable {
    /// Body seed → hand region.
    public var regions = HandRegionFromBody()
    /// Seeds whose wrist the body model scores below this are not read.
    public var minimumSeedScore: Float = 0.5
    /// A body-seeded hand needs at least this flag (MediaPipe's own threshold is 0.5).
    public var minimumPresence: Float = 0
    /// The hand's wrist must lie within this many seed lengths of the body's wrist.
    public var maximumWristDistance: Float = 0.5
    /// The hand is read again this many times in the region its own landmarks give (as tracking
    /// does on the next frame), which centres and turns the crop as the landmark model expects.
    public var refinements: Int = 2
    /// Where a refined region's side comes from (its centre and rotation come from the landmarks).
    public var refinedSide: RefinedSide = .seed

    /// The side of the region a body-seeded hand is read again in.
    public enum RefinedSide: String, Sendable, CaseIterable {
        /// MediaPipe's tracking rule: twice the landmarks' extent (`HandLandmarksToRect`).
        case landmarks
        /// The seed region's side (`HandRegionFromBody`: forearm lengths): the body's forearm keeps
        /// the scale while the landmarks move the centre and turn the region. Chosen on
        /// `media/images` (it placed more wrists within each error bound; docs/hands.md).
        case seed
    }

    public init() {}

    /// The region `hand` (found through the seed region `seedRegion`) is read again in.
    func refinedRegion(after hand: HandResult, seedRegion: NormalizedRect) -> NormalizedRect {
        var next = hand.nextRegion
        if refinedSide == .seed {
            next.width = seedRegion.width
            next.height = seedRegion.height
        }
        return next
    }
}

extension HandLandmarkPipeline {
    /// One image on its own with hands from `sources`: the palm detector (MediaPipe exactly,
    /// `process(_:)`) and, unless `sources` is `.palms`, regions from the body poses' `bodySeeds`
    /// the palms missed. At most `configuration.maximumHands` hands, palm-detected ones first.
    public func process(_ image: RGBImage, sources: HandSources, bodySeeds: [BodyHandSeed],
                        seeding: BodySeeding = BodySeeding()) throws -> HandsResult {
        try track(image, previous: [], sources: sources, bodySeeds: bodySeeds, seeding: seeding)
    }

    /// One frame given the regions tracked from the previous frame (`previous`, as
    /// `track(_:previous:)` takes them) with hands from `sources`: tracked hands and palms as
    /// MediaPipe finds them (no palm detector for `.body`), then the body seeds' hands the others
    /// missed. The result's `nextRegions` are the next frame's `previous`.
    public func track(_ image: RGBImage, previous: [NormalizedRect], sources: HandSources, bodySeeds: [BodyHandSeed],
                      seeding: BodySeeding = BodySeeding()) throws -> HandsResult {
        var result: HandsResult
        if sources.usesPalms {
            result = try track(image, previous: previous)
        } else {
            var hands: [HandResult] = []
            for region in previous where region.isFinite && region.width > 0 && region.height > 0 {
                if let hand = try hand(image, region: region) { hands.append(hand) }
            }
            result = HandsResult(imageSize: ImageSize(width: image.width, height: image.height), palmDetections: [],
                                 palmRegions: [], hands: hands, palmDetectorRan: false)
        }
        if sources.usesBody { result.hands += try bodyHands(image, seeds: bodySeeds, seeding: seeding, found: result.hands) }
        return result
    }

    /// The hands `seeds` give that `found` does not already hold, accepted by `seeding`'s rule,
    /// best seed first, until `maximumHands` hands are found in all.
    func bodyHands(_ image: RGBImage, seeds: [BodyHandSeed], seeding: BodySeeding, found: [HandResult]) throws -> [HandResult] {
        let size = ImageSize(width: image.width, height: image.height)
        guard size.width > 0, size.height > 0 else { return [] }
        var kept = found, added: [HandResult] = []
        let ordered = seeds.filter { $0.score >= seeding.minimumSeedScore }.sorted { $0.score > $1.score }
        for seed in ordered where kept.count < configuration.maximumHands {
            guard let scale = seed.scaleLength else { continue }
            let reach = seeding.maximumWristDistance * scale
            // A hand already found at this wrist is the hand the body points at.
            if kept.contains(where: { wristDistance($0, seed, size) <= reach }) { continue }
            guard let seedRegion = seeding.regions.region(seed, imageSize: size),
                  var hand = try readHand(image, region: seedRegion) else { continue }
            for _ in 0..<max(0, seeding.refinements) {
                let region = seeding.refinedRegion(after: hand, seedRegion: seedRegion)
                guard region.isFinite, region.width > 0, region.height > 0,
                      let again = try readHand(image, region: region) else { break }
                hand = again
            }
            guard hand.presence >= seeding.minimumPresence, wristDistance(hand, seed, size) <= reach else { continue }
            // Two seeds (two people's wrists close together) may find one hand: keep the first.
            let box = hand.nextRegion.axisAlignedBox
            if kept.contains(where: { $0.nextRegion.axisAlignedBox.intersectionOverUnion(box) > 0.5 }) { continue }
            hand.bodySeed = seed
            kept.append(hand)
            added.append(hand)
        }
        return added
    }

    /// Pixels between the hand's wrist landmark and the seed's wrist (infinite when not finite).
    private func wristDistance(_ hand: HandResult, _ seed: BodyHandSeed, _ size: ImageSize) -> Float {
        guard let wrist = hand.landmarks.first else { return .infinity }
        let dx = wrist.x * Float(size.width) - seed.wrist.x, dy = wrist.y * Float(size.height) - seed.wrist.y
        let distance = (dx * dx + dy * dy).squareRoot()
        return distance.isFinite ? distance : .infinity
    }
}
