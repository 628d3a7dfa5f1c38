// The int8 GEMMs for aarch64 (posekit_reduced_precision.h), two copies:
//   neondot  ARMv8.2+ with the dot-product extension (`sdot`: 4 s8 products summed into each int32 lane),
//            8 rows × 8 channels (16 accumulators; `sdot` by element reads 4 groups of a row per load);
//   neon     any aarch64 (ARMv8.0): `smull` + `smlal` (two groups' s8 products summed in int16: at most
//            2·128·127 = 32512, no saturation), then `sadalp` into int32; 4 rows × 8 channels
//            (each int32 vector holds 2 channels × 2 partial sums, added pairwise as the tile is stored).
// Both are signed × signed, so the activations are stored as q' = q − 128 (s8) with zero point z − 128:
// the sums Σ(q' − z')·w are the x86 copies' Σ(q − z)·w exactly, and so are the outputs. Weights are the
// common int8 panels for 4-lane vectors (panels of 8 channels, groups of 4 input channels: [8][4] bytes).
// Only compiled on aarch64; which copy runs is decided from the hardware capabilities (`asimddp`).
#include "posekit_reduced_precision.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#include <math.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

/// Per row: the zero point and scale as on x86 (0 for a row with no negative value: 0...max over 256
/// levels; else 128 and ±127 levels), q = trunc(x/s + z + 0.5) in 0...255, stored as q − 128.
static void neon_quantize_rows(const float *a, long lda, long rows, long k, long k4, uint8_t *q_bytes,
                               float *row_scale, float *row_zero) {
    int8_t *q = (int8_t *)(void *)q_bytes;
    for (long r = 0; r < rows; r++) {
        const float *x = a + r * lda;
        int8_t *out = q + r * k4;
        float32x4_t lov = vdupq_n_f32(0), hiv = vdupq_n_f32(0);
        long i = 0;
        for (; i + 4 <= k; i += 4) {
            float32x4_t v = vld1q_f32(x + i);
            lov = vminq_f32(lov, v);
            hiv = vmaxq_f32(hiv, v);
        }
        float lo = vminvq_f32(lov), hi = vmaxvq_f32(hiv);
        for (; i < k; i++) {
            lo = x[i] < lo ? x[i] : lo;
            hi = x[i] > hi ? x[i] : hi;
        }
        float zero = lo < 0 ? 128.0f : 0.0f;
        float range = lo < 0 ? (hi > -lo ? hi : -lo) / 127.0f : hi / 255.0f;
        float scale = range > 0 && range < 3.0e38f ? range : 1.0f;
        float inverse = 1.0f / scale;
        float32x4_t inversev = vdupq_n_f32(inverse), offsetv = vdupq_n_f32(zero + 0.5f);
        float32x4_t top = vdupq_n_f32(255.0f), bottom = vdupq_n_f32(0.0f);
        int32x4_t shift = vdupq_n_s32(128);
        i = 0;
        for (; i + 4 <= k; i += 4) {
            float32x4_t v = vminq_f32(vmaxq_f32(vfmaq_f32(offsetv, vld1q_f32(x + i), inversev), bottom), top);
            int32x4_t level = vsubq_s32(vcvtq_s32_f32(v), shift);  // truncation, as x86's cvtt
            int16x4_t narrow = vmovn_s32(level);
            int8x8_t bytes = vmovn_s16(vcombine_s16(narrow, narrow));
            memcpy(out + i, &bytes, 4);
        }
        for (; i < k; i++) {
            float v = fmaf(x[i], inverse, zero + 0.5f);  // as the vector lanes: the same level in every copy
            v = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
            out[i] = (int8_t)((int32_t)v - 128);
        }
        for (; i < k4; i++) out[i] = (int8_t)((int32_t)zero - 128);
        row_scale[r] = scale;
        row_zero[r] = zero - 128.0f;
    }
}

/// y = clamp(s·t·(acc − z'·colsum) + bias) for the first `columns` lanes of 4, stored at `out`.
INLINE void neon_i8_store(int32x4_t acc, float32x4_t scale, float32x4_t zero_times_sum, float32x4_t bias,
                          float32x4_t low, float32x4_t high, long columns, float *out) {
    float32x4_t y = vfmaq_f32(bias, vsubq_f32(vcvtq_f32_s32(acc), zero_times_sum), scale);
    y = vminq_f32(vmaxq_f32(y, low), high);
    if (columns >= 4) {
        vst1q_f32(out, y);
    } else {
        float lanes[4];
        vst1q_f32(lanes, y);
        for (long i = 0; i < columns; i++) out[i] = lanes[i];
    }
}

