import PoseCore

/// How head tensors become poses.
public struct PoseDecoding: Sendable, Equatable {
    /// One person per frame (TF.js `decodeSinglePose`), or several (`decodeMultiplePoses`).
    public enum Mode: Sendable, Equatable { case single, multi }

    public var mode: Mode
    /// Multi-person parameters; `minPoseScore` also filters the single-person result.
    public var parameters: MultiPoseParameters
    /// Average the heads of the frame and its mirror image (twice the network time).
    public var flipAveraging: Bool

    public init(mode: Mode = .multi, parameters: MultiPoseParameters = MultiPoseParameters(), flipAveraging: Bool = false) {
        self.mode = mode
        self.parameters = parameters
        self.flipAveraging = flipAveraging
    }
}

extension PoseDecoding {
    /// Decodes heads into poses, best first, mapped by `transform` to image pixels, where the
    /// network puts them (also outside the image: nothing is clamped).
    ///
    /// - Throws: ``PoseDecodingError/parameterOutOfRange(_:)`` for invalid ``parameters``.
    public func poses(from heads: PoseNetOutput, mappingTo transform: ImageTransform) throws -> [Pose] {
        poses(from: heads, parameters: try MultiPoseParameters.Validated(parameters), mappingTo: transform)
    }

    /// ``poses(from:mappingTo:)`` with ``parameters`` validated beforehand (`validated`).
    package func poses(from heads: PoseNetOutput, parameters validated: MultiPoseParameters.Validated,
               mappingTo transform: ImageTransform) -> [Pose] {
        var poses: [Pose]
        switch mode {
        case .single:
            let pose = decodeSinglePose(heads)
            poses = pose.score >= validated.parameters.minPoseScore ? [pose] : []
        case .multi:
            poses = decodeMultiplePoses(heads, parameters: validated)
        }
        poses.sort { $0.score > $1.score }
        return poses.map { $0.mapped(by: transform) }
    }
}
