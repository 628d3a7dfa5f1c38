// The int8 GEMM tile for x86 (u8 activations × s8 weights, int32 sums), written once and included by one
// file per instruction set, which defines before including it:
//   VEC_BITS    512 (AVX512-VNNI) or 256 (AVX-VNNI, or AVX2 without VNNI when MADD16 is defined)
//   TILE_ROWS   rows per tile (accumulators: 2·TILE_ROWS vectors, which must fit the registers)
//   KERNEL(x)   the name of this copy's function x
//   MADD16      (optional) 16-bit products: `vpmaddwd` on activations widened to u16 and weights to s16
//               (2 products summed per int32 lane), for AVX2 CPUs without VNNI. Exact, like `vpdpbusd`:
//               |q·w| ≤ 255·127, so no saturation (`vpmaddubsw`'s int16 pair sums would saturate at 8 bits).
// inside a `#pragma clang attribute push(__attribute__((target(...))))`. Layouts:
// posekit_reduced_precision.h (activations and panels of GROUP input channels: 4 bytes, or 2 × 16 bits).
#include <immintrin.h>  // (already included by the .c file, before its target pragma)
#include <stdint.h>
#include <string.h>

#if VEC_BITS == 512
#define ivec_t __m512i
#define fvec_t __m512
#define LANES 16
#define LOADI(p) _mm512_loadu_si512((const void *)(p))
#define SET1I(x) _mm512_set1_epi32(x)
#define DPBUSD(acc, a, b) _mm512_dpbusd_epi32(acc, a, b)
#define TOFLOAT(x) _mm512_cvtepi32_ps(x)
#define LOADF(p) _mm512_loadu_ps(p)
#define SET1F(x) _mm512_set1_ps(x)
#define FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define MINF(a, b) _mm512_min_ps(a, b)
#define MAXF(a, b) _mm512_max_ps(a, b)
#define TRUNCATE(v) _mm512_cvttps_epi32(v)
#define STORE_ACT(p, v) _mm_storeu_si128((__m128i *)(p), _mm512_cvtepi32_epi8(v))
#else
#define ivec_t __m256i
#define fvec_t __m256
#define LANES 8
#define LOADI(p) _mm256_loadu_si256((const __m256i *)(p))
#define SET1I(x) _mm256_set1_epi32(x)
#if defined(MADD16)
/// Two u16 × s16 products summed into each int32 lane (`vpmaddwd`), then accumulated.
#define DPBUSD(acc, a, b) _mm256_add_epi32(acc, _mm256_madd_epi16(a, b))
#else
#define DPBUSD(acc, a, b) _mm256_dpbusd_avx_epi32(acc, a, b)
#endif
#define TOFLOAT(x) _mm256_cvtepi32_ps(x)
#define LOADF(p) _mm256_loadu_ps(p)
#define SET1F(x) _mm256_set1_ps(x)
#define FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define MINF(a, b) _mm256_min_ps(a, b)
#define MAXF(a, b) _mm256_max_ps(a, b)
#define TRUNCATE(v) _mm256_cvttps_epi32(v)
#if defined(MADD16)
/// 8 int32 lanes in 0...255 to 8 u16 (unsigned saturating pack).
#define STORE_ACT(p, v) do { __m256i w_ = (v); \
    _mm_storeu_si128((__m128i *)(p), _mm_packus_epi32(_mm256_castsi256_si128(w_), _mm256_extracti128_si256(w_, 1))); } while (0)
#else
/// 8 int32 lanes in 0...255 to 8 bytes (unsigned saturating packs).
#define STORE_ACT(p, v) do { __m256i w_ = (v); \
    __m128i h_ = _mm_packus_epi32(_mm256_castsi256_si128(w_), _mm256_extracti128_si256(w_, 1)); \
    _mm_storel_epi64((__m128i *)(p), _mm_packus_epi16(h_, h_)); } while (0)
#endif
#endif

#if defined(MADD16)
#define act_t uint16_t    // one quantized activation (0...255), widened
#define wgt_t int16_t     // one quantized weight (−127...127), widened
#define GROUP 2           // input channels per 32-bit broadcast and per int32 lane
#else
#define act_t uint8_t
#define wgt_t int8_t
#define GROUP 4
#endif

#define INLINE static inline __attribute__((always_inline))

