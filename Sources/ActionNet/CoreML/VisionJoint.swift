import PoseCore

/// Vision's 18 body joints in the order of `VNHumanBodyPoseObservation.keypointsMultiArray()`,
/// the last axis of a Create ML action classifier's `[T, 3, 18]` input.
///
/// Seventeen are COCO keypoints PoseKit detects; the neck is not, and is the shoulders' midpoint
/// (``VisionPoseRow``). The same table as data: PoseCore's `KeypointSet.vision18` (names,
/// skeleton, COCO-17 map), which ``bodyPart`` reads.
public enum VisionJoint: Int, CaseIterable, Sendable {
    case nose, neck, rightShoulder, rightElbow, rightWrist, leftShoulder, leftElbow, leftWrist
    case rightHip, rightKnee, rightAnkle, leftHip, leftKnee, leftAnkle, rightEye, leftEye, rightEar, leftEar

    /// The PoseKit body part this joint is (nil for the neck), from `KeypointSet.vision18`'s
    /// COCO-17 map.
    public var bodyPart: BodyPart? { VisionJoint.bodyParts[rawValue] }

    /// ``bodyPart`` of every joint, by raw value.
    static let bodyParts: [BodyPart?] = (0..<KeypointSet.vision18.count).map { joint in
        KeypointSet.vision18.cocoIndices.firstIndex(of: joint).flatMap { BodyPart(rawValue: $0) }
    }
}

/// One frame of a Create ML action classifier's input: `[3, 18]` values, row 0 the x of every
/// joint, row 1 the y, row 2 the confidence (``VisionJoint`` order).
///
/// Coordinates are Vision's: normalized to [0, 1] with the origin at the **lower left**,
/// `x = px / width`, `y = 1 − py / height`, where `px, py` are PoseKit's image pixels. The
/// confidence is the keypoint score. Joints are read through the pose's COCO-17 map (any body
/// ``/PoseCore/KeypointSet``), each clamped into the image first, as Vision's points always are.
/// The neck is the pose's own when its set has one (Vision-18), else the shoulders' midpoint
/// with the smaller of their scores. No person, or a pose without a body (a hand): all zeros,
/// as Apple's sample feeds it.
public enum VisionPoseRow {
    /// Values per frame: 3 × 18.
    public static let count = 3 * VisionJoint.allCases.count

    /// The `[3, 18]` values of `pose` in a `width × height` image (nil pose: zeros).
    public static func values(for pose: Pose?, width: Int, height: Int) -> [Float] {
        let joints = VisionJoint.allCases.count
        var row = [Float](repeating: 0, count: count)
        guard let unclamped = pose, width > 0, height > 0 else { return row }
        let pose = unclamped.clamped(width: width, height: height)
        for joint in VisionJoint.allCases {
            let point: (x: Double, y: Double, score: Double)
            if let part = joint.bodyPart {
                guard let k = pose.keypoint(part) else { continue }  // a joint not found stays (0, 0, 0), as Vision writes it
                point = (k.position.x, k.position.y, k.score)
            } else if let neck = pose.keypoint(named: "neck") {
                point = (neck.position.x, neck.position.y, neck.score)
            } else {
                guard let l = pose.keypoint(.leftShoulder), let r = pose.keypoint(.rightShoulder) else { continue }
                point = ((l.position.x + r.position.x) / 2, (l.position.y + r.position.y) / 2, min(l.score, r.score))
            }
            row[joint.rawValue] = Float(point.x / Double(width))
            row[joints + joint.rawValue] = Float(1 - point.y / Double(height))
            row[2 * joints + joint.rawValue] = Float(point.score)
        }
        return row
    }
}

extension PoseWindow {
    /// The window as a Create ML action classifier's input: `[length, 3, 18]` floats, one
    /// ``VisionPoseRow`` per frame (a frame without a person is all zeros, as Apple's sample
    /// feeds it), for poses in a `width × height` image.
    public func visionInput(width: Int, height: Int) -> [Float] {
        frames.flatMap { VisionPoseRow.values(for: $0.pose, width: width, height: height) }
    }
}
