import FrameIO
import PoseCore

/// People found by another body model, for BlazePose to read (``BlazePoseDetector/personSource``): BlazePose's
/// own detector was trained for one prominent person and finds few others (docs/blazepose.md, "Everyone in the
/// frame"); PoseNet's multi-person decoding finds them.
public protocol BlazePosePersonSource: Sendable {
    /// The people in `image` (its pixels), best first, with COCO-17's keypoint names (hips, shoulders, ...).
    func people(in image: RGBImage) throws -> [Pose]
    /// The model's name, written as `Pose.landmarksFrom` on a person reported from its pose
    /// (``BlazePoseRegionFromPose/reportsUnreadPeople``).
    var modelName: String { get }
}

/// A person another body model found, for BlazePose to read: the region and the points BlazePose's reading
/// must agree with (``BlazePoseRegionFromPose/seed(_:imageSize:)``).
public struct BlazePosePersonSeed: Sendable, Equatable {
    /// The region the landmark model reads the person in.
    public var region: NormalizedRect
    /// Other regions to read the person in (``BlazePoseRegionFromPose/otherReaches``): tighter and looser
    /// squares about the same centre.
    public var otherRegions: [NormalizedRect] = []
    /// The person's confident keypoints as the other model found them: BlazePose's landmark index (COCO-17's
    /// points in BlazePose's 33) and the point in pixels.
    public var points: [(landmark: Int, point: SIMD2<Float>)]
    /// The person's size in pixels (the diagonal of their confident keypoints' box).
    public var size: Float
    /// The other model's pose of the person (COCO-17, pixels), for its score (``BlazePoseRegionFromPose/scoring``)
    /// and for reporting the person when BlazePose reads them in none of the regions
    /// (``BlazePoseRegionFromPose/reportsUnreadPeople``); nil: neither.
    public var pose: Pose?
    /// The other model's name, written as the pose's `Pose.landmarksFrom` when the person is reported from it.
    public var modelName = "other"

    /// A person to read in `region` (and `otherRegions`) whose reading must lie near `points` (BlazePose landmark,
    /// pixels) for their `size`; `pose`: the other model's pose of them (its score, and the person reported from it).
    public init(region: NormalizedRect, otherRegions: [NormalizedRect] = [], points: [(landmark: Int, point: SIMD2<Float>)], size: Float,
                pose: Pose? = nil) {
        self.region = region
        self.otherRegions = otherRegions
        self.points = points
        self.size = size
        self.pose = pose
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.region == b.region && a.otherRegions == b.otherRegions && a.size == b.size && a.points.count == b.points.count
            && zip(a.points, b.points).allSatisfy { $0.landmark == $1.landmark && $0.point == $1.point }
            && a.pose == b.pose && a.modelName == b.modelName
    }

    /// Whether BlazePose's `landmarks` (pixels) lie on this person: their COCO-17 points within `tolerance`
    /// of the person's size from the seed's, on average.
    public func agrees(with landmarks: [SIMD2<Float>], tolerance: Float) -> Bool {
        distance(to: landmarks) <= tolerance
    }

    /// How far BlazePose's `landmarks` (pixels) lie from this person: the mean distance of their COCO-17 points
    /// from the seed's, over the person's size; infinity when nothing can be compared.
    public func distance(to landmarks: [SIMD2<Float>]) -> Float {
        var total: Float = 0, count = 0
        for (landmark, point) in points where landmark < landmarks.count {
            let d = landmarks[landmark] - point
            total += ((d * d).sum()).squareRoot()
            count += 1
        }
        guard count > 0, size > 0 else { return .infinity }
        let mean = total / Float(count) / size
        return mean.isFinite ? mean : .infinity
    }
}

/// A person another body model found → the region BlazePose's landmark model reads them in, made as
/// BlazePose's own detection makes it (`PoseDetectionToRoi`): a centre, a point whose distance from it is the
/// body's radius and whose direction is the body's up, a square of twice that radius turned upright, × 1.25.
///
/// From a COCO-17 pose: the centre is the middle of the hips (BlazePose's detector's first keypoint), the up
/// direction hips → shoulders, the radius ``reach`` times the distance from the centre to the farthest
/// keypoint scoring at least ``minimumKeypointScore`` (BlazePose's second keypoint lies that far along the up
/// direction). Without both hips and both shoulders, the centre of those keypoints' box, upright, the radius
/// ``reach`` times half its diagonal. Poses scoring under ``minimumPoseScore``, or with fewer than
/// ``minimumKeypoints`` such keypoints, give no region. Chosen on `media/images` (docs/blazepose.md).
public struct BlazePoseRegionFromPose: Sendable, Equatable {
    /// The radius over the farthest confident keypoint's distance from the centre.
    public var reach: Float = 1.1
    /// Keypoints that count.
    public var minimumKeypointScore: Double = 0.3
    /// Poses that count.
    public var minimumPoseScore: Double = 0.2
    /// Confident keypoints a pose needs.
    public var minimumKeypoints = 5
    /// BlazePose's reading in the region is that person when its COCO-17 points lie within this fraction of the
    /// person's size of theirs on average (BlazePose locks onto a neighbour in a crowded region otherwise), and
    /// a second reading of a person already read when it lies that close to theirs.
    public var agreement: Float = 0.25
    /// The other reaches a person is read with (``BlazePosePersonSeed/otherRegions``): BlazePose's reading that
    /// lies closest to the person is kept. MediaPipe's own regions measure 1.0–1.27 times the farthest
    /// landmark's distance from the hip centre on the 14 reference photos; the family spans that, tighter
    /// (a neighbour's limbs kept out) and looser (a body whose far keypoints another model did not see).
    public var otherReaches: [Float] = [0.8, 0.95, 1.25, 1.4, 1.6]

