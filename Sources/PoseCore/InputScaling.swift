/// How 0…255 pixel values become network input values: `value · scale + bias[channel]`.
///
/// A network's weight bundle records it (PoseNet's manifest `preprocessing`: scale 2/255, bias
/// −1 per channel, so black is −1 and white is +1); the importers write it, the model exposes it,
/// and the network-input writer (FrameIO's `NetworkInputWriter`) applies it, padding included
/// (padding is black, 0, so it becomes `bias`). One type from the file on disk to the writer.
///
/// In a manifest it is the object `{"colorOrder": "RGB", "scale": 0.007843138, "bias": [-1, -1, -1]}`:
/// `colorOrder` is always `"RGB"` (an importer of a BGR model swaps the biases and the first
/// layer's input channels instead), and bundles written before this type, with the scale as the
/// double 0.00784313725490196, read as the same values.
public struct InputScaling: Sendable, Equatable, Hashable, Codable {
    /// Multiplier applied to every 0…255 channel value.
    public var scale: Float
    /// Added per channel after scaling, in R, G, B order (3 values).
    public var bias: [Float]

    /// `bias` must hold 3 values (R, G, B).
    public init(scale: Float, bias: [Float]) {
        precondition(bias.count == 3, "InputScaling needs 3 biases (R, G, B), got \(bias.count)")
        self.scale = scale
        self.bias = bias
    }

    /// `value · 2/255 − 1`: 0…255 onto −1…1, the range MobileNet-family networks such as PoseNet
    /// expect (TF.js PoseNet's normalization). A convenience for callers without a weight bundle;
    /// a model's own scaling comes from its manifest.
    public static let minusOneToOne = InputScaling(scale: 2 / 255, bias: [-1, -1, -1])

    /// The channel order of ``bias`` as a manifest spells it.
    public static let colorOrder = "RGB"

    enum CodingKeys: String, CodingKey { case colorOrder, scale, bias }

    /// Reads a manifest's `preprocessing`; a color order other than RGB, a bias count other than
    /// 3 or a value that is not a finite float is a `DecodingError.dataCorrupted` saying which.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let order = try container.decode(String.self, forKey: .colorOrder)
        guard order == Self.colorOrder else {
            throw DecodingError.dataCorruptedError(forKey: .colorOrder, in: container,
                                                   debugDescription: "input color order \"\(order)\" is not \"RGB\"")
        }
        // Read as doubles (what older bundles hold), then narrowed: the writer computes in Float.
        let scale = try container.decode(Double.self, forKey: .scale)
        guard Float(scale).isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .scale, in: container,
                                                   debugDescription: "input scaling needs a finite scale, got \(scale)")
        }
        let bias = try container.decode([Double].self, forKey: .bias)
        guard bias.count == 3, bias.allSatisfy({ Float($0).isFinite }) else {
            throw DecodingError.dataCorruptedError(forKey: .bias, in: container,
                                                   debugDescription: "input scaling needs 3 finite biases (R, G, B), got \(bias)")
        }
        self.init(scale: Float(scale), bias: bias.map { Float($0) })
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.colorOrder, forKey: .colorOrder)
        try container.encode(scale, forKey: .scale)
        try container.encode(bias, forKey: .bias)
    }
}
