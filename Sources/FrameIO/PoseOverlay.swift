import PoseCore

/// Draws pose wireframes on RGB frames: skeleton edges as lines, joints as filled circles,
/// colored by body side, sized relative to the frame (what `posekit pose --overlay` writes).
/// Each pose is drawn with its own ``/PoseCore/KeypointSet``'s skeleton (COCO-17: TF.js
/// PoseNet's; BlazePose and hands: MediaPipe's), its keypoints clamped into the image first
/// (a point the model puts outside the frame is drawn on its border).
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
        for unclamped in poses {
            let pose = unclamped.clamped(width: image.width, height: image.height)
            let sides = pose.keypointSet.sides
            for edge in pose.keypointSet.edges {
                let ka = pose.keypoints[edge.from], kb = pose.keypoints[edge.to]
                guard ka.score >= minimumKeypointScore, kb.score >= minimumKeypointScore else { continue }
                // An edge takes the color of its side; torso cross-edges (left-right) are center-colored.
                let color = sides[edge.from] == sides[edge.to] ? color(sides[edge.from]) : palette.center
                image.drawLine(x0: Float(ka.position.x), y0: Float(ka.position.y),
                               x1: Float(kb.position.x), y1: Float(kb.position.y), thickness: thickness, color: color)
            }
            for (k, keypoint) in pose.keypoints.enumerated() where keypoint.score >= minimumKeypointScore {
                image.fillCircle(centerX: Float(keypoint.position.x), centerY: Float(keypoint.position.y),
                                 radius: radius, color: color(sides[k]))
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
