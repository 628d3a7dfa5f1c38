/// Vectorized passes of the separable resize behind ``NetworkInputWriter``.
///
/// Every output value is computed with exactly the scalar arithmetic of the straightforward loops
/// (the same products, summed tap by tap in ascending order starting from 0, no fused multiply-add):
/// the vectors only run several independent outputs side by side, so results are bit-identical.
enum ResampleKernels {
    /// Source rows the horizontal pass resizes together, one per SIMD lane.
    static let blockRows = 8

    /// `temp[y·stride + o] = Σ_k w[o,k] · plane[y·width + first[o] + k]` for `y` in `rows` and the
    /// table's active outputs.
    ///
    /// Eight source rows at a time are widened into `block` (`width` vectors, x-major, lane = row),
    /// so each tap is one contiguous vector load instead of a scalar gather per row. A last group of
    /// fewer rows repeats its final row in the spare lanes and stores only the real ones.
    /// `block` holds at least `width` vectors.
    static func horizontal(_ plane: UnsafePointer<UInt8>, width: Int, rows: Range<Int>, table: ResampleWeights,
                           into temp: UnsafeMutablePointer<Float>, stride: Int,
                           block: UnsafeMutablePointer<SIMD8<Float>>) {
        let taps = table.taps, active = table.activeCount
        table.first.withUnsafeBufferPointer { first in
            table.weights.withUnsafeBufferPointer { weights in
                let first = first.baseAddress!, weights = weights.baseAddress!
                var y0 = rows.lowerBound
                while y0 < rows.upperBound {
                    let count = min(blockRows, rows.upperBound - y0)
                    widen(plane + y0 * width, width: width, rows: count, into: block)
                    var w = weights
                    let dst = temp + y0 * stride
                    for o in 0..<active {
                        let s = block + Int(first[o])
                        var acc = SIMD8<Float>()
                        for k in 0..<taps { acc = acc + SIMD8(repeating: w[k]) * s[k] }
                        if count == blockRows {
                            dst[o] = acc[0]
                            dst[stride + o] = acc[1]
                            dst[2 * stride + o] = acc[2]
                            dst[3 * stride + o] = acc[3]
                            dst[4 * stride + o] = acc[4]
                            dst[5 * stride + o] = acc[5]
                            dst[6 * stride + o] = acc[6]
                            dst[7 * stride + o] = acc[7]
                        } else {
                            for r in 0..<count { dst[r * stride + o] = acc[r] }
                        }
                        w += taps
                    }
                    y0 += count
                }
            }
        }
    }

    /// Transposes `rows` (1…8) rows of bytes starting at `src` into `block[x]` = the column `x`
    /// of those rows as floats; lanes past `rows` repeat the last row.
    @inline(__always)
    static func widen(_ src: UnsafePointer<UInt8>, width: Int, rows: Int, into block: UnsafeMutablePointer<SIMD8<Float>>) {
        let last = rows - 1
        let p0 = src, p1 = src + min(1, last) * width, p2 = src + min(2, last) * width, p3 = src + min(3, last) * width
        let p4 = src + min(4, last) * width, p5 = src + min(5, last) * width
        let p6 = src + min(6, last) * width, p7 = src + min(7, last) * width
        var x = 0
        // Eight columns at a time: eight vector loads, then an 8×8 transpose.
        while x + 8 <= width {
            let a0 = load8(p0 + x), a1 = load8(p1 + x), a2 = load8(p2 + x), a3 = load8(p3 + x)
            let a4 = load8(p4 + x), a5 = load8(p5 + x), a6 = load8(p6 + x), a7 = load8(p7 + x)
            let b = block + x
            b[0] = SIMD8(a0[0], a1[0], a2[0], a3[0], a4[0], a5[0], a6[0], a7[0])
            b[1] = SIMD8(a0[1], a1[1], a2[1], a3[1], a4[1], a5[1], a6[1], a7[1])
            b[2] = SIMD8(a0[2], a1[2], a2[2], a3[2], a4[2], a5[2], a6[2], a7[2])
            b[3] = SIMD8(a0[3], a1[3], a2[3], a3[3], a4[3], a5[3], a6[3], a7[3])
            b[4] = SIMD8(a0[4], a1[4], a2[4], a3[4], a4[4], a5[4], a6[4], a7[4])
            b[5] = SIMD8(a0[5], a1[5], a2[5], a3[5], a4[5], a5[5], a6[5], a7[5])
            b[6] = SIMD8(a0[6], a1[6], a2[6], a3[6], a4[6], a5[6], a6[6], a7[6])
            b[7] = SIMD8(a0[7], a1[7], a2[7], a3[7], a4[7], a5[7], a6[7], a7[7])
            x += 8
        }
        while x < width {
            block[x] = SIMD8(Float(p0[x]), Float(p1[x]), Float(p2[x]), Float(p3[x]),
                             Float(p4[x]), Float(p5[x]), Float(p6[x]), Float(p7[x]))
            x += 1
        }
    }

    /// Eight bytes as floats (exact).
    @inline(__always)
    static func load8(_ p: UnsafePointer<UInt8>) -> SIMD8<Float> {
        SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self)))
    }

    /// `acc[i] = Σ_k w[k] · rows[k·stride + i]` for `i < count`, skipping zero weights (the
    /// scalar order per element: 0, then each nonzero tap in ascending order).
    static func vertical(_ rows: UnsafePointer<Float>, stride: Int, weights: UnsafePointer<Float>, taps: Int,
                         count: Int, into acc: UnsafeMutablePointer<Float>) {
        typealias V = SIMD8<Float>
        let vectorEnd = count & ~7
        var i = 0
        while i < vectorEnd { UnsafeMutableRawPointer(acc + i).storeBytes(of: V(), as: V.self); i += 8 }
        while i < count { acc[i] = 0; i += 1 }
        var src = rows
        for k in 0..<taps {
            let w = weights[k]
            if w != 0 {
                let w8 = V(repeating: w)
                i = 0
                while i < vectorEnd {
                    let a = UnsafeRawPointer(acc + i).loadUnaligned(as: V.self)
                    let s = UnsafeRawPointer(src + i).loadUnaligned(as: V.self)
                    UnsafeMutableRawPointer(acc + i).storeBytes(of: a + w8 * s, as: V.self)
                    i += 8
                }
                while i < count { acc[i] += w * src[i]; i += 1 }
            }
            src += stride
        }
    }
}