#if TILE_ROWS == 6
#define FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#elif TILE_ROWS == 8
#define FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#elif TILE_ROWS == 12
#define FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#else
#error "TILE_ROWS must be 6, 8 or 12"
#endif

/// y = clamp(s·t·(acc − z·colsum) + bias) for the first `columns` lanes, stored at `out`.
/// (max then min: a NaN from the arithmetic cannot arise, the sums are integers.)
INLINE void KERNEL(i8_store)(ivec_t acc, fvec_t scale, fvec_t zero_times_sum, fvec_t bias,
                             fvec_t low, fvec_t high, long columns, float *out) {
    fvec_t y = FMA(TOFLOAT(acc) - zero_times_sum, scale, bias);
    y = MINF(MAXF(y, low), high);
    if (columns >= LANES) {
        memcpy(out, &y, sizeof(y));
    } else {
        float lanes[LANES];
        memcpy(lanes, &y, sizeof(y));
        for (long i = 0; i < columns; i++) out[i] = lanes[i];
    }
}

#define I8_DECLARE(r) ivec_t acc0_##r = SET1I(0), acc1_##r = SET1I(0); \
    const act_t *q_##r = q + ((r) < rows ? (r) : 0) * k4;
#define I8_STEP_WIDE(r) { int32_t x; memcpy(&x, q_##r + kk, 4); ivec_t xv = SET1I(x); \
    acc0_##r = DPBUSD(acc0_##r, xv, w0); acc1_##r = DPBUSD(acc1_##r, xv, w1); }
