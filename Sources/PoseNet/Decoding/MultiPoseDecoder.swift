import PoseCore
/// Decodes every person in a frame (TF.js `decodeMultiplePoses`, the PersonLab greedy decoder).
///
/// 1. Collect local heatmap maxima scoring at least ``MultiPoseParameters/partScoreThreshold``
///    over all 17 keypoints into one max-heap.
/// 2. Pop candidates in decreasing score. A candidate within ``MultiPoseParameters/nmsRadius`` of
///    the same keypoint of an already decoded pose is the same person again: skip it.
/// 3. Otherwise grow a pose from it along the skeleton tree (``/PoseCore/Skeleton/treeEdges``) and score it
///    by the keypoints no earlier pose claims (sum / 17).
/// 4. Stop after ``MultiPoseParameters/maxPoses`` poses or when the heap is empty.
///
/// - Returns: poses in decoding order (decreasing root score, not necessarily decreasing pose
///   score), keypoints in model-input pixels; map them with ``/PoseCore/ImageTransform``. No candidate above
///   the threshold means an empty array.
/// - Throws: ``PoseDecodingError/parameterOutOfRange(_:)`` for invalid `parameters`.
public func decodeMultiplePoses(_ output: PoseNetOutput,
                                parameters: MultiPoseParameters = MultiPoseParameters()) throws -> [Pose] {
    decodeMultiplePoses(output, parameters: try MultiPoseParameters.Validated(parameters))
}

/// ``decodeMultiplePoses(_:parameters:)`` with parameters validated beforehand (a detector's
/// per-frame path: its settings were checked when they were set).
func decodeMultiplePoses(_ output: PoseNetOutput, parameters validated: MultiPoseParameters.Validated) -> [Pose] {
    let parameters = validated.parameters
    guard parameters.maxPoses > 0 else { return [] }
    // A window wider than the grid sees the whole grid; clamping keeps the loop bounds sane.
    let radius = min(parameters.localMaximumRadius, max(output.height, output.width))
    let squaredNmsRadius = parameters.nmsRadius * parameters.nmsRadius

    return output.withHeads { heads -> [Pose] in
        var queue = heads.partCandidateQueue(threshold: parameters.partScoreThreshold,
                                             localMaximumRadius: radius)
        var decoded: [DecodedKeypoints] = []
        var scores: [Double] = []
        decoded.reserveCapacity(min(parameters.maxPoses, 1024))
        var claimed = PoseNMS(width: Double(output.width * output.outputStride), height: Double(output.height * output.outputStride),
                              squaredRadius: squaredNmsRadius, radius: parameters.nmsRadius, maximumPoses: parameters.maxPoses)
        while decoded.count < parameters.maxPoses, let root = queue.dequeue() {
            let rootPosition = heads.offsetPosition(of: root.part, at: root.cell)
            if claimed.isClaimed(rootPosition, part: root.part) { continue }
            let pose = heads.decodePose(root: root, refineSteps: parameters.refineSteps)
            scores.append(claimed.instanceScore(pose))
            claimed.add(pose)
            decoded.append(pose)
        }
        return zip(decoded, scores).compactMap { pose, score in
            score >= parameters.minPoseScore ? Pose(decoded: pose, score: score) : nil
        }
    }
}

extension Pose {
    /// A public COCO-17 pose from the decoder's working representation.
    init(decoded: DecodedKeypoints, score: Double) {
        self.init(keypoints: BodyPart.allCases.map {
            Keypoint(position: decoded.positions[$0.rawValue], score: Double(decoded.scores[$0.rawValue]))
        }, score: score, keypointSet: .coco17)
    }
}
