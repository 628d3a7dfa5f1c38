// The reduced-precision GEMMs (posekit_reduced_precision.h): int8 for AVX512-VNNI (12 rows × 2 zmm),
// AVX-VNNI and AVX2 without VNNI (6 rows × 2 ymm), bf16 for AVX512-BF16 (12 rows × 2 zmm), and the
// weight packing they share (plain C, once per layer at load). The aarch64 int8 copies are in
// int8_gemm_neon.c.
#include "posekit_reduced_precision.h"
#include <math.h>
#include <stddef.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>  // before the target pragmas: the intrinsics carry their own targets
#endif

uint16_t posekit_bf16_from_float(float x) {
    uint32_t bits;
    memcpy(&bits, &x, 4);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40);  // NaN stays a (quiet) NaN
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

/// Quantizes per output channel and packs into panels of 2·lanes channels, groups of `group` input
/// channels, values `bytes` wide (posekit_reduced_precision.h).
static void pack_int8(const float *w, long k, long n, long lanes, long group, long bytes, void *panels,
                      float *col_scale, float *col_sum) {
    long kp = (k + group - 1) / group * group, padded = (n + lanes - 1) / lanes * lanes;
    for (long j = 0; j < padded; j++) {
        float largest = 0;
        for (long i = 0; j < n && i < k; i++) largest = fmaxf(largest, fabsf(w[i * n + j]));
        col_scale[j] = largest > 0 ? largest / 127.0f : 1.0f;
        col_sum[j] = 0;
    }
    for (long column = 0; column < padded;) {
        long width = padded - column < 2 * lanes ? padded - column : 2 * lanes;
        long panel = kp * column;  // every earlier panel is full width
        for (long g = 0; g < kp; g += group) {
            for (long jj = 0; jj < width; jj++) {
                long j = column + jj;
                for (long e = 0; e < group; e++) {
                    long i = g + e;
                    int value = 0;
                    if (i < k && j < n) {
                        float v = rintf(w[i * n + j] / col_scale[j]);
                        value = (int)(v > 127 ? 127 : (v < -127 ? -127 : v));
                        col_sum[j] += value;
                    }
                    long index = panel + g * width + jj * group + e;
                    if (bytes == 1) ((int8_t *)panels)[index] = (int8_t)value;
                    else ((int16_t *)panels)[index] = (int16_t)value;
                }
            }
        }
        column += width;
    }
}

void posekit_pack_int8_panels(const float *w, long k, long n, long lanes, int8_t *panels,
                              float *col_scale, float *col_sum) {
    pack_int8(w, k, n, lanes, 4, 1, panels, col_scale, col_sum);
}

void posekit_pack_int8_panels_for(const posekit_int8_gemm_kernel *kernel, const float *w, long k, long n,
                                  void *panels, float *col_scale, float *col_sum) {
    pack_int8(w, k, n, kernel->vector_lanes, kernel->k_group, kernel->element_bytes, panels, col_scale, col_sum);
}

void posekit_pack_bf16_panels(const float *w, long k, long n, long lanes, uint16_t *panels) {
    long k2 = (k + 1) / 2 * 2, padded = (n + lanes - 1) / lanes * lanes;
    for (long column = 0; column < padded;) {
        long width = padded - column < 2 * lanes ? padded - column : 2 * lanes;
        uint16_t *panel = panels + k2 * column;
        for (long g = 0; g < k2; g += 2) {
            for (long jj = 0; jj < width; jj++) {
                long j = column + jj;
                for (long e = 0; e < 2; e++) {
                    long i = g + e;
                    panel[g * width + jj * 2 + e] = i < k && j < n ? posekit_bf16_from_float(w[i * n + j]) : 0;
                }
            }
        }
        column += width;
    }
}

#if defined(__x86_64__)

// ---- int8, AVX512-VNNI: 24 accumulators + 2 weight vectors + 1 broadcast of the 32 zmm ----
#pragma clang attribute push(__attribute__((target("avx,avx2,fma,avx512f,avx512bw,avx512dq,avx512vl,avx512vnni"))), apply_to = function)
#define VEC_BITS 512
#define TILE_ROWS 12
#define KERNEL(x) posekit_avx512vnni_##x
#include "int8_gemm_template.h"
#undef VEC_BITS
#undef TILE_ROWS
#undef KERNEL
#undef FOR_ROWS
#pragma clang attribute pop