#define I8_STEP_NARROW(r) { int32_t x; memcpy(&x, q_##r + kk, 4); acc0_##r = DPBUSD(acc0_##r, SET1I(x), w0); }
#define I8_STORE(r) if ((r) < rows) { \
        fvec_t s = SET1F(row_scale[r]), z = SET1F(row_zero[r]); \
        KERNEL(i8_store)(acc0_##r, s * scale0, z * sum0, bias0, lowv, highv, columns, c + (r) * ldc); \
        if (wide) KERNEL(i8_store)(acc1_##r, s * scale1, z * sum1, bias1, lowv, highv, columns - LANES, c + (r) * ldc + LANES); }

/// One tile: `rows` rows × one panel (`wide`: 2 vectors of channels, else 1), `columns` lanes stored.
/// Rows past `rows` re-read row 0 and are not stored.
INLINE void KERNEL(i8_tile)(
    int wide, const act_t *q, long k4, long rows, const float *row_scale, const float *row_zero,
    const wgt_t *panel, long panel_width, const float *col_scale, const float *col_sum, const float *bias,
    float low, float high, float *c, long ldc, long columns)
{
    FOR_ROWS(I8_DECLARE)
    const wgt_t *b = panel;
    if (wide) {
        for (long kk = 0; kk < k4; kk += GROUP) {
            ivec_t w0 = LOADI(b), w1 = LOADI(b + GROUP * LANES);
            FOR_ROWS(I8_STEP_WIDE)
            b += GROUP * panel_width;
        }
    } else {
        for (long kk = 0; kk < k4; kk += GROUP) {
            ivec_t w0 = LOADI(b);
            FOR_ROWS(I8_STEP_NARROW)
            b += GROUP * panel_width;
        }
    }
    fvec_t scale0 = LOADF(col_scale), sum0 = LOADF(col_sum), bias0 = LOADF(bias);
    fvec_t scale1 = wide ? LOADF(col_scale + LANES) : scale0;
    fvec_t sum1 = wide ? LOADF(col_sum + LANES) : sum0, bias1 = wide ? LOADF(bias + LANES) : bias0;
    fvec_t lowv = SET1F(low), highv = SET1F(high);
    FOR_ROWS(I8_STORE)
}

static __attribute__((noinline)) void KERNEL(i8_narrow_tile)(
    const act_t *q, long k4, long rows, const float *row_scale, const float *row_zero,
    const wgt_t *panel, const float *col_scale, const float *col_sum, const float *bias,
    float low, float high, float *c, long ldc, long columns)
{
    KERNEL(i8_tile)(0, q, k4, rows, row_scale, row_zero, panel, LANES, col_scale, col_sum, bias, low, high, c, ldc, columns);
}

/// (`q` and `panels` are this copy's act_t and wgt_t, passed as bytes through the table's common type.)
static void KERNEL(i8_row_tile)(
    const uint8_t *q_bytes, long k4, long rows, const float *row_scale, const float *row_zero,
    const int8_t *panel_bytes, const float *col_scale, const float *col_sum, const float *bias,
    long ldc, long col0, long col1, float low, float high, float *c)
{
    const act_t *q = (const act_t *)(const void *)q_bytes;
    const wgt_t *panels = (const wgt_t *)(const void *)panel_bytes;
    for (long column = col0; column < col1;) {
        long remaining = col1 - column;
        const wgt_t *panel = panels + k4 * column;
        if (remaining > LANES) {
            KERNEL(i8_tile)(1, q, k4, rows, row_scale, row_zero, panel, 2 * LANES, col_scale + column, col_sum + column,
                            bias + column, low, high, c + column, ldc, remaining < 2 * LANES ? remaining : 2 * LANES);
            column += 2 * LANES;
        } else {
            KERNEL(i8_narrow_tile)(q, k4, rows, row_scale, row_zero, panel, col_scale + column, col_sum + column,
                                   bias + column, low, high, c + column, ldc, remaining);
            column += LANES;
        }
    }
}

/// Per row: the range decides the zero point (0 for a row with no negative value, which ReLU and
/// ReLU6 outputs always are: all 256 levels for 0...max; else 128 and ±127 levels), then
/// q = round(x/s) + z (halves up, as truncating x/s + z + 0.5 ≥ 0). A row of zeros gets scale 1
/// (every q = z). Vector passes: this runs once per GEMM row, ahead of K/4 dot products per output.
static void KERNEL(quantize_rows)(
    const float *a, long lda, long rows, long k, long k4, uint8_t *q_bytes, float *row_scale, float *row_zero)
{
    act_t *q = (act_t *)(void *)q_bytes;
    for (long r = 0; r < rows; r++) {
        const float *x = a + r * lda;
        act_t *out = q + r * k4;
        fvec_t lov = SET1F(0), hiv = SET1F(0);
        long i = 0;
        for (; i + LANES <= k; i += LANES) {
            fvec_t v = LOADF(x + i);
            lov = MINF(lov, v);
            hiv = MAXF(hiv, v);
        }
        float lanes_lo[LANES], lanes_hi[LANES];
        memcpy(lanes_lo, &lov, sizeof(lov));
        memcpy(lanes_hi, &hiv, sizeof(hiv));
        float lo = 0, hi = 0;
        for (long l = 0; l < LANES; l++) {
            lo = lanes_lo[l] < lo ? lanes_lo[l] : lo;
            hi = lanes_hi[l] > hi ? lanes_hi[l] : hi;
        }
        for (; i < k; i++) {
            lo = x[i] < lo ? x[i] : lo;
            hi = x[i] > hi ? x[i] : hi;
        }
        float zero = lo < 0 ? 128.0f : 0.0f;
        float range = lo < 0 ? (hi > -lo ? hi : -lo) / 127.0f : hi / 255.0f;
        float scale = range > 0 && range < 3.0e38f ? range : 1.0f;
        float inverse = 1.0f / scale;
        fvec_t inversev = SET1F(inverse), offsetv = SET1F(zero + 0.5f), top = SET1F(255.0f), bottom = SET1F(0.0f);
        i = 0;
        for (; i + LANES <= k; i += LANES) {
            fvec_t v = MINF(MAXF(FMA(LOADF(x + i), inversev, offsetv), bottom), top);
            STORE_ACT(out + i, TRUNCATE(v));
        }
        for (; i < k; i++) {
            float v = fmaf(x[i], inverse, zero + 0.5f);  // as the vector lanes: the same level in every copy
            v = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
            out[i] = (act_t)(int32_t)v;
        }
        for (; i < k4; i++) out[i] = (act_t)zero;
        row_scale[r] = scale;
        row_zero[r] = zero;
    }
}

const posekit_int8_gemm_kernel KERNEL(int8_table) = {
    TILE_ROWS, LANES, KERNEL(quantize_rows), KERNEL(i8_row_tile), GROUP, sizeof(act_t),
};

#undef ivec_t
#undef fvec_t
#undef LANES
#undef LOADI
#undef SET1I
#undef DPBUSD
#undef TOFLOAT
#undef LOADF
#undef SET1F
#undef FMA
#undef MINF
#undef MAXF
#undef TRUNCATE
#undef STORE_ACT
#undef GROUP
#undef act_t
#undef wgt_t
