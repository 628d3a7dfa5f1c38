/// Image resampling kernels.
public enum Resize {}

extension Resize {
    /// Bilinear resize of `[H, W, C]` to `output`'s `[outH, outW, C]`, **half-pixel centers**.
    ///
    /// Output pixel `(oy, ox)` samples the input at
    /// `sy = (oy + 0.5) · H / outH − 0.5`, `sx = (ox + 0.5) · W / outW − 0.5`
    /// (pixel centers aligned, not corners), clamped to the image so the border replicates.
    /// This is OpenCV's `INTER_LINEAR`, TensorFlow's `resize_bilinear(half_pixel_centers: true)`
    /// and PyTorch's `align_corners=False`. It equals PIL's `BILINEAR` when enlarging; when
    /// shrinking PIL widens its filter (antialiasing) and this kernel does not.
    /// Rows are split over `threads` cores.
    ///
    /// - Throws: ``TensorError`` when ranks or channel counts disagree.
    public static func bilinear(_ input: Tensor, into output: Tensor, threads: Int = Parallelism.defaultThreads) throws {
        try input.requireRank(3, "resize input")
        try output.requireRank(3, "resize output")
        let (h, w, c) = (input.shape[0], input.shape[1], input.shape[2])
        let (oh, ow) = (output.shape[0], output.shape[1])
        guard output.shape[2] == c else {
            throw TensorError.shapeMismatch("resize output \(output.shape) must keep the \(c) channels of \(input.shape)")
        }
        try output.requireDisjoint(from: input, "resize output")
        let scaleY = Float(h) / Float(oh), scaleX = Float(w) / Float(ow)
        let workers = max(1, min(threads, oh))
        withExtendedLifetime((input, output)) {
            let src = input.basePointer, dst = output.mutableBasePointer
            Parallelism.forEachBand(workers) { worker in
                for oy in Parallelism.bandRange(worker, of: workers, count: oh) {
                    let (y0, y1, fy) = sourceSpan((Float(oy) + 0.5) * scaleY - 0.5, size: h)
                    for ox in 0..<ow {
                        let (x0, x1, fx) = sourceSpan((Float(ox) + 0.5) * scaleX - 0.5, size: w)
                        let p00 = src + (y0 * w + x0) * c, p01 = src + (y0 * w + x1) * c
                        let p10 = src + (y1 * w + x0) * c, p11 = src + (y1 * w + x1) * c
                        let out = dst + (oy * ow + ox) * c
                        // Eight channels a vector (the same operations per value as the scalar tail,
                        // so the result does not depend on the channel count).
                        var ch = 0
                        while ch + 8 <= c {
                            func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p + ch).loadUnaligned(as: SIMD8<Float>.self) }
                            let (a, b, d, e) = (load(p00), load(p01), load(p10), load(p11))
                            let top = a + (b - a) * fx, bottom = d + (e - d) * fx
                            UnsafeMutableRawPointer(out + ch).storeBytes(of: top + (bottom - top) * fy, as: SIMD8<Float>.self)
                            ch += 8
                        }
                        while ch < c {
                            let top = p00[ch] + (p01[ch] - p00[ch]) * fx
                            let bottom = p10[ch] + (p11[ch] - p10[ch]) * fx
                            out[ch] = top + (bottom - top) * fy
                            ch += 1
                        }
                    }
                }
            }
        }
    }

    /// Allocating form of ``bilinear(_:into:threads:)`` to `height × width`.
    public static func bilinear(_ input: Tensor, height: Int, width: Int, threads: Int = Parallelism.defaultThreads) throws -> Tensor {
        try input.requireRank(3, "resize input")
        let output = try Tensor(zeros: [height, width, input.shape[2]])
        try bilinear(input, into: output, threads: threads)
        return output
    }

    /// The two neighboring source indices around coordinate `s` (clamped to `0..<size`) and
    /// the weight of the second.
    @inline(__always)
    static func sourceSpan(_ s: Float, size: Int) -> (Int, Int, Float) {
        let clamped = min(max(s, 0), Float(size - 1))
        let i0 = Int(clamped)
        let i1 = min(i0 + 1, size - 1)
        return (i0, i1, clamped - Float(i0))
    }
}
