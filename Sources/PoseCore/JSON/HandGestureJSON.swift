/// One line of `posekit hands --gestures`: what a frame did to one hand's pinch gesture
/// (docs/cli.md, "Gesture events"). Written after the frame's line, for each hand whose state
/// changed or whose pinch path grew on that frame:
///
///     {"type": "gesture", "gesture": "pinch", "source": "clip.mp4", "frame": 41, "time": 1.367,
///      "hand": 1, "state": "pinched", "previous": "possiblePinch", "distance": 0.21,
///      "path": [[312.4, 200.1], [313, 201.5], [313.2, 202]], "stroke_end": false}
///
/// The path is in the frame line's coordinate system (`--coordinates`); a line not in pixels says
/// so (`"coordinates"`), as the frame's line does.
public enum HandGestureJSON {
    /// Appends the line (with its newline) to `json`. `hand`: the hand's id on video (or its
    /// index in the frame); `time` nil leaves the field out (images). The path's points (image
    /// pixels) are written in `coordinates` for a `width × height` frame; a frame of no size
    /// is written in pixels, as its frame line is.
    public static func write(_ update: HandGestureProcessor.Update, source: String, frame: Int, time: Double?, hand: Int,
                             coordinates requested: KeypointCoordinates = .pixels, width: Int = 0, height: Int = 0,
                             to json: inout JSONText) {
        let coordinates = width > 0 && height > 0 ? requested : .pixels
        json.raw("{\"type\": \"gesture\", \"gesture\": \"pinch\", \"source\": ")
        json.string(source)
        json.raw(", \"frame\": ")
        json.integer(frame)
        if coordinates != .pixels {
            json.raw(", \"coordinates\": ")
            json.string(coordinates.rawValue)
        }
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
        for (i, pixel) in update.pathPoints.enumerated() {
            let point = coordinates.fromPixels(pixel, width: width, height: height)
            json.raw(i == 0 ? "[" : ", [")
            json.number(point.x, decimals: coordinates.decimals)
            json.raw(", ")
            json.number(point.y, decimals: coordinates.decimals)
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
