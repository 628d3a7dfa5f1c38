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
/// points; `landmarks_from` names the model whose points a pose carries when it is not the pose's own
/// (``Pose/landmarksFrom``). Keypoints are named by their pose's ``KeypointSet`` (`"part"`), in the set's
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
        append(source: source, frame: frame, width: width, height: height, time: time, poses: poses, hands: nil,
               coordinates: requested, to: &json)
    }

    /// ``append(source:frame:width:height:time:poses:coordinates:to:)`` with each person's hands
    /// (`posekit pose --hands`): `hands[i]` is written as `"hands"` in pose `i`'s object (an empty
    /// list when that person has none), each hand as ``HandJSONLinesEncoder`` writes it, and the
    /// hands no person was given (`unassignedHands`) as `"hands"` of the frame, after `"poses"`.
    /// nil writes no `"hands"` field at all (the bytes of a line without hands).
    public static func append(
        source: String, frame: Int, width: Int, height: Int, time: Double?, poses: [Pose], hands: [[Hand]]?,
        unassignedHands: [Hand] = [], coordinates requested: KeypointCoordinates = .pixels, to json: inout JSONText
    ) {
        precondition(hands.map { $0.count == poses.count } ?? true, "one list of hands per pose")
        let coordinates = appendHeader(source: source, frame: frame, width: width, height: height, time: time,
                                       coordinates: requested, to: &json)
        json.raw(", \"poses\": [")
        for (p, pose) in poses.enumerated() {
            if p > 0 { json.raw(", ") }
            json.raw("{")
            appendFields(of: pose, coordinates: coordinates, width: width, height: height, to: &json)
            if let hands {
                json.raw(", \"hands\": [")
                for (h, hand) in hands[p].enumerated() {
                    if h > 0 { json.raw(", ") }
                    HandJSONLinesEncoder.appendObject(hand, coordinates: coordinates, width: width, height: height, to: &json)
                }
                json.raw("]")
            }
            json.raw("}")
        }
        json.raw("]")
        if hands != nil {
            json.raw(", \"hands\": [")
            for (h, hand) in unassignedHands.enumerated() {
                if h > 0 { json.raw(", ") }
                HandJSONLinesEncoder.appendObject(hand, coordinates: coordinates, width: width, height: height, to: &json)
            }
            json.raw("]")
        }
        json.raw("}")
        json.newline()
    }

    /// Writes `{"source": ..., "frame": ..., "width": ..., "height": ...[, "coordinates": ...][, "time": ...]`
    /// (the object left open) and returns the coordinates the line uses: pixels when the size is unknown.
    static func appendHeader(source: String, frame: Int, width: Int, height: Int, time: Double?,
                             coordinates requested: KeypointCoordinates, to json: inout JSONText) -> KeypointCoordinates {
        let coordinates = width > 0 && height > 0 ? requested : .pixels
        json.raw("{\"source\": "); json.string(source)
        json.raw(", \"frame\": "); json.integer(frame)
        json.raw(", \"width\": "); json.integer(width)
        json.raw(", \"height\": "); json.integer(height)
        if coordinates != .pixels { json.raw(", \"coordinates\": "); json.string(coordinates.rawValue) }
        if let time { json.raw(", \"time\": "); json.number(time, decimals: JSONText.Decimals.seconds) }
        return coordinates
    }

    /// Writes a pose's fields without the braces: `"id"` (when tracked), `"score"`, `"landmarks_from"` (when
    /// the points are another model's, ``Pose/landmarksFrom``), `"box"`,
    /// `"keypoints"` (each with `"z"`, `"visibility"` and `"presence"` when the model gives them)
    /// and `"world"` (metres, `{"x", "y", "z"}` per keypoint, when the model gives them).
    static func appendFields(of pose: Pose, coordinates: KeypointCoordinates, width: Int, height: Int, to json: inout JSONText) {
        let decimals = coordinates.decimals
        if let id = pose.id { json.raw("\"id\": "); json.integer(id); json.raw(", ") }
        json.raw("\"score\": "); json.number(pose.score, decimals: JSONText.Decimals.scores)
        if let source = pose.landmarksFrom { json.raw(", \"landmarks_from\": "); json.string(source) }
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
                json.raw(", \"z\": "); json.number(coordinates.depthFromPixels(z, width: width), decimals: decimals)
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
    }

    /// Appends the line for `frame` (its `source`, or `"-"` when it has none).
    public static func append(_ frame: PoseFrame, coordinates: KeypointCoordinates = .pixels, to json: inout JSONText) {
        append(source: frame.source ?? "-", frame: frame.frame, width: frame.width, height: frame.height,
               time: frame.time, poses: frame.poses, coordinates: coordinates, to: &json)
    }
}
