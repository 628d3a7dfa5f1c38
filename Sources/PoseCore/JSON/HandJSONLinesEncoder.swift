/// Writes the JSON Lines record `posekit hands` writes for each image or frame: the header of a
/// pose line (``PoseJSONLinesEncoder``: `source`, `frame`, `width`, `height`, `coordinates`, `time`)
/// and `"hands"`, best first:
///
///     {"source": "photo.jpg", "frame": 0, "width": 640, "height": 480,
///      "hands": [{"handedness": "right", "score": 0.9987, "box": [x0, y0, x1, y1],
///                 "keypoints": [{"part": "wrist", "x": 312.41, "y": 88.07, "z": 0, "score": 0.9987}, ...],
///                 "world": [{"x": 0.0123, "y": 0.0841, "z": 0.0112}, ...]}]}
///
/// Each hand: `id` on video (its identity while tracked), `handedness` (the person's own `left` or
/// `right` hand, ``Hand/handedness``), `score` (the hand model's presence), `box` (around the 21
/// points), 21 `keypoints` named by ``KeypointSet/hand21`` in MediaPipe's order with `z` (depth
/// relative to the wrist in pixels of x; a fraction of the width in the normalized systems) and
/// `world` (metres, `{"x", "y", "z"}` per keypoint, origin near the hand's centre). Numbers as in pose lines.
public enum HandJSONLinesEncoder {
    /// Appends one line (with its newline) for a frame and its hands (image pixels).
    public static func append(
        source: String, frame: Int, width: Int, height: Int, time: Double?, hands: [Hand],
        coordinates requested: KeypointCoordinates = .pixels, to json: inout JSONText
    ) {
        let coordinates = PoseJSONLinesEncoder.appendHeader(source: source, frame: frame, width: width, height: height,
                                                            time: time, coordinates: requested, to: &json)
        json.raw(", \"hands\": [")
        for (h, hand) in hands.enumerated() {
            if h > 0 { json.raw(", ") }
            appendObject(hand, coordinates: coordinates, width: width, height: height, to: &json)
        }
        json.raw("]}")
        json.newline()
    }

    /// Writes one hand's object, braces included, in `coordinates` (already resolved for the frame's size).
    static func appendObject(_ hand: Hand, coordinates: KeypointCoordinates, width: Int, height: Int, to json: inout JSONText) {
        var pose = hand.pose
        json.raw("{")
        if let id = pose.id { json.raw("\"id\": "); json.integer(id); json.raw(", ") }
        if let person = hand.person { json.raw("\"person\": "); json.integer(person); json.raw(", ") }
        pose.id = nil
        json.raw("\"handedness\": "); json.string(hand.handedness.rawValue); json.raw(", ")
        json.raw("\"handedness_score\": "); json.number(hand.handednessScore, decimals: JSONText.Decimals.scores); json.raw(", ")
        PoseJSONLinesEncoder.appendFields(of: pose, coordinates: coordinates, width: width, height: height, to: &json)
        json.raw("}")
    }
}
