/// One joint joined to another in a keypoint set's skeleton, by index into the set.
public struct KeypointEdge: Hashable, Sendable {
    public var from: Int
    public var to: Int
    public init(_ from: Int, _ to: Int) { self.from = from; self.to = to }
}

/// The points a model finds, as data: their names, the skeleton drawn between them, which point
/// a horizontal mirror image turns each into, and where the COCO-17 keypoints are among them.
///
/// A ``Pose`` carries its set, and has exactly ``count`` keypoints in the set's order. Tracking,
/// smoothing, JSON Lines, overlays, action windows and evaluation read the set, never a fixed
/// count: a BlazePose pose (33 points) or a hand (21) goes through them as a PoseNet pose (17)
/// does. The known sets are ``coco17`` (PoseNet), ``blazePose33``, ``hand21`` and ``vision18``
/// (Vision's body joints, a Create ML action classifier's input rows); `KeypointSet.known` lists them.
///
/// Names are the ones JSON Lines writes (`"part"`), camelCase: `leftShoulder`, `thumbTip`.
/// Sides come from the names: a point whose name starts with `left` or `right` is on that side
/// of the body (the person's own side, as in COCO); others are in the middle.
///
/// A set is a reference to immutable tables, so a pose holding it costs one pointer; two sets
/// are equal when they have the same ``identifier`` and names.
public final class KeypointSet: Sendable, Hashable, CustomStringConvertible {
    /// A short stable name: `coco17`, `blazePose33`, `hand21`, `vision18`.
    public let identifier: String
    /// The points' names, in the model's order.
    public let names: [String]
    /// The skeleton drawn in overlays, by index.
    public let edges: [KeypointEdge]
    /// For each point, the point it becomes in a horizontal mirror image (left ↔ right; a point
    /// in the middle is its own). An involution: `mirrored[mirrored[i]] == i`.
    public let mirrored: [Int]
    /// For each COCO-17 keypoint (`BodyPart` order), its index in this set; nil where the set
    /// has no such point. All nil for a set without a body (a hand).
    public let cocoIndices: [Int?]
    /// Each point's side, from its name.
    public let sides: [BodySide]
    private let indexOfName: [String: Int]

    /// A set from its tables; the tables are checked (`precondition`): names unique and
    /// non-empty, edges and COCO indices in range, the mirror table an involution of the right
    /// length. Pass `mirrored: nil` to pair `left…` with `right…` by name (others stay themselves).
    public init(identifier: String, names: [String], edges: [KeypointEdge], mirrored: [Int]? = nil, cocoIndices: [Int?]) {
        precondition(!names.isEmpty, "a keypoint set needs points")
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() {
            precondition(!name.isEmpty && index[name] == nil, "keypoint set \(identifier): name \"\(name)\" empty or repeated")
            index[name] = i
        }
        precondition(edges.allSatisfy { names.indices.contains($0.from) && names.indices.contains($0.to) && $0.from != $0.to },
                     "keypoint set \(identifier): an edge leaves the set")
        precondition(cocoIndices.count == BodyPart.count && cocoIndices.allSatisfy { index in index.map { names.indices.contains($0) } ?? true },
                     "keypoint set \(identifier): COCO indices must be 17, each in the set or nil")
        let mirror = mirrored ?? KeypointSet.mirrorByName(names, index: index)
        precondition(mirror.count == names.count && mirror.allSatisfy { names.indices.contains($0) }
                     && mirror.indices.allSatisfy { mirror[mirror[$0]] == $0 },
                     "keypoint set \(identifier): the mirror table must be an involution over the set")
        self.identifier = identifier
        self.names = names
        self.edges = edges
        self.mirrored = mirror
        self.cocoIndices = cocoIndices
        self.sides = names.map(KeypointSet.side(ofName:))
        indexOfName = index
    }

    /// Number of points.
    public var count: Int { names.count }

    /// The index of the point called `name`, or nil.
    public func index(of name: String) -> Int? { indexOfName[name] }

    /// The index of COCO-17 keypoint `part` in this set, or nil.
    @inlinable public func index(of part: BodyPart) -> Int? { cocoIndices[part.rawValue] }

    /// Whether every COCO-17 keypoint has a point here, so a pose of this set can stand in for
    /// a PoseNet pose (action windows, COCO evaluation): ``Pose/cocoSeventeen``.
    public var coversCOCO17: Bool { cocoIndices.allSatisfy { $0 != nil } }

    public var description: String { identifier }

    public static func == (a: KeypointSet, b: KeypointSet) -> Bool {
        a === b || (a.identifier == b.identifier && a.names == b.names)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    /// The side a name says: `left…` or `…Left` (`mouthLeft`) is left, `right…` or `…Right` right.
    static func side(ofName name: String) -> BodySide {
        if name.hasPrefix("left") || name.hasSuffix("Left") { return .left }
        if name.hasPrefix("right") || name.hasSuffix("Right") { return .right }
        return .center
    }

    /// `left…` ↔ `right…` and `…Left` ↔ `…Right` by name; a point without a partner is its own
    /// mirror image.
    static func mirrorByName(_ names: [String], index: [String: Int]) -> [Int] {
        names.enumerated().map { i, name in
            let partner: String?
            if name.hasPrefix("left") { partner = "right" + name.dropFirst(4) }
            else if name.hasPrefix("right") { partner = "left" + name.dropFirst(5) }
            else if name.hasSuffix("Left") { partner = name.dropLast(4) + "Right" }
            else if name.hasSuffix("Right") { partner = name.dropLast(5) + "Left" }
            else { partner = nil }
            return partner.flatMap { index[$0] } ?? i
        }
    }

    /// For each COCO-17 keypoint, the index of the point of the same name in `names` (nil when
    /// there is none): the sets whose names follow COCO's (BlazePose, Vision) map this way.
    static func cocoIndicesByName(_ names: [String]) -> [Int?] {
        BodyPart.allCases.map { names.firstIndex(of: $0.name) }
    }
}

extension KeypointSet {
    /// The sets PoseKit knows, the ones the JSON Lines reader recognizes.
    public static let known: [KeypointSet] = [.coco17, .blazePose33, .hand21, .vision18]

    /// The known set with this ``identifier``, or nil.
    public static func known(identifier: String) -> KeypointSet? { known.first { $0.identifier == identifier } }

    /// The smallest known set holding every one of `names` (a pose that lists its points by name,
    /// in any order), or nil when no known set holds them all.
    public static func smallestKnown(holding names: some Collection<String>) -> KeypointSet? {
        known.filter { set in names.allSatisfy { set.index(of: $0) != nil } }.min { $0.count < $1.count }
    }
}
