import Foundation

/// Reads the `posekit pose` JSON Lines format, one frame per line:
///
/// ```json
/// {"source": "x", "frame": 0, "width": 640, "height": 480, "time": 0.0,
///  "poses": [{"score": 0.8, "box": [x0, y0, x1, y1],
///             "keypoints": [{"part": "nose", "x": 320.5, "y": 101.2, "score": 0.97}, ...]}]}
/// ```
///
/// Keypoints are matched by `part` name, in any order, to the smallest known ``KeypointSet``
/// holding every name given (COCO-17, BlazePose-33, Hand-21, Vision-18); all of the set's points
/// must be present. A keypoint's `visibility`, `presence` and `z` and a pose's `world` (metres,
/// one point per keypoint) and `landmarks_from` are kept when present, so a BlazePose or hand line reads back whole. Lines written in another
/// coordinate system (`"coordinates": "normalized"` or `"vision"`, which need `width` and
/// `height`) are converted back to image pixels. `box` and `source`
/// are optional; `id` (the person's identity, on video) is kept when every pose of the frame
/// has one, and must then be a positive integer, different for each pose; a missing `time` becomes `frame / defaultFPS`; a missing `frame` becomes the
/// line's index among frames. Blank lines are skipped. Anything else malformed throws
/// ``PoseDataError/malformedPoses(line:reason:)`` with a one-line reason, including a negative,
/// non-finite or implausibly late `time` (past ``maximumTime``) and a frame with more than
/// ``maximumPosesPerFrame`` poses. Putting frames in time order is ``PoseFrameOrder``'s job.
public struct PoseJSONLinesDecoder {
    /// Latest accepted `time`, in seconds (about 31 years). Later times are refused rather than
    /// passed on: at 1e18 s a double can no longer tell frames 1/30 s apart, and everything
    /// downstream that steps through time (resampling to the model's rate) relies on that.
    public static let maximumTime = 1e9
    /// Most poses accepted in one frame: the multi-person decoder's own limit (`--max-poses`).
    /// Tracking compares every pose with every track, so the cost of a frame grows with the
    /// square of its poses; a line with more is refused before any pose is built.
    public static let maximumPosesPerFrame = 1000

    /// Most JSON values (objects, arrays, members and elements) one line may hold: 400 per pose
    /// of a full frame (a 17-keypoint pose takes about 90, a 33-keypoint one with extra fields
    /// about 250). Checked in the same pass as ``maximumPosesPerFrame``, before decoding.
    public static let maximumValuesPerLine = maximumPosesPerFrame * 400

    /// Frame rate used to derive `time` when a line has none.
    public var defaultFPS: Double
    private var lineNumber = 0
    private var framesRead = 0

    public init(defaultFPS: Double = PoseStream.fallbackFrameRate) { self.defaultFPS = defaultFPS }

