/// A Core ML 2-D pooling layer's parameters (max or average over the last two axes of a
/// `[.., C, H, W]` blob), checked by ``CoreMLLayerReader``.
///
/// Valid padding with explicit amounts (ordered [H, W], top/bottom and left/right):
/// `H_out = (H + top + bottom − kH) / strideH + 1` rounded down; `globalPooling` takes the whole
/// `H × W`. The Create ML mapper runs an average over the whole plane as the graph's
/// `spatialMean` and a max as `maxPool2D` (whose padding never wins).
struct CoreMLPooling: Sendable {
    let average: Bool
    let global: Bool
    let kernelHeight: Int, kernelWidth: Int
    let strideY: Int, strideX: Int
    let padTop: Int, padBottom: Int, padLeft: Int, padRight: Int
    let excludePadding: Bool
}
