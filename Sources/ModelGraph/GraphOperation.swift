import Tensor

/// The operations a ``Graph`` may hold: the 13 runtime ops of MediaPipe's TFLite models (the other
/// two, `DEQUANTIZE` and `DENSIFY`, are folded into constants at import).
///
/// Inputs are listed in order; constants' layouts are our kernels', converted at import:
/// - convolution weights HWIO `[kH, kW, Cin, Cout]` (TFLite stores OHWI);
/// - depthwise weights `[kH, kW, C]` (TFLite `[1, kH, kW, C]`, depth multiplier 1);
/// - fully-connected weights `[in, out]` (TFLite `[out, in]`), so `y = x · W + b`;
/// - biases and PReLU slopes `[C]`.
public enum GraphOperation: Sendable, Equatable {
    /// `inputs: [x, weights, bias]`. Fused activation applied after the bias.
    case conv2D(window: Window2D, activation: Activation)
    /// `inputs: [x, weights, bias]`. Depth multiplier 1.
    case depthwiseConv2D(window: Window2D, activation: Activation)
    /// `inputs: [x, weights, bias]`; `x` is flattened to `[in]`.
    case fullyConnected(activation: Activation)
    /// `inputs: [a, b]`, same shape (no broadcasting in these models). Fused activation.
    case add(activation: Activation)
    /// `inputs: [x, slope]`: `x > 0 ? x : slope[c] · x`, slope per channel.
    case prelu
    /// `inputs: [x]`: `1 / (1 + exp(-x))`.
    case logistic
    /// `inputs: [x]`: zero padding per axis of `x`'s shape (batch axis dropped), `(before, after)`.
    /// MediaPipe pads height/width before VALID convolutions and channels on residual paths.
    case pad(amounts: [PadAmount])
    /// `inputs: [x]`: 2-D max pooling (padding cells never win).
    case maxPool2D(window: Window2D)
    /// `inputs: [x]`: mean over the spatial axes of `[H, W, C]`, giving `[C]`.
    case spatialMean
    /// `inputs: [x]`: bilinear resize of `[H, W, C]` to the output value's `[H', W', C]`.
    case resizeBilinear(alignCorners: Bool, halfPixelCenters: Bool)
    /// `inputs: [x]`: TF `DEPTH_TO_SPACE` in DCR order:
    /// `out[h·b + i, w·b + j, c] = in[h, w, (i·b + j)·C + c]`.
    case depthToSpace(blockSize: Int)
    /// `inputs: [x]`: the same elements with the output value's shape (row-major, no copy needed).
    case reshape
    /// `inputs: [x0, x1, ...]`: concatenation along `axis` of the output's shape (batch dropped).
    case concatenation(axis: Int)
}

/// Zero padding of one axis.
public struct PadAmount: Sendable, Equatable {
    public var before: Int, after: Int
    public init(before: Int, after: Int) { self.before = before; self.after = after }
}