    /// Decodes one line; returns `nil` for a blank line.
    public mutating func decode(line: some StringProtocol) throws -> PoseFrame? {
        lineNumber += 1
        // JSON's whitespace trimmed on the bytes (Foundation's trimming walks a 16 MB line by
        // characters, for seconds).
        let utf8 = Array(line.utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        guard let start = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) }) else { return nil }
        let n = lineNumber
        func fail(_ reason: String) -> PoseDataError { .malformedPoses(line: n, reason: reason) }
        let bytes = Data(utf8[start...last])
        // Counted before the line is decoded: a line of a million poses must be refused in one pass
        // over its bytes, not after a JSON object tree of gigabytes is built for it.
        if let reason = bytes.withUnsafeBytes({ Self.sizeProblem(in: $0) }) { throw fail(reason) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])
        } catch {
            throw fail(Self.outOfRangeNumber(in: String(decoding: bytes, as: UTF8.self)).map { "the number \($0) is out of range (a JSON number must fit a double, at most about 1.8e308)" }
                       ?? "not valid JSON")
        }
        guard let dict = object as? [String: Any] else { throw fail("expected a JSON object") }
        // An event line among the frames' (`posekit view`'s output: gestures, predictions,
        // repetitions, the summary) is not a frame: skipped, as a blank line.
        if dict["type"] != nil && dict["poses"] == nil { return nil }
        let frame: Int
        if let f = dict["frame"] {
            guard let v = Self.number(f), v >= 0, v == v.rounded(), v < 1e12 else { throw fail("\"frame\" must be a non-negative integer") }
            frame = Int(v)
        } else {
            frame = framesRead
        }
        let time: Double
        if let t = dict["time"], !(t is NSNull) {
            guard let v = Self.number(t), v.isFinite else { throw fail("\"time\" of frame \(frame) must be a finite number") }
            guard v >= 0 else { throw fail("\"time\" of frame \(frame) is negative (\(v) s)") }
            guard v <= Self.maximumTime else {
                throw fail("\"time\" of frame \(frame) is \(v) s, later than the 1e9 s (about 31 years) accepted")
            }
            time = v
        } else {
            time = Double(frame) / defaultFPS
        }
        let width = Self.number(dict["width"] ?? 0).map { Int(max(0, min($0, 1e9))) } ?? 0
        let height = Self.number(dict["height"] ?? 0).map { Int(max(0, min($0, 1e9))) } ?? 0
        let coordinates = try Self.coordinates(of: dict, width: width, height: height, fail: fail)
        guard let rawPoses = dict["poses"] else { throw fail("missing \"poses\"") }
        guard let poseList = rawPoses as? [Any] else { throw fail("\"poses\" must be an array") }
        guard poseList.count <= Self.maximumPosesPerFrame else {
            throw fail("frame \(frame) has \(poseList.count) poses, more than the \(Self.maximumPosesPerFrame) accepted per frame")
        }
        var poses: [Pose] = []
        var ids: [Int] = []
        var unidentified = 0
        poses.reserveCapacity(poseList.count)
        for (p, rawPose) in poseList.enumerated() {
            guard let pd = rawPose as? [String: Any] else { throw fail("pose \(p) is not an object") }
            var id: Int?
            if let rawID = pd["id"] {
                guard let v = Self.number(rawID), v >= 1, v == v.rounded(), v < 1e12 else { throw fail("pose \(p): \"id\" must be a positive integer") }
                guard !ids.contains(Int(v)) else { throw fail("pose \(p): \"id\" \(Int(v)) is given to two poses of the frame") }
                ids.append(Int(v))
                id = Int(v)
            } else {
                unidentified += 1
            }
            guard let kps = pd["keypoints"] as? [Any] else { throw fail("pose \(p) has no \"keypoints\" array") }
            let (set, keypoints) = try Self.keypoints(of: kps, pose: p, in: coordinates, width: width, height: height, fail: fail)
            let score = Self.number(pd["score"]).flatMap { $0.isFinite ? $0 : nil }
                ?? keypoints.reduce(0) { $0 + $1.score } / Double(keypoints.count)
            var pose = Pose(keypoints: keypoints, score: score, id: id, keypointSet: set)
            pose.world = try Self.world(of: pd["world"], pose: p, count: keypoints.count, fail: fail)
            if let raw = pd["landmarks_from"] {
                guard let source = raw as? String, !source.isEmpty, source.utf8.count <= 64 else {
                    throw fail("pose \(p): \"landmarks_from\" must be a model's name")
                }
                pose.landmarksFrom = source
            }
            poses.append(pose)
        }
        guard ids.isEmpty || unidentified == 0 else { throw fail("some poses of the frame have an \"id\" and some do not") }
        framesRead += 1
        return PoseFrame(frame: frame, time: time, width: width, height: height, poses: poses,
                         source: dict["source"] as? String)
    }

    /// Why the line in `bytes` is too large to decode, or nil: more poses in its top-level
    /// `"poses"` array than ``maximumPosesPerFrame``, or more values than ``maximumValuesPerLine``.
    /// One pass, no allocation, strings skipped (escapes included); stops at the first excess.
    /// Malformed JSON is left to the decoder that follows.
    static func sizeProblem(in bytes: UnsafeRawBufferPointer) -> String? {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var depth = 0, values = 0
        var posesDepth: Int?, poses = 0        // the depth inside the top-level "poses" array, its elements
        var posesCounted = false, lastKeyIsPoses = false, sawElement = false
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case quote:
                let start = i + 1
                i += 1
                while i < bytes.count, bytes[i] != quote { i += bytes[i] == backslash ? 2 : 1 }
                // A key of the top-level object (depth 1) named "poses".
                lastKeyIsPoses = depth == 1 && i - start == 5 && i <= bytes.count
                    && bytes[start..<i].elementsEqual("poses".utf8)
                if depth == posesDepth { sawElement = true }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth == posesDepth { sawElement = true }
                depth += 1
                values += 1
                if byte == UInt8(ascii: "["), depth == 2, lastKeyIsPoses, !posesCounted, posesDepth == nil {
                    posesDepth = depth
                    sawElement = false
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if depth == posesDepth {
                    if sawElement { poses += 1 }
                    posesDepth = nil   // counted; a second "poses" key is the decoder's to judge
                    posesCounted = true
                    if poses > maximumPosesPerFrame {
                        return "the frame has \(poses) poses, more than the \(maximumPosesPerFrame) accepted per frame"
                    }
                }
                depth -= 1
            case UInt8(ascii: ","):
                values += 1
                if depth == posesDepth {
                    poses += 1
                    sawElement = false
                }
            case UInt8(ascii: ":"):
                break
            default:
                if depth == posesDepth, byte > 0x20 { sawElement = true }
            }
            // Past the pose limit the poses are still counted to the list's end (for the message),
            // without memory; the value limit then waits for that.
            if values > maximumValuesPerLine && poses <= maximumPosesPerFrame {
                return "the line holds more than \(maximumValuesPerLine) JSON values, more than a frame of \(maximumPosesPerFrame) poses needs"
            }
            i += 1
        }
        return poses > maximumPosesPerFrame ? "the frame has at least \(poses) poses, more than the \(maximumPosesPerFrame) accepted per frame" : nil
    }

    /// The first number literal in `text` whose exponent no double can hold (`1e400`), which
    /// JSONSerialization rejects as invalid JSON without saying why; nil when there is none.
    static func outOfRangeNumber(in text: String) -> String? {
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E"), i > 0,
                  (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i - 1]) else { i += 1; continue }
            var start = i - 1
            while start > 0, "0123456789.-+".utf8.contains(bytes[start - 1]) { start -= 1 }
            var end = i + 1
            while end < bytes.count, "0123456789+-".utf8.contains(bytes[end]) { end += 1 }
            let literal = String(decoding: bytes[start..<end], as: UTF8.self)
            if let value = Double(literal), !value.isFinite || (value == 0 && literal.contains(where: { "123456789".contains($0) })) {
                return literal
            }
            i = end
        }
        return nil
    }

    /// JSON numbers arrive as NSNumber (or Double/Int); JSON booleans are rejected.
    static func number(_ any: Any?) -> Double? {
        guard let any else { return nil }
        if type(of: any) == Bool.self { return nil }
        if let n = any as? NSNumber, String(cString: n.objCType) == "c" { return nil }
        if let n = any as? NSNumber { return n.doubleValue }
        if let d = any as? Double { return d }
        if let i = any as? Int { return Double(i) }
        return nil
    }

    /// Decodes a whole document (for files and tests).
    public static func decodeAll(_ text: String, defaultFPS: Double = PoseStream.fallbackFrameRate) throws -> [PoseFrame] {
        var decoder = PoseJSONLinesDecoder(defaultFPS: defaultFPS)
        var frames: [PoseFrame] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let f = try decoder.decode(line: line) { frames.append(f) }
        }
        return frames
    }
}
