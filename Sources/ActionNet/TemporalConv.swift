import Tensor

/// One temporal convolution layer of ``TemporalConvNet``: kernel `k` over time, stride `s`,
/// `Cin → Cout` channels, zero padding `(k − 1) / 2` on both sides, so `⌈T / s⌉` output steps.
///
/// In the network's graph (``TemporalConvNet/graph()``) it is a `conv2D` over the image `[1, T, Cin]`
/// (height 1, width = time) with HWIO weights `[1, k, Cin, Cout]` and that padding on the width.
/// The weights live inside the network's flat parameter vector as KIO `[k, Cin, Cout]` (the same
/// bytes as HWIO with `H = 1`), followed by the `Cout` biases; ``weights`` and ``bias`` are views
/// of that vector, so updating the parameters updates the layer (training's forward and backward
/// passes read them there).
@_spi(Training) public struct TemporalConv: Sendable {
    public let inputChannels: Int
    public let outputChannels: Int
    public let kernel: Int
    public let stride: Int
    /// Where the weights (`kernel·in·out`) and then the biases (`out`) start in the parameter vector.
    public let offset: Int
    /// HWIO `[1, kernel, inputChannels, outputChannels]`, a view of the parameter vector.
    public let weights: Tensor
    /// `[outputChannels]`, a view of the parameter vector.
    public let bias: Tensor

    /// A layer whose weights are views of `parameters` (a flat `[n]` tensor) at `offset`.
    init(inputChannels: Int, outputChannels: Int, kernel: Int, stride: Int, offset: Int, parameters: Tensor) throws {
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.kernel = kernel
        self.stride = stride
        self.offset = offset
        let weightCount = kernel * inputChannels * outputChannels
        weights = try parameters.slice(offset..<(offset + weightCount)).reshaped([1, kernel, inputChannels, outputChannels])
        bias = try parameters.slice((offset + weightCount)..<(offset + weightCount + outputChannels))
    }

    public var padding: Int { (kernel - 1) / 2 }
    public var weightCount: Int { kernel * inputChannels * outputChannels }
    public var parameterCount: Int { weightCount + outputChannels }
    /// Length of one im2col row: `kernel × inputChannels`.
    public var patchSize: Int { kernel * inputChannels }
    public func outputLength(_ time: Int) -> Int { (time + stride - 1) / stride }
}
