import PoseCore
/// Part-based non-maximum suppression between poses (PersonLab / TF.js).
///
/// Two detections of the same person share keypoints, so "is keypoint `k` of the new pose within
/// `r` pixels of keypoint `k` of an earlier pose" is the test for both rejecting root candidates
/// and discounting a new pose's score. Distances are in model-input pixels; "within" is `≤ r`.
enum PoseNMS {
    /// Whether `point`, a position of keypoint `part`, lies within the NMS radius of the same
    /// keypoint of any pose in `poses`.
    static func isClaimed(_ point: Point, part: Int, by poses: [DecodedKeypoints], squaredRadius: Double) -> Bool {
        for pose in poses where pose.positions[part].squaredDistance(to: point) <= squaredRadius {
            return true
        }
        return false
    }

    /// The pose's score: the sum of the scores of its keypoints that no earlier pose claims,
    /// divided by the number of keypoints (TF.js `getInstanceScore`). A duplicate of an earlier
    /// pose therefore scores near 0, a new person scores its mean keypoint score.
    static func instanceScore(_ pose: DecodedKeypoints, earlier poses: [DecodedKeypoints], squaredRadius: Double) -> Double {
        var sum = 0.0
        for part in 0..<PoseNetOutput.keypointCount
        where !isClaimed(pose.positions[part], part: part, by: poses, squaredRadius: squaredRadius) {
            sum += Double(pose.scores[part])
        }
        return sum / Double(PoseNetOutput.keypointCount)
    }
}