// ---- int8, AVX-VNNI: 12 accumulators + 2 weight vectors + 1 broadcast of the 16 ymm ----
#pragma clang attribute push(__attribute__((target("avx,avx2,fma,avxvnni"))), apply_to = function)
#define VEC_BITS 256
#define TILE_ROWS 6
#define KERNEL(x) posekit_avxvnni_##x
#include "int8_gemm_template.h"
#undef VEC_BITS
#undef TILE_ROWS
#undef KERNEL
#undef FOR_ROWS
#pragma clang attribute pop

// ---- int8, AVX2 without VNNI: `vpmaddwd` on 16-bit operands, 12 accumulators + 2 weight vectors + 1 broadcast ----
// (Zen 1 runs `vpmaddwd` ymm on one pipe at 16 products per 2 cycles, the rate of its two 128-bit FMA pipes;
// CPUs with two integer multiply pipes, Intel since Skylake and Zen 3, run twice fp32's rate: docs/speed.md.)
#pragma clang attribute push(__attribute__((target("avx,avx2,fma"))), apply_to = function)
#define VEC_BITS 256
#define TILE_ROWS 6
#define MADD16 1
#define KERNEL(x) posekit_avx2madd_##x
#include "int8_gemm_template.h"
#undef VEC_BITS
#undef TILE_ROWS
#undef MADD16
#undef KERNEL
#undef FOR_ROWS
#pragma clang attribute pop

// ---- bf16, AVX512-BF16: 12 rows × 2 zmm, `vdpbf16ps` sums each pair of products into fp32 ----
#pragma clang attribute push(__attribute__((target("avx,avx2,fma,avx512f,avx512bw,avx512dq,avx512vl,avx512bf16"))), apply_to = function)
#define BF_LANES 16
#define BF_INLINE static inline __attribute__((always_inline))
#define BF_FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define BF_ROWS 12

BF_INLINE void bf16_store(__m512 acc, __m512 low, __m512 high, long columns, float *out) {
    __m512 y = _mm512_min_ps(_mm512_max_ps(acc, low), high);
    if (columns >= BF_LANES) {
        _mm512_storeu_ps(out, y);
    } else {
        _mm512_mask_storeu_ps(out, (__mmask16)((1u << columns) - 1), y);
    }
}

#define BF_DECLARE(r) __m512 acc0_##r = bias0, acc1_##r = bias1; \
    const uint16_t *a_##r = a + ((r) < rows ? (r) : 0) * k2;
#define BF_STEP_WIDE(r) { int32_t x; memcpy(&x, a_##r + kk, 4); __m512bh xv = (__m512bh)_mm512_set1_epi32(x); \
    acc0_##r = _mm512_dpbf16_ps(acc0_##r, xv, w0); acc1_##r = _mm512_dpbf16_ps(acc1_##r, xv, w1); }
#define BF_STEP_NARROW(r) { int32_t x; memcpy(&x, a_##r + kk, 4); \
    acc0_##r = _mm512_dpbf16_ps(acc0_##r, (__m512bh)_mm512_set1_epi32(x), w0); }
