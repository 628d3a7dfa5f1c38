import Foundation

/// One hand as a body model sees it: the body points that give a hand region where the palm
/// detector misses the hand (small hands in people photographed whole: the detector sees the whole
/// frame at 192×192). Points are image pixels (float32).
///
/// From PoseNet's COCO-17 the wrist and elbow; from BlazePose the wrist with its index and pinky
/// points (and the elbow). `score` is what the body model says of the wrist (PoseNet's keypoint
/// score, BlazePose's visibility).
public struct BodyHandSeed: Sendable, Equatable {
    public var wrist: SIMD2<Float>
    public var elbow: SIMD2<Float>?
    /// BlazePose's hand points (`left_index`/`right_index`, `left_pinky`/`right_pinky`).
    public var index: SIMD2<Float>?
    public var pinky: SIMD2<Float>?
    /// The body model's confidence in the wrist, in 0...1.
    public var score: Float

    public init(wrist: SIMD2<Float>, elbow: SIMD2<Float>? = nil, index: SIMD2<Float>? = nil, pinky: SIMD2<Float>? = nil,
                score: Float) {
        self.wrist = wrist
        self.elbow = elbow
        self.index = index
        self.pinky = pinky
        self.score = score
    }

    /// The length the region and the acceptance rule scale with, in pixels: the forearm
    /// (elbow → wrist) when the elbow is known, else twice the wrist → middle-finger estimate
    /// (BlazePose's hand points); nil when neither is usable.
    public var scaleLength: Float? {
        if let elbow {
            let forearm = length(wrist - elbow)
            if forearm.isFinite, forearm > 0 { return forearm }
        }
        if let middle = middleEstimate {
            let reach = 2 * length(middle - wrist)
            if reach.isFinite, reach > 0 { return reach }
        }
        return nil
    }

    /// Holistic's middle-finger estimate from BlazePose's hand points: (2·index + pinky) / 3.
    var middleEstimate: SIMD2<Float>? {
        guard let index, let pinky else { return nil }
        return (2 * index + pinky) / 3
    }
}

/// A body seed → the region the hand landmark model reads, as MediaPipe's Holistic pipeline
/// seeds hands from the pose.
///
/// - BlazePose's hand points (Holistic, `HandDetectionsFromPoseToRectsCalculator`,
///   `mediapipe/modules/holistic_landmark/calculators/`): centre at the middle-finger estimate
///   (2·index + pinky)/3, a square of side 2·|middle − wrist|, rotated so wrist → middle points
///   up. Holistic then widens it (× 2.7, square) into the search region of its hand re-crop
///   model, which is not among MediaPipe's published `.tflite` files here; PoseKit reads the hand
///   landmarks in the region directly, widened by `blazePoseScale` instead, and re-reads the
///   hand in the region its landmarks give (as tracking does on the next frame).
/// - PoseNet's COCO-17 has no hand points, only the wrist and the elbow: the hand continues the
///   forearm, so the region's centre is the wrist moved `forearmCentre` forearm lengths further
///   from the elbow, its side `forearmSide` forearm lengths, rotated so elbow → wrist points up.
///   Both constants were chosen on `media/images` (docs/hands.md, "Hands found through the body").
public struct HandRegionFromBody: Sendable, Equatable {
    /// Region centre beyond the wrist, in forearm lengths (COCO-17 seeds).
    public var forearmCentre: Float = 0.5
    /// Region side in forearm lengths (COCO-17 seeds).
    public var forearmSide: Float = 0.8
    /// BlazePose seeds: the Holistic square (2·|middle − wrist|) widened this much.
    public var blazePoseScale: Float = 2.0

    public init() {}

    public init(forearmCentre: Float, forearmSide: Float, blazePoseScale: Float = 2.0) {
        self.forearmCentre = forearmCentre
        self.forearmSide = forearmSide
        self.blazePoseScale = blazePoseScale
    }

    /// The region for `seed` in a `size` image; nil when the seed gives no usable direction
    /// (no elbow and no hand points, or points on top of each other, or not finite).
    public func region(_ seed: BodyHandSeed, imageSize size: ImageSize) -> NormalizedRect? {
        guard size.width > 0, size.height > 0, seed.wrist.x.isFinite, seed.wrist.y.isFinite else { return nil }
        let width = Float(size.width), height = Float(size.height)
        let centre: SIMD2<Float>, side: Float, rotation: Float
        if let middle = seed.middleEstimate {
            let reach = length(middle - seed.wrist)
            guard reach.isFinite, reach > 0 else { return nil }
            centre = middle
            side = 2 * reach * blazePoseScale
            rotation = DetectionToRect.rotation(from: seed.wrist, to: middle, targetDegrees: 90)
        } else if let elbow = seed.elbow {
            let forearm = seed.wrist - elbow
            let forearmLength = length(forearm)
            guard forearmLength.isFinite, forearmLength > 0 else { return nil }
            centre = seed.wrist + forearm * forearmCentre
            side = forearmLength * forearmSide
            rotation = DetectionToRect.rotation(from: elbow, to: seed.wrist, targetDegrees: 90)
        } else {
            return nil
        }
        let rect = NormalizedRect(xCenter: centre.x / width, yCenter: centre.y / height, width: side / width,
                                  height: side / height, rotation: rotation)
        return rect.isFinite ? rect : nil
    }
}

/// The Euclidean length of a pixel vector.
@inline(__always) func length(_ v: SIMD2<Float>) -> Float { ((v * v).sum()).squareRoot() }
