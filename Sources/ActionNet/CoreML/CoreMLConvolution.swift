/// A Core ML 2-D convolution's parameters, checked by ``CoreMLLayerReader`` (groups 1, no
/// dilation, explicit zero padding): the Create ML mapper makes a graph `conv2D` of it.
///
/// Core ML stores the weights `[Cout, Cin, kH, kW]` (OIHW, row-major) and applies the kernel to
/// the last three axes `[C, H, W]` of its input (earlier axes are batch), with strides and padding
/// amounts ordered [H, W] that may differ top and bottom:
/// `H_out = (H + top + bottom − kH) / strideH + 1`, rounded down.
struct CoreMLConvolution: Sendable {
    let inputChannels: Int, outputChannels: Int
    let kernelHeight: Int, kernelWidth: Int
    let strideY: Int, strideX: Int
    let padTop: Int, padBottom: Int, padLeft: Int, padRight: Int
    /// Core ML's OIHW weights as they are, `outputChannels · inputChannels · kH · kW` values.
    let oihw: [Float]
    let bias: [Float]?
}
