/// Pooling kernels of graph networks: 2-D max pooling and the spatial mean.
public enum Pooling {}

extension Pooling {
    /// 2-D max pooling of `[H, W, C]` into `output`'s `[outH, outW, C]`: output pixel `(oy, ox)`
    /// is the channel-wise maximum over input rows `oy·stride − padTop + ky` and columns
    /// `ox·stride − padLeft + kx`, `ky, kx` in `0..<kernel`, of the taps inside the input
    /// (padding never wins, as in TFLite). Rows are split over `threads` cores.
    ///
    /// - Throws: ``TensorError`` when a window lies wholly outside the input or the shapes disagree.
    public static func maxPool(
        _ input: Tensor, kernelHeight kh: Int, kernelWidth kw: Int, strideHeight sh: Int, strideWidth sw: Int,
        padTop: Int, padLeft: Int, into output: Tensor, threads: Int = Parallelism.defaultThreads
    ) throws {
        try input.requireRank(3, "max pool input")
        try output.requireRank(3, "max pool output")
        let (h, w, c) = (input.shape[0], input.shape[1], input.shape[2])
        let (oh, ow) = (output.shape[0], output.shape[1])
        guard kh >= 1, kw >= 1, sh >= 1, sw >= 1, padTop >= 0, padLeft >= 0, padTop < kh, padLeft < kw,
              output.shape[2] == c, (oh - 1) * sh - padTop < h, (ow - 1) * sw - padLeft < w else {
            throw TensorError.shapeMismatch("max pool \(kh)x\(kw) stride \(sh)x\(sw) padding top \(padTop) left \(padLeft) of \(input.shape) into \(output.shape)")
        }
        try output.requireDisjoint(from: input, "max pool output")
        let workers = max(1, min(threads, oh))
        withExtendedLifetime((input, output)) {
            let src = input.basePointer, dst = output.mutableBasePointer
            Parallelism.forEachBand(workers) { worker in
                for oy in Parallelism.bandRange(worker, of: workers, count: oh) {
                    let iy0 = oy * sh - padTop
                    let rows = max(0, iy0)..<min(h, iy0 + kh)
                    for ox in 0..<ow {
                        let ix0 = ox * sw - padLeft
                        let columns = max(0, ix0)..<min(w, ix0 + kw)
                        let out = dst + (oy * ow + ox) * c
                        out.update(from: src + (rows.lowerBound * w + columns.lowerBound) * c, count: c)
                        for iy in rows {
                            for ix in columns {
                                let tap = src + (iy * w + ix) * c
                                for ch in 0..<c where tap[ch] > out[ch] { out[ch] = tap[ch] }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The mean over the spatial axes of `[H, W, C]`, into `output` of `C` elements (any shape).
    /// Sums in float64, so the mean does not depend on the summation order.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when `output` does not hold `C` elements.
    public static func spatialMean(_ input: Tensor, into output: Tensor) throws {
        try input.requireRank(3, "spatial mean input")
        let (pixels, c) = (input.shape[0] * input.shape[1], input.shape[2])
        guard output.count == c else {
            throw TensorError.shapeMismatch("spatial mean of \(input.shape) gives \(c) values, output \(output.shape) holds \(output.count)")
        }
        withExtendedLifetime((input, output)) {
            let src = input.basePointer, dst = output.mutableBasePointer
            for ch in 0..<c {
                var sum = 0.0
                for pixel in 0..<pixels { sum += Double(src[pixel * c + ch]) }
                dst[ch] = Float(sum / Double(pixels))
            }
        }
    }
}
