import PoseCore

/// Draws pose wireframes on RGB frames: skeleton edges as lines, joints as filled circles,
/// colored by body side, sized relative to the frame (what `posekit pose --overlay` writes).
///
///     var image = frame.rgb()
///     PoseOverlay().draw(poses, on: &image)
public struct PoseOverlay: Sendable {
    /// Parts and edges below this score are not drawn (they are usually guesses).
    public var minimumKeypointScore = 0.3
    /// Colors of the left side, the right side and the center line.
    public var palette = BodySidePalette.standard

    public init(minimumKeypointScore: Double = 0.3, palette: BodySidePalette = .standard) {
        self.minimumKeypointScore = minimumKeypointScore
        self.palette = palette
    }

    /// Draws every pose on `image` (poses in its pixels).
    public func draw(_ poses: [Pose], on image: inout RGBImage) {
        let thickness = image.suggestedLineThickness
        let radius = thickness * 1.4
        for pose in poses {
            for (a, b) in Skeleton.drawnEdges {
                let ka = pose[a], kb = pose[b]
                guard ka.score >= minimumKeypointScore, kb.score >= minimumKeypointScore else { continue }
                // An edge takes the color of its side; torso cross-edges (left-right) are center-colored.
                let color = a.side == b.side ? color(a.side) : palette.center
                image.drawLine(x0: Float(ka.position.x), y0: Float(ka.position.y),
                               x1: Float(kb.position.x), y1: Float(kb.position.y), thickness: thickness, color: color)
            }
            for keypoint in pose.keypoints where keypoint.score >= minimumKeypointScore {
                image.fillCircle(centerX: Float(keypoint.position.x), centerY: Float(keypoint.position.y),
                                 radius: radius, color: color(keypoint.part.side))
            }
        }
    }

    private func color(_ side: BodySide) -> RGBColor {
        switch side {
        case .left: return palette.left
        case .right: return palette.right
        case .center: return palette.center
        }
    }
}
