import Tensor

/// One temporal convolution layer of ``TemporalConvNet``: kernel `k` over time, stride `s`,
/// `Cin → Cout` channels, zero padding `(k − 1) / 2` on both sides, so `⌈T / s⌉` output steps.
///
/// It runs as a 2-D convolution on Tensor's kernels: a window `[T, Cin]` is the NHWC image
/// `[1, T, Cin]` (height 1, width = time; Tensor drops the batch axis `N = 1`) and the weights are
/// HWIO `[1, k, Cin, Cout]`. The weights live inside the network's flat parameter vector as KIO
/// `[k, Cin, Cout]` (the same bytes as HWIO with `H = 1`), followed by the `Cout` biases;
/// ``weights`` and ``bias`` are views of that vector, so updating the parameters updates the layer.
///
/// Tensor's "SAME" padding puts the odd extra pixel after the input (TensorFlow's rule), whereas
/// this layer pads `(k − 1) / 2` before it as well as after; so the network keeps every activation
/// in a buffer with `padding` zero steps on both sides (``paddedInput(time:)``) and runs a
/// "VALID" convolution over it: `⌊(T + k − 1 − k) / s⌋ + 1 = ⌈T / s⌉` outputs.
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

    /// A zeroed NHWC `[1, time + 2·padding, inputChannels]` buffer this layer reads; write the
    /// `time` input steps into its ``interior(of:time:)``, the border stays zero.
    func paddedInput(time: Int) throws -> Tensor {
        try Tensor(zeros: [1, time + 2 * padding, inputChannels])
    }

    /// The `[1, time, channels]` view of a padded buffer without its zero border.
    static func interior(of padded: Tensor, padding: Int, time: Int) throws -> Tensor {
        let channels = padded.shape[2]
        return try padded.reshaped([padded.shape[1], channels]).slice(padding..<(padding + time)).reshaped([1, time, channels])
    }

    /// `output = activation(conv(input) + bias)` with `input` NHWC `[1, time + 2·padding, Cin]`
    /// (zero border included) and `output` `[1, ⌈time / stride⌉, Cout]`.
    func forward(paddedInput: Tensor, activation: Activation, into output: Tensor, workspace: ConvolutionWorkspace, threads: Int) throws {
        try Convolution.general(paddedInput, weights: weights, bias: bias, stride: stride, padding: .valid,
                                activation: activation, into: output, workspace: workspace, threads: threads)
    }
}