    /// A reading of the person (one per region, and one in the region each reading's own auxiliary landmarks give,
    /// tried in order: ``reach``, its refined region, then each of ``otherReaches`` and its refined region) lying
    /// within this distance of the seed (``BlazePosePersonSeed/distance(to:)``) is kept at once; when none does, the
    /// closest of all lying within ``agreement``. 0: always the closest; ``agreement``: the first on the person.
    public var closeEnough: Float = 0.1
    /// Whether a person the detector found anew, whom the other model found too, is also read in the seed's
    /// regions when the detector's reading is not ``closeEnough``, the reading lying closest to the seed kept.
    public var rereadsDetected = true
    /// Whether a person of the other model's that BlazePose reads in none of their regions (or who gives no region:
    /// a faint or partly seen pose) is reported from the other model's pose (``BlazePosePersonSeed/reported``:
    /// COCO-17's points at their BlazePose landmarks, the others absent, no world points, `Pose.landmarksFrom`
    /// naming the model); false: only BlazePose's own landmarks are reported (`posekit pose --blazepose-only`).
    public var reportsUnreadPeople = true
    /// The score a person found through the other model ranks by (``BlazePosePersonScore``).
    public var scoring = BlazePosePersonScore.poseFlag
    /// In a photo (not on video, where a tracked person has no seed beside them after their first frame), how far
    /// BlazePose's reading of a person the other model found too (any reading lying within ``closeEnough`` of
    /// the seed nearest it: a seed's reading, or the detector's person) is moved toward that seed's confident points
    /// (``BlazePosePersonSeed/blended(_:imageSize:weight:)``; a reading farther may lie on a neighbour):
    /// 0.5, their mean (the two weighed alike, not tuned); 0: BlazePose's own points. On `media/images`, mean OKS of
    /// the labelled people 0.746 → 0.757, 11 closer and 3 farther (docs/blazepose.md).
    public var blend: Float = 0.5

    /// BlazePose's landmarks of COCO-17's points, in COCO-17's order.
    public static let cocoLandmarks = KeypointSet.blazePose33.cocoIndices.map { $0! }

    public init() {}

    /// The seed of `pose` (a COCO-17 pose) in an image of `size`: its region and its confident points, nil
    /// when it gives no region.
    public func seed(_ pose: Pose, imageSize size: ImageSize) -> BlazePosePersonSeed? {
        guard let region = region(pose, imageSize: size), pose.keypoints.count == Self.cocoLandmarks.count else { return nil }
        let otherRegions = otherReaches.compactMap { other -> NormalizedRect? in
            var rule = self
            rule.reach = other
            return rule.region(pose, imageSize: size)
        }
        var points: [(landmark: Int, point: SIMD2<Float>)] = []
        for (k, keypoint) in pose.keypoints.enumerated()
        where keypoint.score >= minimumKeypointScore && keypoint.position.x.isFinite && keypoint.position.y.isFinite {
            points.append((Self.cocoLandmarks[k], SIMD2(Float(keypoint.position.x), Float(keypoint.position.y))))
        }
        guard let first = points.first else { return nil }
        let low = points.reduce(first.point) { pointwiseMin($0, $1.point) }, high = points.reduce(first.point) { pointwiseMax($0, $1.point) }
        return BlazePosePersonSeed(region: region, otherRegions: otherRegions, points: points, size: length(high - low), pose: pose)
    }

    /// The region of `pose` in an image of `size`, nil when it gives none.
    public func region(_ pose: Pose, imageSize size: ImageSize) -> NormalizedRect? {
        guard size.width > 0, size.height > 0, pose.score.isFinite, pose.score >= minimumPoseScore else { return nil }
        let confident = pose.keypoints.filter { $0.score >= minimumKeypointScore && $0.position.x.isFinite && $0.position.y.isFinite }
            .map { SIMD2(Float($0.position.x), Float($0.position.y)) }
        guard confident.count >= minimumKeypoints else { return nil }
        func point(_ name: String) -> SIMD2<Float>? {
            guard let k = pose.keypoint(named: name), k.score >= minimumKeypointScore, k.position.x.isFinite, k.position.y.isFinite else { return nil }
            return SIMD2(Float(k.position.x), Float(k.position.y))
        }
        var centre: SIMD2<Float>, up = SIMD2<Float>(0, -1), radius: Float
        if let lh = point("leftHip"), let rh = point("rightHip"), let ls = point("leftShoulder"), let rs = point("rightShoulder"),
           length((ls + rs) / 2 - (lh + rh) / 2) > 0 {
            centre = (lh + rh) / 2
            let torso = (ls + rs) / 2 - centre
            up = torso / length(torso)
            radius = confident.map { length($0 - centre) }.max()!
        } else {
            let low = confident.reduce(confident[0]) { pointwiseMin($0, $1) }, high = confident.reduce(confident[0]) { pointwiseMax($0, $1) }
            centre = (low + high) / 2
            radius = length(high - low) / 2
        }
        radius *= reach
        guard radius.isFinite, radius > 0 else { return nil }
        let sizePoint = centre + up * radius
        let detection = Detection(score: Float(pose.score), box: RelativeBox(xmin: 0, ymin: 0, width: 0, height: 0),
                                  keypoints: [SIMD2(centre.x / Float(size.width), centre.y / Float(size.height)),
                                              SIMD2(sizePoint.x / Float(size.width), sizePoint.y / Float(size.height))])
        let region = DetectorPostprocessing.poseRegion(detection, imageSize: size)
        return region.isFinite && region.width > 0 && region.height > 0 ? region : nil
    }
}
