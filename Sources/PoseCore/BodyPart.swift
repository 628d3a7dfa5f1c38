/// The 17 COCO keypoints PoseNet predicts, in the order of its heatmap channels.
///
/// Raw values are the heatmap channel indices; ``name`` is the TF.js part name used in JSON output.
public enum BodyPart: Int, CaseIterable, Sendable, Codable, CustomStringConvertible {
    case nose, leftEye, rightEye, leftEar, rightEar
    case leftShoulder, rightShoulder, leftElbow, rightElbow, leftWrist, rightWrist
    case leftHip, rightHip, leftKnee, rightKnee, leftAnkle, rightAnkle

    /// Number of keypoints (heatmap channels).
    public static let count = 17

    /// The TF.js / COCO part name, e.g. `"leftShoulder"`.
    public var name: String {
        switch self {
        case .nose: return "nose"
        case .leftEye: return "leftEye"
        case .rightEye: return "rightEye"
        case .leftEar: return "leftEar"
        case .rightEar: return "rightEar"
        case .leftShoulder: return "leftShoulder"
        case .rightShoulder: return "rightShoulder"
        case .leftElbow: return "leftElbow"
        case .rightElbow: return "rightElbow"
        case .leftWrist: return "leftWrist"
        case .rightWrist: return "rightWrist"
        case .leftHip: return "leftHip"
        case .rightHip: return "rightHip"
        case .leftKnee: return "leftKnee"
        case .rightKnee: return "rightKnee"
        case .leftAnkle: return "leftAnkle"
        case .rightAnkle: return "rightAnkle"
        }
    }

    /// The part with the given TF.js name, or `nil`.
    public init?(name: String) {
        guard let part = BodyPart.allCases.first(where: { $0.name == name }) else { return nil }
        self = part
    }

    /// Which side of the body the part is on; drawing colors parts by side.
    public var side: BodySide {
        let n = name
        if n.hasPrefix("left") { return .left }
        if n.hasPrefix("right") { return .right }
        return .center
    }

    public var description: String { name }

    /// The same part on the other side of the body (`leftWrist` ↔ `rightWrist`); the nose is its
    /// own. What a horizontal mirror image does to a part: flip averaging, the action window's
    /// facing, training's mirrored clips all read it here.
    public var mirrored: BodyPart { BodyPart.mirroredParts[rawValue] }

    /// ``mirrored`` for every part, by raw value. COCO order keeps each pair adjacent, left first,
    /// from index 1 on (`BodyPartTests` checks this against the names).
    static let mirroredParts: [BodyPart] = allCases.map { part in
        part == .nose ? .nose : BodyPart(rawValue: part.rawValue % 2 == 1 ? part.rawValue + 1 : part.rawValue - 1)!
    }

    /// Encodes as the TF.js name (`"leftShoulder"`), the form JSON consumers expect.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }

    /// Decodes a TF.js name, or a heatmap channel index.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let index = try? container.decode(Int.self) {
            guard let part = BodyPart(rawValue: index) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "no body part has index \(index)")
            }
            self = part
            return
        }
        let name = try container.decode(String.self)
        guard let part = BodyPart(name: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown body part \"\(name)\"")
        }
        self = part
    }
}

/// Left, right or neither (the nose).
public enum BodySide: Sendable { case left, right, center }
