/// The score a person BlazePose reads for another body model ranks by (``BlazePoseRegionFromPose/scoring``), with
/// several people (`--max-poses N`): BlazePose's pose flag is near 1 for nearly every region read, so the other model's
/// faint poses of unlabelled people, once read, would rank with the real people (docs/blazepose.md, "Everyone in the
/// frame"). The person BlazePose's own detector finds always has the pose flag; a person reported from the other
/// model's pose (BlazePose read them in no region) always has that pose's score.
public enum BlazePosePersonScore: String, Sendable, CaseIterable {
    /// BlazePose's pose flag, as for the detector's person.
    case poseFlag = "flag"
    /// The pose flag times the other model's pose score.
    case flagTimesSource = "product"
    /// The other model's pose score.
    case source
    /// The pose flag times the mean visibility of the reading's COCO-17 landmarks (BlazePose's own confidence
    /// that the person's points are seen).
    case flagTimesVisibility = "visibility"

    /// The score of a person whose reading has `flag` and `visibility` (the mean visibility of its COCO-17
    /// landmarks) and whom the other model found with `source` (nil: the detector's person, who has the flag), in
    /// 0...1 when the flag is.
    public func score(flag: Float, visibility: Float, source: Float?) -> Float {
        guard let source, source.isFinite else { return flag }
        let other = min(max(source, 0), 1)
        switch self {
        case .poseFlag: return flag
        case .flagTimesSource: return flag * other
        case .source: return other
        case .flagTimesVisibility: return visibility.isFinite ? flag * min(max(visibility, 0), 1) : flag
        }
    }
}
