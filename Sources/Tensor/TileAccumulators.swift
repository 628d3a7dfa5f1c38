/// The accumulators of one packed-GEMM microkernel call: ``Convolution/packedTileRows`` output
/// pixels × one weight panel, two vectors a pixel for a full panel (`wide`), one for a last
/// one-vector panel.
///
/// Each is a named stored property, so that inlined into a kernel's k loop they live in
/// registers: 8 × 2 with AVX-512 (16 of the 32 zmm registers); 6 × 2 with AVX2, which with the
/// two weight vectors and one broadcast fills all 16 ymm registers; 4 × 2 on the baseline.
struct TileAccumulators {
    typealias V = PanelVector
    var c00, c10, c20, c30, c01, c11, c21, c31: V
    #if POSEKIT_FMA
    var c40, c50, c41, c51: V
    #endif
    #if POSEKIT_AVX512
    var c60, c70, c61, c71: V
    #endif

    /// Every row starts from the panel's bias: `bias[0 ..< 2V]` when `wide`, else `bias[0 ..< V]`.
    @inline(__always)
    init(bias: UnsafePointer<Float>, wide: Bool) {
        let bias0 = UnsafeRawPointer(bias).loadUnaligned(as: V.self)
        let bias1 = wide ? UnsafeRawPointer(bias + V.scalarCount).loadUnaligned(as: V.self) : V()
        (c00, c10, c20, c30, c01, c11, c21, c31) = (bias0, bias0, bias0, bias0, bias1, bias1, bias1, bias1)
        #if POSEKIT_FMA
        (c40, c50, c41, c51) = (bias0, bias0, bias1, bias1)
        #endif
        #if POSEKIT_AVX512
        (c60, c70, c61, c71) = (bias0, bias0, bias1, bias1)
        #endif
    }

    /// The epilogue: clamps to `low...high` (the bias is already in) and stores row `r` at
    /// `c + r·ldc`, for the rows below `rows` and the lanes below `columns` (fewer than the
    /// panel's only in a layer's last panel).
    @inline(__always)
    func store(rows: Int, columns: Int, wide: Bool, low: Float, high: Float, c: UnsafeMutablePointer<Float>, ldc: Int) {
        let v = V.scalarCount
        @inline(__always) func store(_ x: V, _ r: Int, _ lane0: Int) {
            guard r < rows, lane0 < columns else { return }
            let out = c + r * ldc + lane0
            let y = x.clampedLanes(low, high)
            if columns - lane0 >= v {
                UnsafeMutableRawPointer(out).storeBytes(of: y, as: V.self)
            } else {
                for i in 0..<(columns - lane0) { out[i] = y[i] }
            }
        }
        store(c00, 0, 0); store(c10, 1, 0); store(c20, 2, 0); store(c30, 3, 0)
        if wide { store(c01, 0, v); store(c11, 1, v); store(c21, 2, v); store(c31, 3, v) }
        #if POSEKIT_FMA
        store(c40, 4, 0); store(c50, 5, 0)
        if wide { store(c41, 4, v); store(c51, 5, v) }
        #endif
        #if POSEKIT_AVX512
        store(c60, 6, 0); store(c70, 7, 0)
        if wide { store(c61, 6, v); store(c71, 7, v) }
        #endif
    }
}
