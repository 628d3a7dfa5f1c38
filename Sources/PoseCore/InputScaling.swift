/// How 0…255 pixel values become network input values: `value · scale + bias[channel]`.
///
/// A network's weight bundle records it (PoseNet's manifest `preprocessing`: scale 2/255, bias
/// −1 per channel, so black is −1 and white is +1); the model exposes it, and the network-input
/// writer (FrameIO's `NetworkInputWriter`) applies it, padding included (padding is black, 0,
/// so it becomes `bias`).
public struct InputScaling: Sendable, Equatable, Hashable {
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
    /// expect. A convenience for callers without a weight bundle; a model's own scaling comes from
    /// its manifest.
    public static let minusOneToOne = InputScaling(scale: 2 / 255, bias: [-1, -1, -1])
}