/// The two 4-channel halves of an 8-channel panel for one row: `columns` (1...8) of them stored.
INLINE void neon_i8_store_row(int32x4_t acc0, int32x4_t acc1, float s, float z, const float *col_scale,
                              const float *col_sum, const float *bias, float low, float high, long columns, float *out) {
    float32x4_t sv = vdupq_n_f32(s), zv = vdupq_n_f32(z), lowv = vdupq_n_f32(low), highv = vdupq_n_f32(high);
    neon_i8_store(acc0, vmulq_f32(sv, vld1q_f32(col_scale)), vmulq_f32(zv, vld1q_f32(col_sum)), vld1q_f32(bias),
                  lowv, highv, columns, out);
    if (columns > 4)
        neon_i8_store(acc1, vmulq_f32(sv, vld1q_f32(col_scale + 4)), vmulq_f32(zv, vld1q_f32(col_sum + 4)),
                      vld1q_f32(bias + 4), lowv, highv, columns - 4, out + 4);
}

#define NEON_ROWS8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define NEON_ROWS4(X) X(0) X(1) X(2) X(3)

// ---- sdot: 8 rows × 8 channels ----
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("arch=armv8.2-a+dotprod"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("arch=armv8.2-a+dotprod")
#endif

/// `width` (4 or 8) channels of one panel for `rows` (≤ 8) rows; rows past `rows` re-read row 0.
INLINE void neondot_tile(const int8_t *q, long k4, long rows, const float *row_scale, const float *row_zero,
                         const int8_t *panel, long width, const float *col_scale, const float *col_sum,
                         const float *bias, float low, float high, float *c, long ldc, long columns) {
#define DOT_DECLARE(r) int32x4_t a0_##r = vdupq_n_s32(0), a1_##r = vdupq_n_s32(0); \
    const int8_t *q_##r = q + ((r) < rows ? (r) : 0) * k4;
    NEON_ROWS8(DOT_DECLARE)
    const int8_t *b = panel;
    long kk = 0;
    // Four groups per row load: `sdot` by element takes group `l` from lane l of the row's 16 bytes.
#define DOT_LANE(r, l) a0_##r = vdotq_laneq_s32(a0_##r, w0_##l, x_##r, l); \
    if (width > 4) a1_##r = vdotq_laneq_s32(a1_##r, w1_##l, x_##r, l);
#define DOT_STEP16(r) { int8x16_t x_##r = vld1q_s8(q_##r + kk); \
    DOT_LANE(r, 0) DOT_LANE(r, 1) DOT_LANE(r, 2) DOT_LANE(r, 3) }
    for (; kk + 16 <= k4; kk += 16) {
        int8x16_t w0_0 = vld1q_s8(b), w1_0 = width > 4 ? vld1q_s8(b + 16) : w0_0;
        int8x16_t w0_1 = vld1q_s8(b + 4 * width), w1_1 = width > 4 ? vld1q_s8(b + 4 * width + 16) : w0_1;
        int8x16_t w0_2 = vld1q_s8(b + 8 * width), w1_2 = width > 4 ? vld1q_s8(b + 8 * width + 16) : w0_2;
        int8x16_t w0_3 = vld1q_s8(b + 12 * width), w1_3 = width > 4 ? vld1q_s8(b + 12 * width + 16) : w0_3;
        NEON_ROWS8(DOT_STEP16)
        b += 16 * width;
    }
#define DOT_STEP4(r) { int32_t x; memcpy(&x, q_##r + kk, 4); int8x16_t xv = vreinterpretq_s8_s32(vdupq_n_s32(x)); \
    a0_##r = vdotq_s32(a0_##r, w0, xv); if (width > 4) a1_##r = vdotq_s32(a1_##r, w1, xv); }
    for (; kk < k4; kk += 4) {
        int8x16_t w0 = vld1q_s8(b), w1 = width > 4 ? vld1q_s8(b + 16) : w0;
        NEON_ROWS8(DOT_STEP4)
        b += 4 * width;
    }
#define DOT_STORE(r) if ((r) < rows) neon_i8_store_row(a0_##r, a1_##r, row_scale[r], row_zero[r], col_scale, col_sum, \
                                                      bias, low, high, columns, c + (r) * ldc);
    NEON_ROWS8(DOT_STORE)
#undef DOT_DECLARE
#undef DOT_LANE
#undef DOT_STEP16
#undef DOT_STEP4
#undef DOT_STORE
}

