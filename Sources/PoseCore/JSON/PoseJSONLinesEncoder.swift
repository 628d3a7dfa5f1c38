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
/// for video only; a keypoint's `z` (depth in pixels of x, MediaPipe's), `visibility` and
/// `presence` are present when the model gives them (BlazePose; never PoseNet), and a pose's
/// `world` (one `{"x", "y", "z"}` in metres per keypoint, in the set's order) when it has world
/// points. Keypoints are named by their pose's ``KeypointSet`` (`"part"`), in the set's
/// order, and lie where the model puts them, also outside the image.
///
/// With `coordinates` other than ``KeypointCoordinates/pixels`` (and a known size), `x`, `y` and
/// `box` are written in that system with 6 decimals (`z` as a fraction of the width), and the line says so after `height`:
/// `"coordinates": "normalized"` or `"vision"` (the reader converts back to pixels). Pixel lines
/// have no `"coordinates"` field, as before; a frame of unknown size (0) is written in pixels.
///
///     var json = JSONText()
///     PoseJSONLinesEncoder.append(source: "photo.ppm", frame: 0, width: 640, height: 480,
///                                 time: nil, poses: poses, to: &json)
///     FileHandle.standardOutput.write(Data(json.bytes))   // one line, newline included
public enum PoseJSONLinesEncoder {
    /// Appends one line (with its newline) for a frame: `poses` in image pixels, best first,
    /// each with its ``Pose/id`` on video (nil for a still image: no `"id"`).
    public static func append(
        source: String, frame: Int, width: Int, height: Int, time: Double?, poses: [Pose],
        coordinates requested: KeypointCoordinates = .pixels, to json: inout JSONText
    ) {
        let coordinates = width > 0 && height > 0 ? requested : .pixels
        let decimals = coordinates.decimals
        json.raw("{\"source\": "); json.string(source)
        json.raw(", \"frame\": "); json.integer(frame)
        json.raw(", \"width\": "); json.integer(width)
        json.raw(", \"height\": "); json.integer(height)
        if coordinates != .pixels { json.raw(", \"coordinates\": "); json.string(coordinates.rawValue) }
        if let time { json.raw(", \"time\": "); json.number(time, decimals: JSONText.Decimals.seconds) }
        json.raw(", \"poses\": [")
        for (p, pose) in poses.enumerated() {
            if p > 0 { json.raw(", ") }
            json.raw("{")
            if let id = pose.id { json.raw("\"id\": "); json.integer(id); json.raw(", ") }
            json.raw("\"score\": "); json.number(pose.score, decimals: JSONText.Decimals.scores)
            let box = coordinates.box(pose.boundingBox, width: width, height: height)
            json.raw(", \"box\": [")
            json.number(box.minX, decimals: decimals); json.raw(", ")
            json.number(box.minY, decimals: decimals); json.raw(", ")
            json.number(box.maxX, decimals: decimals); json.raw(", ")
            json.number(box.maxY, decimals: decimals)
            json.raw("], \"keypoints\": [")
            for (k, keypoint) in pose.keypoints.enumerated() {
                if k > 0 { json.raw(", ") }
                let position = coordinates.fromPixels(keypoint.position, width: width, height: height)
                json.raw("{\"part\": "); json.string(pose.keypointSet.names[k])
                json.raw(", \"x\": "); json.number(position.x, decimals: decimals)
                json.raw(", \"y\": "); json.number(position.y, decimals: decimals)
                if let z = keypoint.z {
                    // Pixels of x, or (normalized and vision lines) a fraction of the width, as MediaPipe's z.
                    json.raw(", \"z\": "); json.number(coordinates == .pixels ? z : z / Double(width), decimals: decimals)
                }
                json.raw(", \"score\": "); json.number(keypoint.score, decimals: JSONText.Decimals.scores)
                if let visibility = keypoint.visibility {
                    json.raw(", \"visibility\": "); json.number(visibility, decimals: JSONText.Decimals.scores)
                }
                if let presence = keypoint.presence {
                    json.raw(", \"presence\": "); json.number(presence, decimals: JSONText.Decimals.scores)
                }
                json.raw("}")
            }
            json.raw("]")
            if let world = pose.world {
                json.raw(", \"world\": [")
                for (w, point) in world.enumerated() {
                    if w > 0 { json.raw(", ") }
                    json.raw("{\"x\": "); json.number(point.x, decimals: JSONText.Decimals.metres)
                    json.raw(", \"y\": "); json.number(point.y, decimals: JSONText.Decimals.metres)
                    json.raw(", \"z\": "); json.number(point.z, decimals: JSONText.Decimals.metres)
                    json.raw("}")
                }
                json.raw("]")
            }
            json.raw("}")
        }
        json.raw("]}")
        json.newline()
    }

    /// Appends the line for `frame` (its `source`, or `"-"` when it has none).
    public static func append(_ frame: PoseFrame, coordinates: KeypointCoordinates = .pixels, to json: inout JSONText) {
        append(source: frame.source ?? "-", frame: frame.frame, width: frame.width, height: frame.height,
               time: frame.time, poses: frame.poses, coordinates: coordinates, to: &json)
    }
}
