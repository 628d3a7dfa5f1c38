import PoseCore

/// Vision's 18 body joints in the order of `VNHumanBodyPoseObservation.keypointsMultiArray()`,
/// the last axis of a Create ML action classifier's `[T, 3, 18]` input.
///
/// Seventeen are COCO keypoints PoseKit detects; the neck is not, and is the shoulders' midpoint
/// (``VisionPoseRow``).
public enum VisionJoint: Int, CaseIterable, Sendable {
    case nose, neck, rightShoulder, rightElbow, rightWrist, leftShoulder, leftElbow, leftWrist
    case rightHip, rightKnee, rightAnkle, leftHip, leftKnee, leftAnkle, rightEye, leftEye, rightEar, leftEar

    /// The PoseKit body part this joint is (nil for the neck).
    public var bodyPart: BodyPart? {
        switch self {
        case .nose: return .nose
        case .neck: return nil
        case .rightShoulder: return .rightShoulder
        case .rightElbow: return .rightElbow
        case .rightWrist: return .rightWrist
        case .leftShoulder: return .leftShoulder
        case .leftElbow: return .leftElbow
        case .leftWrist: return .leftWrist
        case .rightHip: return .rightHip
        case .rightKnee: return .rightKnee
        case .rightAnkle: return .rightAnkle
        case .leftHip: return .leftHip
        case .leftKnee: return .leftKnee
        case .leftAnkle: return .leftAnkle
        case .rightEye: return .rightEye
        case .leftEye: return .leftEye
        case .rightEar: return .rightEar
        case .leftEar: return .leftEar
        }
    }
}

/// One frame of a Create ML action classifier's input: `[3, 18]` values, row 0 the x of every
/// joint, row 1 the y, row 2 the confidence (``VisionJoint`` order).
///
/// Coordinates are Vision's: normalized to [0, 1] with the origin at the **lower left**,
/// `x = px / width`, `y = 1 − py / height`, where `px, py` are PoseKit's image pixels. The
/// confidence is the keypoint score. The neck is the shoulders' midpoint with the smaller of
/// their scores. No person: all zeros, as Apple's sample feeds it.
public enum VisionPoseRow {
    /// Values per frame: 3 × 18.
    public static let count = 3 * VisionJoint.allCases.count

    /// The `[3, 18]` values of `pose` in a `width × height` image (nil pose: zeros).
    public static func values(for pose: Pose?, width: Int, height: Int) -> [Float] {
        let joints = VisionJoint.allCases.count
        var row = [Float](repeating: 0, count: count)
        guard let pose, width > 0, height > 0 else { return row }
        var byPart: [BodyPart: Keypoint] = [:]
        for keypoint in pose.keypoints { byPart[keypoint.part] = keypoint }
        for joint in VisionJoint.allCases {
            let point: (x: Double, y: Double, score: Double)
            if let part = joint.bodyPart {
                guard let k = byPart[part] else { continue }  // a joint not found stays (0, 0, 0), as Vision writes it
                point = (k.position.x, k.position.y, k.score)
            } else {
                guard let l = byPart[.leftShoulder], let r = byPart[.rightShoulder] else { continue }
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
