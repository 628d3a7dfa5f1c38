/// A pose line's keypoints and its coordinate system: which ``KeypointSet`` the points' names
/// say, each point back in image pixels.
extension PoseJSONLinesDecoder {
    /// Farthest a keypoint may lie from the image origin, in pixels: far beyond any model's
    /// reach outside its frame, near enough that the arithmetic on it stays exact.
    static let maximumPixelDistance = 1e7

    /// The line's `"coordinates"` (absent: pixels); a normalized system needs a known size.
    static func coordinates(of line: [String: Any], width: Int, height: Int,
                            fail: (String) -> PoseDataError) throws -> KeypointCoordinates {
        guard let raw = line["coordinates"] else { return .pixels }
        guard let name = raw as? String, let coordinates = KeypointCoordinates(rawValue: name) else {
            throw fail("\"coordinates\" must be one of \(KeypointCoordinates.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard coordinates == .pixels || (width > 0 && height > 0) else {
            throw fail("\"coordinates\": \"\(name)\" needs a positive \"width\" and \"height\" to give pixels")
        }
        return coordinates
    }

    /// The keypoints of pose `p` (its `"keypoints"` array) in the order of the set their names
    /// name, positions in image pixels.
    static func keypoints(of list: [Any], pose p: Int, in coordinates: KeypointCoordinates, width: Int, height: Int,
                          fail: (String) -> PoseDataError) throws -> (KeypointSet, [Keypoint]) {
        var names: [String] = []
        names.reserveCapacity(list.count)
        for raw in list {
            guard let kd = raw as? [String: Any], let name = kd["part"] as? String else {
                throw fail("pose \(p): keypoint without a \"part\" name")
            }
            names.append(name)
        }
        guard let set = KeypointSet.smallestKnown(holding: names) else {
            if let unknown = names.first(where: { name in !KeypointSet.known.contains { $0.index(of: name) != nil } }) {
                throw fail("pose \(p): unknown part \"\(unknown)\"")
            }
            throw fail("pose \(p): no known keypoint set (\(KeypointSet.known.map(\.identifier).joined(separator: ", "))) has all of its parts")
        }
        var slots = [Keypoint?](repeating: nil, count: set.count)
        for (raw, name) in zip(list, names) {
            let kd = raw as! [String: Any]
            guard let x = number(kd["x"]), let y = number(kd["y"]), x.isFinite, y.isFinite else {
                throw fail("pose \(p): \(name) needs finite numeric \"x\" and \"y\"")
            }
            let position = coordinates == .pixels ? Point(x: x, y: y)
                : coordinates.toPixels(Point(x: x, y: y), width: width, height: height)
            guard abs(position.x) <= maximumPixelDistance, abs(position.y) <= maximumPixelDistance else {
                throw fail("pose \(p): \(name) lies more than 1e7 pixels away")
            }
            guard let s = number(kd["score"]), s.isFinite else { throw fail("pose \(p): \(name) needs a numeric \"score\"") }
            let visibility = try unitInterval(kd["visibility"], "visibility", of: name, pose: p, fail: fail)
            let presence = try unitInterval(kd["presence"], "presence", of: name, pose: p, fail: fail)
            var z: Double?
            if let raw = kd["z"] {
                guard let value = number(raw), value.isFinite else { throw fail("pose \(p): \(name) has a non-numeric \"z\"") }
                let pixels = coordinates.depthToPixels(value, width: width)
                guard abs(pixels) <= maximumPixelDistance else { throw fail("pose \(p): \(name)'s \"z\" lies more than 1e7 pixels away") }
                z = pixels
            }
            slots[set.index(of: name)!] = Keypoint(position: position, score: min(max(s, 0), 1), visibility: visibility,
                                                   presence: presence, z: z)
        }
        let missing = slots.indices.filter { slots[$0] == nil }
        guard missing.isEmpty else {
            throw fail("pose \(p) lacks \(missing.count) of \(set.count) keypoints (first: \(set.names[missing[0]]))")
        }
        return (set, slots.map { $0! })
    }

    /// An optional probability field (`"visibility"`, `"presence"`), clamped to 0...1.
    static func unitInterval(_ raw: Any?, _ field: String, of name: String, pose p: Int,
                             fail: (String) -> PoseDataError) throws -> Double? {
        guard let raw else { return nil }
        guard let value = number(raw), value.isFinite else { throw fail("pose \(p): \(name) has a non-numeric \"\(field)\"") }
        return min(max(value, 0), 1)
    }

    /// Farthest a world point may lie from the body's centre, in metres.
    static let maximumWorldDistance = 1e4

    /// A pose's `"world"` (metres, one `{"x", "y", "z"}` per keypoint of its set), nil when absent.
    static func world(of raw: Any?, pose p: Int, count: Int, fail: (String) -> PoseDataError) throws -> [WorldPoint]? {
        guard let raw else { return nil }
        guard let list = raw as? [Any], list.count == count else {
            throw fail("pose \(p): \"world\" must list \(count) points, one per keypoint")
        }
        return try list.enumerated().map { w, item in
            guard let point = item as? [String: Any], let x = number(point["x"]), let y = number(point["y"]),
                  let z = number(point["z"]), [x, y, z].allSatisfy({ $0.isFinite && abs($0) <= maximumWorldDistance }) else {
                throw fail("pose \(p): world point \(w) needs finite numeric \"x\", \"y\" and \"z\" within 1e4 metres")
            }
            return WorldPoint(x: x, y: y, z: z)
        }
    }
}
