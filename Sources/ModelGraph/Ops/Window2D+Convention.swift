import Tensor

extension Window2D {
    /// `.same` or `.valid` when this window's explicit padding is exactly that convention's for
    /// these shapes (TF SAME: the odd pixel bottom/right), else nil: the convolution kernels that
    /// take a `Padding` convention (conv, depthwise 3×3) run such a window directly.
    func convention(input: [Int], output: [Int]) -> Padding? {
        guard input.count == 3, output.count == 3, dilationHeight == dilationWidth else { return nil }
        for convention in [Padding.valid, .same] {
            guard let g = try? ConvolutionGeometry(
                inputHeight: input[0], inputWidth: input[1], kernelHeight: kernelHeight, kernelWidth: kernelWidth,
                stride: strideHeight, strideWidth: strideWidth, dilation: dilationHeight, padding: convention) else { continue }
            let bottom = (g.outputHeight - 1) * g.stride + (g.kernelHeight - 1) * g.dilation + 1 - input[0] - g.padTop
            let right = (g.outputWidth - 1) * g.strideWidth + (g.kernelWidth - 1) * g.dilation + 1 - input[1] - g.padLeft
            if g.outputHeight == output[0], g.outputWidth == output[1], g.padTop == padding.top,
               g.padLeft == padding.left, max(0, bottom) == padding.bottom, max(0, right) == padding.right {
                return convention
            }
        }
        return nil
    }
}