static void neondot_row_tile(const uint8_t *q_bytes, long k4, long rows, const float *row_scale, const float *row_zero,
                             const int8_t *panels, const float *col_scale, const float *col_sum, const float *bias,
                             long ldc, long col0, long col1, float low, float high, float *c) {
    const int8_t *q = (const int8_t *)(const void *)q_bytes;
    for (long column = col0; column < col1;) {
        long remaining = col1 - column, width = remaining > 4 ? 8 : 4;
        neondot_tile(q, k4, rows, row_scale, row_zero, panels + k4 * column, width, col_scale + column,
                     col_sum + column, bias + column, low, high, c + column, ldc, remaining < width ? remaining : width);
        column += width;
    }
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

const posekit_int8_gemm_kernel posekit_neondot_int8_table = {
    8, 4, neon_quantize_rows, neondot_row_tile, 4, 1,
};

// ---- smull/smlal/sadalp: 4 rows × 8 channels ----

/// `width` (4 or 8) channels of one panel for `rows` (≤ 4) rows. Accumulator `aP_r` holds channels
/// 2P and 2P + 1 of the panel, two partial sums each (lanes: 2P first and second pair, 2P + 1 ...).
INLINE void neon_tile(const int8_t *q, long k4, long rows, const float *row_scale, const float *row_zero,
                      const int8_t *panel, long width, const float *col_scale, const float *col_sum,
                      const float *bias, float low, float high, float *c, long ldc, long columns) {
#define MUL_DECLARE(r) int32x4_t p0_##r = vdupq_n_s32(0), p1_##r = p0_##r, p2_##r = p0_##r, p3_##r = p0_##r; \
    const int8_t *q_##r = q + ((r) < rows ? (r) : 0) * k4;
    NEON_ROWS4(MUL_DECLARE)
    const int8_t *b = panel;
    long kk = 0;
    // Two groups: each int16 lane sums one channel-and-offset's products of both (|.| ≤ 32512).
#define MUL_STEP8(r) { int32_t x0, x1; memcpy(&x0, q_##r + kk, 4); memcpy(&x1, q_##r + kk + 4, 4); \
    int8x16_t xa = vreinterpretq_s8_s32(vdupq_n_s32(x0)), xb = vreinterpretq_s8_s32(vdupq_n_s32(x1)); \
    p0_##r = vpadalq_s16(p0_##r, vmlal_s8(vmull_s8(vget_low_s8(wa0), vget_low_s8(xa)), vget_low_s8(wb0), vget_low_s8(xb))); \
    p1_##r = vpadalq_s16(p1_##r, vmlal_high_s8(vmull_high_s8(wa0, xa), wb0, xb)); \
    if (width > 4) { \
        p2_##r = vpadalq_s16(p2_##r, vmlal_s8(vmull_s8(vget_low_s8(wa1), vget_low_s8(xa)), vget_low_s8(wb1), vget_low_s8(xb))); \
        p3_##r = vpadalq_s16(p3_##r, vmlal_high_s8(vmull_high_s8(wa1, xa), wb1, xb)); } }
    for (; kk + 8 <= k4; kk += 8) {
        int8x16_t wa0 = vld1q_s8(b), wa1 = width > 4 ? vld1q_s8(b + 16) : wa0;
        int8x16_t wb0 = vld1q_s8(b + 4 * width), wb1 = width > 4 ? vld1q_s8(b + 4 * width + 16) : wb0;
        NEON_ROWS4(MUL_STEP8)
        b += 8 * width;
    }
#define MUL_STEP4(r) { int32_t x0; memcpy(&x0, q_##r + kk, 4); int8x16_t xa = vreinterpretq_s8_s32(vdupq_n_s32(x0)); \
    p0_##r = vpadalq_s16(p0_##r, vmull_s8(vget_low_s8(wa0), vget_low_s8(xa))); \
    p1_##r = vpadalq_s16(p1_##r, vmull_high_s8(wa0, xa)); \
    if (width > 4) { p2_##r = vpadalq_s16(p2_##r, vmull_s8(vget_low_s8(wa1), vget_low_s8(xa))); \
                     p3_##r = vpadalq_s16(p3_##r, vmull_high_s8(wa1, xa)); } }
    for (; kk < k4; kk += 4) {
        int8x16_t wa0 = vld1q_s8(b), wa1 = width > 4 ? vld1q_s8(b + 16) : wa0;
        NEON_ROWS4(MUL_STEP4)
        b += 4 * width;
    }
#define MUL_STORE(r) if ((r) < rows) neon_i8_store_row(vpaddq_s32(p0_##r, p1_##r), vpaddq_s32(p2_##r, p3_##r), \
        row_scale[r], row_zero[r], col_scale, col_sum, bias, low, high, columns, c + (r) * ldc);
    NEON_ROWS4(MUL_STORE)
#undef MUL_DECLARE
#undef MUL_STEP8
#undef MUL_STEP4
#undef MUL_STORE
}

static void neon_row_tile(const uint8_t *q_bytes, long k4, long rows, const float *row_scale, const float *row_zero,
                          const int8_t *panels, const float *col_scale, const float *col_sum, const float *bias,
                          long ldc, long col0, long col1, float low, float high, float *c) {
    const int8_t *q = (const int8_t *)(const void *)q_bytes;
    for (long column = col0; column < col1;) {
        long remaining = col1 - column, width = remaining > 4 ? 8 : 4;
        neon_tile(q, k4, rows, row_scale, row_zero, panels + k4 * column, width, col_scale + column,
                  col_sum + column, bias + column, low, high, c + column, ldc, remaining < width ? remaining : width);
        column += width;
    }
}

const posekit_int8_gemm_kernel posekit_neon_int8_table = {
    4, 4, neon_quantize_rows, neon_row_tile, 4, 1,
};

#endif
