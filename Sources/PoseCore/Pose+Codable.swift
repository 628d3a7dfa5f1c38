/// `Codable` for poses, as one JSON object that names its set and each point:
///
///     {"keypointSet": "coco17", "score": 0.8, "id": 1,
///      "keypoints": [{"part": "nose", "position": {"x": 1, "y": 2}, "score": 0.9}, ...]}
///
/// `visibility`, `presence` and `z` are written for keypoints that have them, `id` for tracked
/// poses, `world` (metres, one `{"x","y","z"}` per keypoint) for models that estimate it, `landmarksFrom`
/// when the points are another model's (``Pose/landmarksFrom``). Decoding takes
/// the keypoints in any order, by name, and needs every point of the set; without
/// `keypointSet`, the set is the smallest known one holding all the names given.
/// (`posekit pose` writes JSON Lines with ``PoseJSONLinesEncoder``, not this.)
extension Pose: Codable {
    private enum CodingKeys: String, CodingKey { case keypointSet, keypoints, score, id, world, landmarksFrom }
    private struct NamedKeypoint: Codable {
        var part: String
        var position: Point
        var score: Double
        var visibility: Double?
        var presence: Double?
        var z: Double?
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(keypointSet.identifier, forKey: .keypointSet)
        try container.encode(zip(keypointSet.names, keypoints).map {
            NamedKeypoint(part: $0, position: $1.position, score: $1.score, visibility: $1.visibility, presence: $1.presence, z: $1.z)
        }, forKey: .keypoints)
        try container.encode(score, forKey: .score)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encodeIfPresent(world, forKey: .world)
        try container.encodeIfPresent(landmarksFrom, forKey: .landmarksFrom)
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let named = try container.decode([NamedKeypoint].self, forKey: .keypoints)
        let set: KeypointSet
        if let identifier = try container.decodeIfPresent(String.self, forKey: .keypointSet) {
            guard let known = KeypointSet.known(identifier: identifier) else {
                throw DecodingError.dataCorruptedError(forKey: .keypointSet, in: container,
                    debugDescription: "unknown keypoint set \"\(identifier)\"")
            }
            set = known
        } else {
            guard let known = KeypointSet.smallestKnown(holding: named.map(\.part)) else {
                throw DecodingError.dataCorruptedError(forKey: .keypoints, in: container,
                    debugDescription: "no known keypoint set has the points \(named.map(\.part))")
            }
            set = known
        }
        var slots = [Keypoint?](repeating: nil, count: set.count)
        for k in named {
            guard let index = set.index(of: k.part), slots[index] == nil else {
                throw DecodingError.dataCorruptedError(forKey: .keypoints, in: container,
                    debugDescription: "\"\(k.part)\" is not a point of \(set.identifier) or is given twice")
            }
            slots[index] = Keypoint(position: k.position, score: k.score, visibility: k.visibility, presence: k.presence, z: k.z)
        }
        if let missing = slots.firstIndex(where: { $0 == nil }) {
            throw DecodingError.dataCorruptedError(forKey: .keypoints, in: container,
                debugDescription: "a \(set.identifier) pose needs all \(set.count) keypoints; \"\(set.names[missing])\" is missing")
        }
        self.init(keypoints: slots.map { $0! }, score: try container.decode(Double.self, forKey: .score),
                  id: try container.decodeIfPresent(Int.self, forKey: .id), keypointSet: set)
        if let world = try container.decodeIfPresent([WorldPoint].self, forKey: .world) {
            guard world.count == set.count else {
                throw DecodingError.dataCorruptedError(forKey: .world, in: container,
                    debugDescription: "a \(set.identifier) pose has \(set.count) world points, got \(world.count)")
            }
            self.world = world
        }
        landmarksFrom = try container.decodeIfPresent(String.self, forKey: .landmarksFrom)
    }
}
