import Tensor

/// Which nodes of a graph run a reduced precision (int8, bf16) when one is asked: the one rule,
/// for every network.
///
/// Only 1×1 convolutions on the packed GEMM take it (Tensor's `Precision`: the reduced kernels
/// are 1×1 GEMMs), each reading at least `Precision.minimumInputChannels` channels (shorter dot
/// products do not pay for quantizing the activations), and not under a fused residual or
/// PReLU: the reduced kernels apply those after storing, which a residual in the output's own
/// buffer would not survive. Everything else runs float32.
struct ReducedPrecisionRule {
    init(graph: Graph) {}

    /// The precision of a 1×1 convolution reading `inputChannels`, `fused` with a residual or
    /// PReLU, when the runner asks `requested` (resolved).
    func precision(_ requested: Precision, inputChannels: Int, fused: Bool) -> Precision {
        fused ? .fp32 : requested.forLayer(inputChannels: inputChannels)
    }
}
