import PoseCore

extension PoseOverlay {
    /// Draws each pose's identity (`#3`, ``/PoseCore/Pose/id``) just above the top-left corner of
    /// its confident keypoints' box, white on a dark band, kept inside the frame (`posekit pose
    /// --overlay-ids`). Poses without an id (still images) get no label.
    public func drawIDs(_ poses: [Pose], on image: inout RGBImage) {
        for pose in poses {
            guard let id = pose.id else { continue }
            drawLabel("#\(id)", above: pose.boundingBox(minimumScore: minimumKeypointScore), color: .white, on: &image)
        }
    }

    /// `text` just above the top-left corner of `box`, in `color` on a dark band, kept inside the frame
    /// (nothing for a box that is not finite).
    func drawLabel(_ text: String, above box: BoundingBox, color: RGBColor, on image: inout RGBImage) {
        guard box.minX.isFinite, box.minY.isFinite else { return }
        let scale = max(1, Int(image.suggestedLineThickness.rounded()))
        let (w, h) = BitmapFont.size(of: text, scale: scale)
        let x = min(max(Int(box.minX), scale), max(scale, image.width - w - scale))
        let y = min(max(Int(box.minY) - h - 3 * scale, scale), max(scale, image.height - h - scale))
        image.drawText(text, x: x, y: y, scale: scale, color: color, background: .black, backgroundOpacity: 0.6)
    }
}
