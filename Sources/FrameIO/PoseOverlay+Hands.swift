import PoseCore

extension PoseOverlay {
    /// Draws hands (their 21 points in the image's pixels) in the color of their side, the person's left
    /// hand in ``BodySidePalette/left`` and the right in ``BodySidePalette/right`` (the colors of a body's
    /// sides), and with `ids` each hand's label above its box: `#3 L` (`Hand.id`, side), `#3 L P1` when
    /// person 1 holds it (`Hand.person`), just the side on still images (`posekit hands --overlay`,
    /// `pose --hands --overlay`).
    public func drawHands(_ hands: [Hand], on image: inout RGBImage, ids: Bool = false) {
        let thickness = image.suggestedLineThickness
        let radius = thickness * 1.2
        for hand in hands {
            let pose = hand.pose.clamped(width: image.width, height: image.height)
            let color = hand.handedness == .left ? palette.left : palette.right
            for edge in pose.keypointSet.edges {
                let ka = pose.keypoints[edge.from], kb = pose.keypoints[edge.to]
                guard ka.score >= minimumKeypointScore, kb.score >= minimumKeypointScore else { continue }
                image.drawLine(x0: Float(ka.position.x), y0: Float(ka.position.y), x1: Float(kb.position.x), y1: Float(kb.position.y),
                               thickness: thickness, color: color)
            }
            for keypoint in pose.keypoints where keypoint.score >= minimumKeypointScore {
                image.fillCircle(centerX: Float(keypoint.position.x), centerY: Float(keypoint.position.y), radius: radius, color: color)
            }
            guard ids else { continue }
            let side = hand.handedness == .left ? "L" : "R"
            let text = (hand.id.map { "#\($0) " } ?? "") + side + (hand.person.map { " P\($0)" } ?? "")
            drawLabel(text, above: pose.boundingBox, color: color, on: &image)
        }
    }
}
