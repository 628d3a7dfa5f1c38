import PoseNet
import PoseCore
/// One detected person submitted for evaluation: pycocotools' keypoint result
/// `{"image_id", "keypoints", "score"}`, positions in original image pixels.
public struct KeypointDetection: Sendable, Equatable {
    public var imageID: Int
    /// 17 positions in ``BodyPart`` order.
    public var keypoints: [Point]
    /// Ranking score (the pose score).
    public var score: Double

    public init(imageID: Int, keypoints: [Point], score: Double) {
        self.imageID = imageID; self.keypoints = keypoints; self.score = score
    }

    /// A pose already mapped to original image pixels (see ``Pose/mapped(by:)``).
    public init(imageID: Int, pose: Pose) {
        self.init(imageID: imageID, keypoints: pose.keypoints.map(\.position), score: pose.score)
    }

    /// Area of the keypoints' bounding box, as pycocotools `loadRes` computes it for keypoint
    /// results; decides which area range an unmatched detection falls in.
    var area: Double {
        let xs = keypoints.map(\.x), ys = keypoints.map(\.y)
        return (xs.max()! - xs.min()!) * (ys.max()! - ys.min()!)
    }
}
