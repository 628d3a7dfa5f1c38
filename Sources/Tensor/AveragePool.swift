extension Pooling {
    /// 2-D average pooling of `[H, W, C]` into `output`'s `[outH, outW, C]`: output pixel
    /// `(oy, ox)` is the channel-wise mean over input rows `oy·strideHeight − padTop + ky` and
    /// columns `ox·strideWidth − padLeft + kx`, `ky, kx` in `0..<kernel`. The zero padding counts
    /// in the divisor (`kH·kW`) unless `excludingPadding`, when the divisor is the taps inside the
    /// input (Core ML's `avgPoolExcludePadding`, TFLite's `AVERAGE_POOL_2D`). Sums in float64.
    ///
    /// - Throws: ``TensorError`` when a window lies wholly outside the input or the shapes disagree.
    public static func averagePool(
        _ input: Tensor, kernelHeight kh: Int, kernelWidth kw: Int, strideHeight sh: Int, strideWidth sw: Int,
        padTop: Int, padLeft: Int, excludingPadding: Bool, into output: Tensor, threads: Int = Parallelism.defaultThreads
    ) throws {
        try input.requireRank(3, "average pool input")
        try output.requireRank(3, "average pool output")
        let (h, w, c) = (input.shape[0], input.shape[1], input.shape[2])
        let (oh, ow) = (output.shape[0], output.shape[1])
        guard kh >= 1, kw >= 1, sh >= 1, sw >= 1, padTop >= 0, padLeft >= 0, padTop < kh, padLeft < kw,
              output.shape[2] == c, (oh - 1) * sh - padTop < h, (ow - 1) * sw - padLeft < w else {
            throw TensorError.shapeMismatch("average pool \(kh)x\(kw) stride \(sh)x\(sw) padding top \(padTop) left \(padLeft) of \(input.shape) into \(output.shape)")
        }
        try output.requireDisjoint(from: input, "average pool output")
        let workers = max(1, min(threads, oh))
        withExtendedLifetime((input, output)) {
            let src = input.basePointer, dst = output.mutableBasePointer
            Parallelism.forEachBand(workers) { worker in
                var sums = [Double](repeating: 0, count: c)
                for oy in Parallelism.bandRange(worker, of: workers, count: oh) {
                    let iy0 = oy * sh - padTop
                    let rows = max(0, iy0)..<min(h, iy0 + kh)
                    for ox in 0..<ow {
                        let ix0 = ox * sw - padLeft
                        let columns = max(0, ix0)..<min(w, ix0 + kw)
                        for ch in 0..<c { sums[ch] = 0 }
                        for iy in rows {
                            for ix in columns {
                                let tap = src + (iy * w + ix) * c
                                for ch in 0..<c { sums[ch] += Double(tap[ch]) }
                            }
                        }
                        let divisor = Double(excludingPadding ? rows.count * columns.count : kh * kw)
                        let out = dst + (oy * ow + ox) * c
                        for ch in 0..<c { out[ch] = Float(sums[ch] / divisor) }
                    }
                }
            }
        }
    }
}
