import PoseCore

/// Draws the pinch gesture as the sample "Detect Body and Hand Pose with Vision" does: the path
/// of the pinch (`PinchPath`) as lines, and the thumb and index tips as dots colored
/// by the gesture's state: orange while undecided, green pinched, red apart (what
/// `posekit hands --gestures --overlay` writes).
public struct PinchPathOverlay: Sendable {
    /// The path's color.
    public var pathColor = RGBColor(255, 255, 255)

    public init() {}

    /// Draws `path` and, when given, the tips of one hand in `state` on `image` (its pixels).
    public func draw(_ path: PinchPath, tips: (thumb: Point, index: Point)?, state: HandGestureProcessor.State,
                     on image: inout RGBImage) {
        let thickness = image.suggestedLineThickness
        for stroke in path.strokes {
            guard let first = stroke.first else { continue }
            var previous = first
            if stroke.count == 1 {
                image.fillCircle(centerX: Float(first.x), centerY: Float(first.y), radius: thickness / 2, color: pathColor)
            }
            for point in stroke.dropFirst() {
                image.drawLine(x0: Float(previous.x), y0: Float(previous.y), x1: Float(point.x), y1: Float(point.y),
                               thickness: thickness, color: pathColor)
                previous = point
            }
        }
        guard let tips else { return }
        let color: RGBColor
        switch state {
        case .possiblePinch, .possibleApart: color = .orange
        case .pinched: color = .green
        case .apart, .unknown: color = .red
        }
        for tip in [tips.thumb, tips.index] {
            image.fillCircle(centerX: Float(tip.x), centerY: Float(tip.y), radius: thickness * 2, color: color)
        }
    }
}
