import FrameIO
import PoseCore

/// BlazePose's reading of a person another body model found too, moved toward that model's points
/// (``BlazePoseRegionFromPose/blend``): on `media/images` the two models' points err apart, and their mean lies
/// closer to the labels than either (docs/blazepose.md, "Everyone in the frame").
extension BlazePosePersonSeed {
    /// `landmarks` (a BlazePose reading, normalized to an image of `size`) with each COCO-17 landmark the other model
    /// is confident of (``points``) at `(1 − weight)·BlazePose's + weight·the other model's`, and each landmark COCO-17
    /// lacks moved as the point it hangs off (``absentLandmarkAnchors``) moved, so a hand's fingers follow its wrist;
    /// depth, visibility and presence are BlazePose's. `landmarks` unchanged when `weight` is 0 or not in 0...1, when
    /// it is not 33 landmarks, or for a non-finite point.
    public func blended(_ landmarks: [Landmark], imageSize size: ImageSize, weight: Float) -> [Landmark] {
        guard weight > 0, weight <= 1, landmarks.count == KeypointSet.blazePose33.count, size.width > 0, size.height > 0 else { return landmarks }
        let scale = SIMD2(Float(size.width), Float(size.height))
        var moved = landmarks, shift = [SIMD2<Float>](repeating: .zero, count: landmarks.count)
        for (landmark, point) in points where landmark < landmarks.count && point.x.isFinite && point.y.isFinite {
            let own = SIMD2(landmarks[landmark].x, landmarks[landmark].y) * scale
            guard own.x.isFinite, own.y.isFinite else { continue }
            shift[landmark] = (point - own) * weight / scale
        }
        for (landmark, anchor) in Self.absentLandmarkAnchors { shift[landmark] = shift[anchor] }
        for index in moved.indices {
            moved[index].x += shift[index].x
            moved[index].y += shift[index].y
        }
        return moved
    }
}
