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
    /// `block` holds at least `width` vectors, `floatRows` at least `8·width` floats.
    static func horizontal(_ plane: UnsafePointer<UInt8>, width: Int, rows: Range<Int>, table: ResampleWeights,
                           into temp: UnsafeMutablePointer<Float>, stride: Int,
                           block: UnsafeMutablePointer<SIMD8<Float>>, floatRows: UnsafeMutablePointer<Float>) {
        let taps = table.taps, active = table.activeCount
        table.first.withUnsafeBufferPointer { first in
            table.weights.withUnsafeBufferPointer { weights in
                let first = first.baseAddress!, weights = weights.baseAddress!
                var y0 = rows.lowerBound
                while y0 < rows.upperBound {
                    let count = min(blockRows, rows.upperBound - y0)
                    widen(plane + y0 * width, width: width, rows: count, floatRows: floatRows, into: block)
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
    /// of those rows as floats; lanes past `rows` repeat the last row. `floatRows` holds `8·width`
    /// floats of scratch.
    @inline(__always)
    static func widen(_ src: UnsafePointer<UInt8>, width: Int, rows: Int, floatRows: UnsafeMutablePointer<Float>,
                      into block: UnsafeMutablePointer<SIMD8<Float>>) {
        // Rows to floats first: a contiguous conversion loop, which vectorizes (through Int32;
        // UInt8 → Float directly compiled to scalar conversions).
        for r in 0..<blockRows {
            let s = src + min(r, rows - 1) * width, d = floatRows + r * width
            for x in 0..<width { d[x] = Float(Int32(s[x])) }
        }
        // Then 4×4 transposes (unpack and move-half shuffles); each column's eight rows are two halves.
        let raw = UnsafeMutableRawPointer(block)
        var x = 0
        while x + 4 <= width {
            for half in 0..<2 {
                let base = floatRows + 4 * half * width + x
                let a = load4(base), b = load4(base + width), c = load4(base + 2 * width), d = load4(base + 3 * width)
                let ab0 = SIMD4(a[0], b[0], a[1], b[1]), ab1 = SIMD4(a[2], b[2], a[3], b[3])
                let cd0 = SIMD4(c[0], d[0], c[1], d[1]), cd1 = SIMD4(c[2], d[2], c[3], d[3])
                let o = raw + x * 32 + half * 16
                o.storeBytes(of: SIMD4(ab0[0], ab0[1], cd0[0], cd0[1]), as: SIMD4<Float>.self)
                o.storeBytes(of: SIMD4(ab0[2], ab0[3], cd0[2], cd0[3]), toByteOffset: 32, as: SIMD4<Float>.self)
                o.storeBytes(of: SIMD4(ab1[0], ab1[1], cd1[0], cd1[1]), toByteOffset: 64, as: SIMD4<Float>.self)
                o.storeBytes(of: SIMD4(ab1[2], ab1[3], cd1[2], cd1[3]), toByteOffset: 96, as: SIMD4<Float>.self)
            }
            x += 4
        }
        while x < width {
            block[x] = SIMD8(floatRows[x], floatRows[width + x], floatRows[2 * width + x], floatRows[3 * width + x],
                             floatRows[4 * width + x], floatRows[5 * width + x], floatRows[6 * width + x],
                             floatRows[7 * width + x])
            x += 1
        }
    }

    @inline(__always)
    static func load4(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
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

    /// The scalar form of `vertical8` for one column.
    @inline(__always)
    static func vertical1(_ rows: UnsafePointer<Float>, stride: Int, weights: UnsafePointer<Float>, taps: Int) -> Float {
        var acc: Float = 0
        var src = rows
        for k in 0..<taps {
            let w = weights[k]
            if w != 0 { acc += w * src[0] }
            src += stride
        }
        return acc
    }
}
