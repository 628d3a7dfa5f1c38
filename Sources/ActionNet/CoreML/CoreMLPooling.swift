/// A Core ML 2-D pooling layer (max or average) over the last two axes of a `[.., C, H, W]` blob.
///
/// Valid padding with explicit amounts (ordered [H, W], top/bottom and left/right):
/// `H_out = (H + top + bottom − kH) / strideH + 1` rounded down; `globalPooling` takes the whole
/// `H × W`. An average divides by the window's positions inside the input when
/// `avgPoolExcludePadding` is set, by `kH · kW` otherwise; a max ignores the padding.
struct CoreMLPooling: Sendable {
    let average: Bool
    let global: Bool
    let kernelHeight: Int, kernelWidth: Int
    let strideY: Int, strideX: Int
    let padTop: Int, padBottom: Int, padLeft: Int, padRight: Int
    let excludePadding: Bool

    func run(_ x: CoreMLArray, layer: String) throws -> CoreMLArray {
        guard x.rank >= 3 else {
            throw CoreMLModelError.layerFailed(layer: layer, detail: "pooling needs [.., C, H, W], got \(x.shape)")
        }
        let (h, w) = (x.shape[x.rank - 2], x.shape[x.rank - 1])
        let (kh, kw) = global ? (h, w) : (kernelHeight, kernelWidth)
        let (sy, sx) = global ? (1, 1) : (strideY, strideX)
        let (top, bottom, left, right) = global ? (0, 0, 0, 0) : (padTop, padBottom, padLeft, padRight)
        guard h + top + bottom >= kh, w + left + right >= kw else {
            throw CoreMLModelError.layerFailed(layer: layer, detail: "\(kh)x\(kw) pooling window does not fit input \(x.shape)")
        }
        let oh = (h + top + bottom - kh) / sy + 1, ow = (w + left + right - kw) / sx + 1
        let planes = x.count / (h * w)
        var out = [Float](repeating: 0, count: planes * oh * ow)
        for plane in 0..<planes {
            let base = plane * h * w
            for oy in 0..<oh {
                for ox in 0..<ow {
                    let ys = max(oy * sy - top, 0)..<min(oy * sy - top + kh, h)
                    let xs = max(ox * sx - left, 0)..<min(ox * sx - left + kw, w)
                    var sum: Float = 0, maximum = -Float.infinity
                    for y in ys {
                        for xx in xs {
                            let v = x.values[base + y * w + xx]
                            sum += v
                            maximum = max(maximum, v)
                        }
                    }
                    let divisor = excludePadding ? ys.count * xs.count : kh * kw
                    out[(plane * oh + oy) * ow + ox] = average ? sum / Float(max(divisor, 1)) : maximum
                }
            }
        }
        return CoreMLArray(shape: Array(x.shape[..<(x.rank - 2)]) + [oh, ow], values: out)
    }
}
