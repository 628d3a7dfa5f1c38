/// Which 1×1 convolutions of a network run a reduced precision (int8, bf16) when one is asked:
/// the one rule, for every network (the graph runner's plan reads it for every graph).
///
/// A 1×1 convolution on the packed GEMM takes the asked precision when
/// - it reads at least ``minimumInputChannels`` channels (never fewer than
///   ``Precision/minimumInputChannels``: shorter dot products do not pay for quantizing the
///   activations), or, when ``layers`` names a set, it is one of those layers (layer studies);
/// - and no residual `ADD` or `PRELU` runs in its epilogue: the reduced kernels apply those after
///   storing, which a residual in the output's own buffer would not survive.
/// Everything else (depthwise, k×k convolutions, element-wise work) runs float32.
///
/// A family sets ``minimumInputChannels`` by what was measured for it: the MediaPipe graphs take
/// it from 64 channels (their int8/bf16 error against float64 goldens, docs/speed.md); PoseNet only
/// on the widest layers (its last 7 pointwise layers and the heads: the most time saved within
/// 0.005 COCO AP on `images`, docs/speed.md "Which layers").
public struct ReducedPrecisionRule: Sendable, Equatable {
    /// Input channels from which a 1×1 convolution takes the reduced precision.
    public var minimumInputChannels: Int
    /// When set, exactly these layers (by the name of the value each writes) take it, within the
    /// fusion and ``Precision/minimumInputChannels`` conditions: for layer studies.
    public var layers: Set<String>?

    public init(minimumInputChannels: Int = Precision.minimumInputChannels, layers: Set<String>? = nil) {
        self.minimumInputChannels = minimumInputChannels
        self.layers = layers
    }

    /// Every 1×1 convolution from ``Precision/minimumInputChannels`` input channels.
    public static let standard = ReducedPrecisionRule()

    /// The precision the 1×1 convolution `layer` (the value it writes), reading `inputChannels`,
    /// with a residual or PReLU fused after it or not, runs when `requested` (resolved) is asked.
    public func precision(_ requested: Precision, layer: String, inputChannels: Int, fusedAfterStore: Bool) -> Precision {
        guard requested != .fp32, !fusedAfterStore else { return .fp32 }
        if let layers {
            guard layers.contains(layer) else { return .fp32 }
        } else {
            guard inputChannels >= minimumInputChannels else { return .fp32 }
        }
        return requested.forLayer(inputChannels: inputChannels)
    }
}
