/// Writes the JSON Lines record `posekit pose` writes for each image or frame (schema in README.md);
/// ``PoseJSONLinesDecoder`` reads it back:
///
///     {"source": "clip.y4m", "frame": 0, "width": 640, "height": 480, "time": 0,
///      "poses": [{"id": 1, "score": 0.9123, "box": [x0, y0, x1, y1],
///                 "keypoints": [{"part": "nose", "x": 312.41, "y": 88.07, "score": 0.9811}, ...]}]}
///
/// Numbers follow ``JSONText``'s one rule: coordinates at most two decimals (1/100 pixel), scores
/// four, `time` three, trailing zeros dropped (`"x": 312.4`, `"time": 0`); `time` is omitted for images and
/// for streams without a frame rate; `id` (the person's identity, ``PoseStream``) is present
/// for video only.
///
///     var json = JSONText()
///     PoseJSONLinesEncoder.append(source: "photo.ppm", frame: 0, width: 640, height: 480,
///                                 time: nil, poses: poses, to: &json)
///     FileHandle.standardOutput.write(Data(json.bytes))   // one line, newline included
public enum PoseJSONLinesEncoder {
    /// Appends one line (with its newline) for a frame: `poses` in image pixels, best first,
    /// each with its ``Pose/id`` on video (nil for a still image: no `"id"`).
    public static func append(
        source: String, frame: Int, width: Int, height: Int, time: Double?, poses: [Pose], to json: inout JSONText
    ) {
        json.raw("{\"source\": "); json.string(source)
        json.raw(", \"frame\": "); json.integer(frame)
        json.raw(", \"width\": "); json.integer(width)
        json.raw(", \"height\": "); json.integer(height)
        if let time { json.raw(", \"time\": "); json.number(time, decimals: JSONText.Decimals.seconds) }
        json.raw(", \"poses\": [")
        for (p, pose) in poses.enumerated() {
            if p > 0 { json.raw(", ") }
            json.raw("{")
            if let id = pose.id { json.raw("\"id\": "); json.integer(id); json.raw(", ") }
            json.raw("\"score\": "); json.number(pose.score, decimals: JSONText.Decimals.scores)
            let box = pose.boundingBox
            json.raw(", \"box\": [")
            json.number(box.minX, decimals: JSONText.Decimals.pixels); json.raw(", ")
            json.number(box.minY, decimals: JSONText.Decimals.pixels); json.raw(", ")
            json.number(box.maxX, decimals: JSONText.Decimals.pixels); json.raw(", ")
            json.number(box.maxY, decimals: JSONText.Decimals.pixels)
            json.raw("], \"keypoints\": [")
            for (k, keypoint) in pose.keypoints.enumerated() {
                if k > 0 { json.raw(", ") }
                json.raw("{\"part\": "); json.string(keypoint.part.name)
                json.raw(", \"x\": "); json.number(keypoint.position.x, decimals: JSONText.Decimals.pixels)
                json.raw(", \"y\": "); json.number(keypoint.position.y, decimals: JSONText.Decimals.pixels)
                json.raw(", \"score\": "); json.number(keypoint.score, decimals: JSONText.Decimals.scores)
                json.raw("}")
            }
            json.raw("]}")
        }
        json.raw("]}")
        json.newline()
    }

    /// Appends the line for `frame` (its `source`, or `"-"` when it has none).
    public static func append(_ frame: PoseFrame, to json: inout JSONText) {
        append(source: frame.source ?? "-", frame: frame.frame, width: frame.width, height: frame.height,
               time: frame.time, poses: frame.poses, to: &json)
    }
}
