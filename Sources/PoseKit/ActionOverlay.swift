/// Draws what `posekit actions --overlay` shows on a frame: the followed person's pose in color
/// (the others faint) and a caption with the label, its confidence and the repetitions, and under it
/// the last repetition's posture cue.
///
///     var image = detected.frame.rgb()
///     ActionOverlay().draw(engine.status, poses: detected.poses, on: &image)
public struct ActionOverlay: Sendable {
    /// An overlay in `posekit actions`' style (colored skeleton, white caption on a dark band
    /// scaled to the image).
    public init() {}

    /// Draws on `image` every pose of the frame (the followed person's from `status`) and the caption.
    public func draw(_ status: ActionStatus, poses: [Pose], on image: inout RGBImage) {
        var others = PoseOverlay()
        others.palette = BodySidePalette(left: RGBColor(150, 150, 150), right: RGBColor(110, 110, 110), center: RGBColor(130, 130, 130))
        others.draw(poses.filter { $0 != status.pose }, on: &image)
        if let pose = status.pose { PoseOverlay().draw([pose], on: &image) }
        let scale = max(2, min(image.width, image.height) / 180)
        var caption = status.label.map { "\($0.name)  \(Int((status.confidence * 100).rounded()))%" } ?? "waiting for 2 s of movement"
        if status.label?.isClass == true, status.countsRepetitions {
            caption += "  reps \(status.repetitions)"
        }
        var lines = [caption]
        if let last = status.lastRepetition { lines.append("#\(last.count): \(last.cue.caption)") }
        // Fitted to the width: a portrait frame gets a smaller or wrapped caption, never a cut one.
        image.draw(Caption(lines), preferredScale: scale)
    }
}