#define BF_STORE(r) if ((r) < rows) { bf16_store(acc0_##r, lowv, highv, columns, c + (r) * ldc); \
    if (wide) bf16_store(acc1_##r, lowv, highv, columns - BF_LANES, c + (r) * ldc + BF_LANES); }

BF_INLINE void bf16_tile(int wide, const uint16_t *a, long k2, long rows, const uint16_t *panel, long panel_width,
                         const float *bias, float low, float high, float *c, long ldc, long columns) {
    __m512 bias0 = _mm512_loadu_ps(bias), bias1 = wide ? _mm512_loadu_ps(bias + BF_LANES) : bias0;
    __m512 lowv = _mm512_set1_ps(low), highv = _mm512_set1_ps(high);
    BF_FOR_ROWS(BF_DECLARE)
    const uint16_t *b = panel;
    if (wide) {
        for (long kk = 0; kk < k2; kk += 2) {
            __m512bh w0 = (__m512bh)_mm512_loadu_si512((const void *)b);
            __m512bh w1 = (__m512bh)_mm512_loadu_si512((const void *)(b + 2 * BF_LANES));
            BF_FOR_ROWS(BF_STEP_WIDE)
            b += 2 * panel_width;
        }
    } else {
        for (long kk = 0; kk < k2; kk += 2) {
            __m512bh w0 = (__m512bh)_mm512_loadu_si512((const void *)b);
            BF_FOR_ROWS(BF_STEP_NARROW)
            b += 2 * panel_width;
        }
    }
    BF_FOR_ROWS(BF_STORE)
}

static __attribute__((noinline)) void bf16_narrow_tile(const uint16_t *a, long k2, long rows, const uint16_t *panel,
                                                       const float *bias, float low, float high, float *c, long ldc, long columns) {
    bf16_tile(0, a, k2, rows, panel, BF_LANES, bias, low, high, c, ldc, columns);
}

static void bf16_row_tile(const uint16_t *a, long k2, long rows, const uint16_t *panels, const float *bias,
                          long ldc, long col0, long col1, float low, float high, float *c) {
    for (long column = col0; column < col1;) {
        long remaining = col1 - column;
        const uint16_t *panel = panels + k2 * column;
        if (remaining > BF_LANES) {
            bf16_tile(1, a, k2, rows, panel, 2 * BF_LANES, bias + column, low, high, c + column, ldc,
                      remaining < 2 * BF_LANES ? remaining : 2 * BF_LANES);
            column += 2 * BF_LANES;
        } else {
            bf16_narrow_tile(a, k2, rows, panel, bias + column, low, high, c + column, ldc, remaining);
            column += BF_LANES;
        }
    }
}

/// Rows of floats to bf16 with `vcvtne2ps2bf16` (nearest even, as posekit_bf16_from_float).
static void bf16_rows(const float *a, long lda, long rows, long k, long k2, uint16_t *out) {
    for (long r = 0; r < rows; r++) {
        const float *x = a + r * lda;
        uint16_t *y = out + r * k2;
        long i = 0;
        for (; i + 32 <= k; i += 32) {
            __m512bh pair = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(x + i));
            _mm512_storeu_si512((void *)(y + i), (__m512i)pair);
        }
        for (; i < k; i++) y[i] = posekit_bf16_from_float(x[i]);
        for (; i < k2; i++) y[i] = 0;
    }
}

static const posekit_bf16_gemm_kernel posekit_avx512bf16_table = { BF_ROWS, BF_LANES, bf16_rows, bf16_row_tile };
#pragma clang attribute pop

#endif

#if defined(__aarch64__)
extern const posekit_int8_gemm_kernel posekit_neondot_int8_table, posekit_neon_int8_table;
#endif

const posekit_int8_gemm_kernel *posekit_int8_gemm_kernel_for(int variant) {
#if defined(__x86_64__)
    switch (variant) {
    case POSEKIT_INT8_AVX512_VNNI: return &posekit_avx512vnni_int8_table;
    case POSEKIT_INT8_AVX_VNNI: return &posekit_avxvnni_int8_table;
    case POSEKIT_INT8_AVX2: return &posekit_avx2madd_int8_table;
    default: return NULL;
    }
#elif defined(__aarch64__)
    switch (variant) {
    case POSEKIT_INT8_NEON_DOT: return &posekit_neondot_int8_table;
    case POSEKIT_INT8_NEON: return &posekit_neon_int8_table;
    default: return NULL;
    }
#else
    (void)variant;
    return NULL;
#endif
}

const posekit_bf16_gemm_kernel *posekit_bf16_gemm_kernel_for(int variant) {
#if defined(__x86_64__)
    return variant == POSEKIT_BF16_AVX512 ? &posekit_avx512bf16_table : NULL;
#else
    (void)variant;
    return NULL;
#endif
}
