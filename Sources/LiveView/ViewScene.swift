import PoseKit

/// The JSON messages `posekit view` gives its page (ViewServer's `ViewPage` documents them):
/// the hello (keypoint sets, colours, settings) and each frame's scene (the frame's JSON line in
/// pixels, the pinch paths, the action, the summary so far, the pipeline's rate).
public enum ViewScene {
    /// The least keypoint score drawn: the overlays' (`PoseOverlay`).
    public static let minimumKeypointScore = PoseOverlay().minimumKeypointScore

    /// The first message: the keypoint sets the page may meet, the colours (the overlays' palette;
    /// a hand in its side's colour), what runs.
    public static func hello(source: String, hands: Bool, gestures: Bool, actions: Bool) -> String {
        var json = JSONText(capacity: 8192)
        json.raw("{\"type\": \"hello\", \"source\": ")
        json.string(source)
        json.raw(", \"min_score\": ")
        json.number(minimumKeypointScore, decimals: JSONText.Decimals.scores)
        json.raw(", \"hands\": "); json.raw(hands ? "true" : "false")
        json.raw(", \"gestures\": "); json.raw(gestures ? "true" : "false")
        json.raw(", \"actions\": "); json.raw(actions ? "true" : "false")
        json.raw(", \"sets\": {")
        for (index, set) in [KeypointSet.coco17, .blazePose33, .hand21].enumerated() {
            if index > 0 { json.raw(", ") }
            json.string(set.identifier)
            json.raw(": {\"names\": [")
            for (i, name) in set.names.enumerated() { if i > 0 { json.raw(", ") }; json.string(name) }
            json.raw("], \"edges\": [")
            for (i, edge) in set.edges.enumerated() {
                if i > 0 { json.raw(", ") }
                json.raw("["); json.integer(edge.from); json.raw(", "); json.integer(edge.to); json.raw("]")
            }
            json.raw("], \"sides\": [")
            for (i, side) in set.sides.enumerated() {
                if i > 0 { json.raw(", ") }
                switch side {
                case .left: json.raw("\"left\"")
                case .right: json.raw("\"right\"")
                case .center: json.raw("\"center\"")
                }
            }
            json.raw("]}")
        }
        let body = BodySidePalette.standard
        let colours: [(String, RGBColor)] = [
            ("left", body.left), ("right", body.right), ("center", body.center),
            ("hand_left", handLeft), ("hand_right", handRight),
            ("pinch_path", PinchPathOverlay().pathColor), ("tip_pinched", .green), ("tip_undecided", .orange), ("tip_apart", .red),
        ]
        json.raw("}, \"colours\": {")
        for (i, (name, colour)) in colours.enumerated() {
            if i > 0 { json.raw(", ") }
            json.string(name)
            json.raw(": ["); json.integer(Int(colour.r)); json.raw(", "); json.integer(Int(colour.g)); json.raw(", ")
            json.integer(Int(colour.b)); json.raw("]")
        }
        json.raw("}}")
        return json.text
    }

    /// A left hand: magenta; a right hand: green (apart from the body's orange, blue and yellow).
    public static let handLeft = RGBColor(230, 60, 230)
    public static let handRight = RGBColor(60, 220, 90)

    /// One frame's scene: `poseLine` (the frame's JSON line in pixels, without its newline), the
    /// pinch paths and tips, the action and summary so far, the pipeline's rate.
    public static func scene(poseLine: [UInt8], gestures: PinchGestures?, engine: ActionEngine?,
                      pipelineRate: Double, dropped: Int) -> String {
        var text = "{\"pose\": " + String(decoding: poseLine, as: UTF8.self)
        var json = JSONText(capacity: 2048)
        if let gestures {
            json.raw(", \"gestures\": {\"paths\": [")
            var first = true
            for key in gestures.order {
                guard let path = gestures.paths[key] else { continue }
                for stroke in path.strokes where !stroke.isEmpty {
                    if !first { json.raw(", ") }
                    first = false
                    appendPoints(stroke, to: &json)
                }
            }
            json.raw("], \"tips\": [")
            first = true
            for hand in gestures.current {
                guard let tips = hand.tips else { continue }
                if !first { json.raw(", ") }
                first = false
                json.raw("{\"state\": "); json.string(hand.state.rawValue)
                json.raw(", \"thumb\": "); appendPoint(tips.thumb, to: &json)
                json.raw(", \"index\": "); appendPoint(tips.index, to: &json)
                json.raw("}")
            }
            json.raw("]}")
        }
        if let engine {
            json.raw(", \"action\": ")
            appendAction(engine.status, to: &json)
            json.raw(", \"summary\": ")
            ActionEvent.summary(engine.summary).append(to: &json)
        }
        json.raw(", \"pipeline\": {\"fps\": ")
        json.number(pipelineRate.isFinite ? pipelineRate : 0, decimals: 1)
        json.raw(", \"dropped\": ")
        json.integer(dropped)
        json.raw("}}")
        text += json.text
        return text
    }

    /// The message after the last frame: the final action and summary (`engine` finished), or the
    /// source's failure.
    public static func end(engine: ActionEngine?, failure: String?) -> String {
        var json = JSONText(capacity: 1024)
        json.raw("{\"type\": \"end\"")
        if let failure { json.raw(", \"error\": "); json.string(failure) }
        if let engine {
            json.raw(", \"action\": ")
            appendAction(engine.status, to: &json)
            json.raw(", \"summary\": ")
            ActionEvent.summary(engine.summary).append(to: &json)
        }
        json.raw("}")
        return json.text
    }

    /// The followed person's action as the page's caption shows it.
    private static func appendAction(_ status: ActionStatus, to json: inout JSONText) {
        json.raw("{\"label\": ")
        if let label = status.label { json.string(label.name) } else { json.raw("null") }
        json.raw(", \"confidence\": ")
        json.number(status.confidence, decimals: JSONText.Decimals.scores)
        json.raw(", \"repetitions\": ")
        json.integer(status.repetitions)
        json.raw(", \"counts\": ")
        json.raw(status.countsRepetitions ? "true" : "false")
        json.raw(", \"track\": ")
        if let track = status.trackID { json.integer(track) } else { json.raw("null") }
        json.raw("}")
    }

    private static func appendPoint(_ point: Point, to json: inout JSONText) {
        json.raw("[")
        json.number(point.x, decimals: JSONText.Decimals.pixels)
        json.raw(", ")
        json.number(point.y, decimals: JSONText.Decimals.pixels)
        json.raw("]")
    }

    private static func appendPoints(_ points: [Point], to json: inout JSONText) {
        json.raw("[")
        for (i, point) in points.enumerated() {
            if i > 0 { json.raw(", ") }
            appendPoint(point, to: &json)
        }
        json.raw("]")
    }
}
