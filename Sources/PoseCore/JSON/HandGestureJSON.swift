/// One line of `posekit hands --gestures`: what a frame did to one hand's pinch gesture
/// (docs/cli.md, "Gesture events"). Written after the frame's line, for each hand whose state
/// changed or whose pinch path grew on that frame:
///
///     {"type": "gesture", "gesture": "pinch", "source": "clip.mp4", "frame": 41, "time": 1.367,
///      "hand": 1, "state": "pinched", "previous": "possiblePinch", "distance": 0.21,
///      "path": [[312.4, 200.1], [313, 201.5], [313.2, 202]], "stroke_end": false}
public enum HandGestureJSON {
    /// Appends the line (with its newline) to `json`. `hand`: the hand's id on video (or its
    /// index in the frame); `time` nil leaves the field out (images).
    public static func write(_ update: HandGestureProcessor.Update, source: String, frame: Int, time: Double?, hand: Int,
                             to json: inout JSONText) {
        json.raw("{\"type\": \"gesture\", \"gesture\": \"pinch\", \"source\": ")
        json.string(source)
        json.raw(", \"frame\": ")
        json.integer(frame)
        if let time {
            json.raw(", \"time\": ")
            json.number(time, decimals: JSONText.Decimals.seconds)
        }
        json.raw(", \"hand\": ")
        json.integer(hand)
        json.raw(", \"state\": ")
        json.string(update.state.rawValue)
        json.raw(", \"previous\": ")
        json.string(update.previousState.rawValue)
        json.raw(", \"distance\": ")
        if let distance = update.distance { json.number(distance, decimals: JSONText.Decimals.proportions) } else { json.raw("null") }
        json.raw(", \"path\": [")
        for (i, point) in update.pathPoints.enumerated() {
            json.raw(i == 0 ? "[" : ", [")
            json.number(point.x, decimals: JSONText.Decimals.pixels)
            json.raw(", ")
            json.number(point.y, decimals: JSONText.Decimals.pixels)
            json.raw("]")
        }
        json.raw("], \"stroke_end\": ")
        json.raw(update.strokeEnded ? "true" : "false")
        json.raw("}")
        json.newline()
    }

    /// Whether the update is worth a line: the state changed, the path grew or a stroke ended.
    public static func isEvent(_ update: HandGestureProcessor.Update) -> Bool {
        update.stateChanged || !update.pathPoints.isEmpty || update.strokeEnded
    }
}
