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
                    @inline(__always) func output(_ o: Int) -> SIMD8<Float> {
                        let s = block + Int(first[o]), w = weights + o * taps
                        var acc = SIMD8<Float>()
                        for k in 0..<taps { acc = acc + SIMD8(repeating: w[k]) * s[k] }
                        return acc
                    }
                    var o0 = 0
                    if count == blockRows {
                        // Eight outputs at a time, transposed in registers: eight vector stores
                        // (one per row) instead of 64 scalar ones.
                        while o0 + 8 <= active {
                            transposeStore(output(o0), output(o0 + 1), output(o0 + 2), output(o0 + 3),
                                           output(o0 + 4), output(o0 + 5), output(o0 + 6), output(o0 + 7),
                                           to: dst + o0, stride: stride)
                            o0 += 8
                        }
                        w += o0 * taps
                    }
                    for o in o0..<active {
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

    /// Stores the 8×8 block whose column `j` is `vj` (lane = row) as eight rows of eight floats
    /// at `dst + r·stride` (unpack, 64-bit shuffle and 128-bit permute stages).
    @inline(__always)
    static func transposeStore(_ v0: SIMD8<Float>, _ v1: SIMD8<Float>, _ v2: SIMD8<Float>, _ v3: SIMD8<Float>,
                               _ v4: SIMD8<Float>, _ v5: SIMD8<Float>, _ v6: SIMD8<Float>, _ v7: SIMD8<Float>,
                               to dst: UnsafeMutablePointer<Float>, stride: Int) {
        typealias V = SIMD8<Float>
        @inline(__always) func low(_ a: V, _ b: V) -> V { V(a[0], b[0], a[1], b[1], a[4], b[4], a[5], b[5]) }
        @inline(__always) func high(_ a: V, _ b: V) -> V { V(a[2], b[2], a[3], b[3], a[6], b[6], a[7], b[7]) }
        @inline(__always) func evens(_ a: V, _ b: V) -> V { V(a[0], a[1], b[0], b[1], a[4], a[5], b[4], b[5]) }
        @inline(__always) func odds(_ a: V, _ b: V) -> V { V(a[2], a[3], b[2], b[3], a[6], a[7], b[6], b[7]) }
        @inline(__always) func lowHalves(_ a: V, _ b: V) -> V { V(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]) }
        @inline(__always) func highHalves(_ a: V, _ b: V) -> V { V(a[4], a[5], a[6], a[7], b[4], b[5], b[6], b[7]) }
        let t0 = low(v0, v1), t1 = high(v0, v1), t2 = low(v2, v3), t3 = high(v2, v3)
        let t4 = low(v4, v5), t5 = high(v4, v5), t6 = low(v6, v7), t7 = high(v6, v7)
        // s0: rows 0 and 4 of columns 0–3; s1: rows 1 and 5; s2: rows 2 and 6; s3: rows 3 and 7.
        let s0 = evens(t0, t2), s1 = odds(t0, t2), s2 = evens(t1, t3), s3 = odds(t1, t3)
        let s4 = evens(t4, t6), s5 = odds(t4, t6), s6 = evens(t5, t7), s7 = odds(t5, t7)
        @inline(__always) func store(_ x: V, _ r: Int) {
            UnsafeMutableRawPointer(dst + r * stride).storeBytes(of: x, as: V.self)
        }
        store(lowHalves(s0, s4), 0); store(lowHalves(s1, s5), 1); store(lowHalves(s2, s6), 2); store(lowHalves(s3, s7), 3)
        store(highHalves(s0, s4), 4); store(highHalves(s1, s5), 5); store(highHalves(s2, s6), 6); store(highHalves(s3, s7), 7)
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
