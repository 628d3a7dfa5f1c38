import PoseCore
/// Settings of the multi-person decoder. The defaults are TF.js PoseNet's, under which the decoder
/// reproduces TF.js `decodeMultiplePoses` exactly.
///
/// Apple's Core ML PoseNet sample (`PoseBuilderConfiguration`) names the same knobs differently:
///
/// | here | Apple's sample | TF.js |
/// |---|---|---|
/// | ``maxPoses`` | `maxPoseCount` | `maxDetections` |
/// | ``partScoreThreshold`` | `jointConfidenceThreshold` | `scoreThreshold` |
/// | ``nmsRadius`` | `matchingJointDistance` | `nmsRadius` |
/// | ``localMaximumRadius`` | `localSearchRadius` | `kLocalMaximumRadius` |
/// | ``refineSteps`` | `adjacentJointOffsetRefinementSteps` | `offsetRefineStep` |
/// | ``minPoseScore`` | `poseConfidenceThreshold` | `minPoseConfidence` |
///
/// Distances are in model-input pixels (the resized image the network saw), not original image pixels.
public struct MultiPoseParameters: Sendable, Equatable {
    /// At most this many poses are decoded (TF.js default 10; Apple's sample uses 15).
    /// Zero returns no poses.
    public var maxPoses: Int
    /// A heatmap cell is a root candidate only when its score is at least this (0...1; default 0.5).
    public var partScoreThreshold: Double
    /// Two keypoints of the same part closer than this (in model-input pixels, inclusive) belong to
    /// the same person (default 20; Apple's sample uses 40). Controls both root-candidate rejection
    /// and the score discount of overlapping poses.
    public var nmsRadius: Double
    /// A root candidate must be the maximum of the `(2r + 1)²` window of cells around it
    /// (default 1; Apple's sample uses 3). Equal neighbors do not disqualify it.
    public var localMaximumRadius: Int
    /// How many times a keypoint reached by a displacement is snapped to its own short-range offset
    /// (default 2, as TF.js; 0...16). More steps move it closer to the heatmap peak it landed near.
    public var refineSteps: Int
    /// Decoded poses scoring below this are dropped from the result (0...1; default 0, keep all).
    /// They still count towards ``maxPoses`` and still suppress later duplicates, so raising it
    /// only removes poses and never changes the others.
    public var minPoseScore: Double

    /// Largest accepted ``refineSteps``; each step is one lookup per keypoint, and refinement
    /// converges within a few steps.
    public static let maximumRefineSteps = 16

    public init(maxPoses: Int = 10, partScoreThreshold: Double = 0.5, nmsRadius: Double = 20,
                localMaximumRadius: Int = 1, refineSteps: Int = 2, minPoseScore: Double = 0) {
        self.maxPoses = maxPoses
        self.partScoreThreshold = partScoreThreshold
        self.nmsRadius = nmsRadius
        self.localMaximumRadius = localMaximumRadius
        self.refineSteps = refineSteps
        self.minPoseScore = minPoseScore
    }

    /// Throws ``PoseDecodingError/parameterOutOfRange(_:)`` naming the first invalid setting.
    public func validate() throws {
        func fail(_ message: String) -> PoseDecodingError { .parameterOutOfRange(message) }
        guard maxPoses >= 0 else { throw fail("maxPoses must be ≥ 0, got \(maxPoses)") }
        guard (0...1).contains(partScoreThreshold) else {
            throw fail("partScoreThreshold must be in 0...1, got \(partScoreThreshold)")
        }
        guard nmsRadius.isFinite, nmsRadius >= 0 else { throw fail("nmsRadius must be finite and ≥ 0, got \(nmsRadius)") }
        guard localMaximumRadius >= 0 else { throw fail("localMaximumRadius must be ≥ 0, got \(localMaximumRadius)") }
        guard (0...MultiPoseParameters.maximumRefineSteps).contains(refineSteps) else {
            throw fail("refineSteps must be in 0...\(MultiPoseParameters.maximumRefineSteps), got \(refineSteps)")
        }
        guard (0...1).contains(minPoseScore) else { throw fail("minPoseScore must be in 0...1, got \(minPoseScore)") }
    }
}

extension MultiPoseParameters {
    /// Parameters that passed ``MultiPoseParameters/validate()``: what the decoder's unchecked
    /// entry point takes, so that a detector checks its settings once rather than on every frame.
    package struct Validated {
        package let parameters: MultiPoseParameters

        /// Throws ``PoseDecodingError/parameterOutOfRange(_:)`` naming the first invalid setting.
        package init(_ parameters: MultiPoseParameters) throws {
            try parameters.validate()
            self.parameters = parameters
        }
    }
}
