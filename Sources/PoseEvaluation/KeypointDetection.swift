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

    /// A pose already mapped to original image pixels (see ``Pose/mapped(by:)``), as its COCO-17
    /// keypoints (through its set's map; nil for a set without them, a hand), clamped into the
    /// `imageWidth × imageHeight` image when its size is given: COCO's labels lie on the image,
    /// and a point moved onto the image never gets farther from one.
    public init?(imageID: Int, pose: Pose, imageWidth: Int = 0, imageHeight: Int = 0) {
        guard let coco = pose.cocoSeventeen?.clamped(width: imageWidth, height: imageHeight) else { return nil }
        self.init(imageID: imageID, keypoints: coco.keypoints.map(\.position), score: coco.score)
    }

    /// Area of the keypoints' bounding box, as pycocotools `loadRes` computes it for keypoint
    /// results; decides which area range an unmatched detection falls in.
    var area: Double {
        let xs = keypoints.map(\.x), ys = keypoints.map(\.y)
        return (xs.max()! - xs.min()!) * (ys.max()! - ys.min()!)
    }
}
