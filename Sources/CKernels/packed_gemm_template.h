// The packed GEMM microkernel, written once with the compiler's vector extensions and included by
// one file per instruction set, which defines before including it:
//   VEC_BYTES   bytes of one vector (16, 32, 64)
//   TILE_ROWS   rows per tile (accumulators: 2·TILE_ROWS vectors, which must fit the registers)
//   KERNEL(x)   the name of this copy's function x
// and wraps the include in `#pragma clang attribute push(__attribute__((target(...))))`, so every
// function here (the always-inline helpers too) is compiled for that instruction set.
// `acc += x * w` is contracted to a fused multiply-add where the target has FMA (clang's default
// -ffp-contract=on); on SSE2 it is a multiply and an add.
#include <stdint.h>
#include <string.h>

#define LANES (VEC_BYTES / 4)
typedef float vec_t __attribute__((vector_size(VEC_BYTES)));
typedef int32_t ivec_t __attribute__((vector_size(VEC_BYTES)));
typedef float vec_unaligned_t __attribute__((vector_size(VEC_BYTES), aligned(4)));

#define LOAD(p) (*(const vec_unaligned_t *)(p))
#define INLINE static inline __attribute__((always_inline))

/// Each lane clamped to low...high; NaN lanes pass through (as Swift's `clampedLanes`).
INLINE vec_t KERNEL(clamp)(vec_t x, vec_t low, vec_t high) {
    ivec_t below = x < low, above = x > high;
    ivec_t bits = (ivec_t)x;
    bits = (bits & ~below) | ((ivec_t)low & below);
    bits = (bits & ~above) | ((ivec_t)high & above);
    return (vec_t)bits;
}

/// Stores the first `columns` lanes of the epilogue of x at `out` (posekit_kernels.h): + the
/// residual at `residual` (when non-NULL), clamp, PReLU with the slopes at `slopes` (when
/// non-NULL). The same operations in the same order as the separate add and PReLU kernels, so the
/// values are theirs. A partial vector reads only its `columns` residual values.
INLINE void KERNEL(store)(vec_t x, long columns, vec_t low, vec_t high, const float *residual,
                          const float *slopes, float *out) {
    if (residual) {
        if (columns >= LANES) {
            x += LOAD(residual);
        } else {
            vec_t r = {};
            for (long i = 0; i < columns; i++) r[i] = residual[i];
            x += r;
        }
    }
    vec_t y = KERNEL(clamp)(x, low, high);
    if (slopes) {
        vec_t zero = {}, infinity = zero + __builtin_inff();
        y = KERNEL(clamp)(y, zero, infinity) + LOAD(slopes) * KERNEL(clamp)(y, -infinity, zero);
    }
    if (columns >= LANES) {
        memcpy(out, &y, sizeof(y));
    } else {
        for (long i = 0; i < columns; i++) out[i] = y[i];
    }
}

// Statement macros over the tile's rows: R(n) expands its body for rows 0..<TILE_ROWS.
#if TILE_ROWS == 4
#define FOR_ROWS(X) X(0) X(1) X(2) X(3)
#elif TILE_ROWS == 6
#define FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define MORE_ROW_CASES(CALL) case 5: CALL(5); break;
#elif TILE_ROWS == 8
#define FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define MORE_ROW_CASES(CALL) case 5: CALL(5); break; case 6: CALL(6); break; case 7: CALL(7); break;
#elif TILE_ROWS == 12
#define FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define MORE_ROW_CASES(CALL) case 5: CALL(5); break; case 6: CALL(6); break; case 7: CALL(7); break; \
    case 8: CALL(8); break; case 9: CALL(9); break; case 10: CALL(10); break; case 11: CALL(11); break;
#else
#error "TILE_ROWS must be 4, 6, 8 or 12"
#endif
#ifndef MORE_ROW_CASES
#define MORE_ROW_CASES(CALL)
#endif

/// `CALL(n)` with `n` the literal equal to `rows` (1...TILE_ROWS), so an always-inline callee is
/// compiled once per row count: a tile of fewer rows then does only its rows' work (the last
/// tile of a 7×7 map's 49 pixels is one row, not eight).
#define SWITCH_ROWS(CALL) switch (rows) { \
    case 1: CALL(1); break; case 2: CALL(2); break; case 3: CALL(3); break; case 4: CALL(4); break; \
    MORE_ROW_CASES(CALL) default: CALL(TILE_ROWS); break; }

#define DECLARE_ACC(r) vec_t acc0_##r = bias0, acc1_##r = bias1;
#define DECLARE_ROW(r) const float *a_##r = a + ((r) < rows ? (r) : 0) * lda;
#define STEP_WIDE(r) if ((r) < rows) { float x = a_##r[kk]; acc0_##r += w0 * x; acc1_##r += w1 * x; }
#define STEP_NARROW(r) if ((r) < rows) { acc0_##r += w0 * a_##r[kk]; }
#define ADVANCE_ROW(r) a_##r += segment_stride;
#define STORE_ROW(r) if ((r) < rows) { \
        KERNEL(store)(acc0_##r, columns, lowv, highv, residual ? residual + (r) * ldc : 0, slopes, c + (r) * ldc); \
        if (wide) KERNEL(store)(acc1_##r, columns - LANES, lowv, highv, residual ? residual + (r) * ldc + LANES : 0, \
                                slopes ? slopes + LANES : 0, c + (r) * ldc + LANES); }
// The empty asm keeps each row's load after the previous row's (a compiler barrier): left free,
// clang loads all six rows' values first and spills accumulators to make room (14% slower).
#define CSTEP_WIDE(r) { float x = a_##r[channel]; acc0_##r += w0 * x; acc1_##r += w1 * x; __asm__ volatile("" ::: "memory"); }
#define CSTEP_NARROW(r) { acc0_##r += w0 * a_##r[channel]; __asm__ volatile("" ::: "memory"); }

/// One tile: `rows` rows × one panel (`wide`: 2 vectors, else 1), `columns` lanes of it stored.
/// Called with `rows` a literal (SWITCH_ROWS), so the rows' guards fold away and a partial tile
/// multiplies only its rows.
INLINE void KERNEL(tile)(
    int wide, const float *a, long lda, long segments, long segment_length, long segment_stride, long rows,
    const float *panel, long panel_width, const float *bias, const float *residual, const float *slopes,
    float low, float high, float *c, long ldc, long columns)
{
    vec_t bias0 = LOAD(bias), bias1 = wide ? LOAD(bias + LANES) : (vec_t){};
    vec_t lowv = (vec_t){} + low, highv = (vec_t){} + high;  // (outside the loop: the add is free)
    FOR_ROWS(DECLARE_ACC)
    FOR_ROWS(DECLARE_ROW)
    const float *b = panel;
    for (long s = 0; s < segments; s++) {
        if (wide) {
            for (long kk = 0; kk < segment_length; kk++) {
                vec_t w0 = LOAD(b), w1 = LOAD(b + LANES);
                FOR_ROWS(STEP_WIDE)
                b += panel_width;
            }
        } else {
            for (long kk = 0; kk < segment_length; kk++) {
                vec_t w0 = LOAD(b);
                FOR_ROWS(STEP_NARROW)
                b += panel_width;
            }
        }
        FOR_ROWS(ADVANCE_ROW)
    }
    FOR_ROWS(STORE_ROW)
}

/// The narrow (last, one-vector) panel's tile, compiled once on its own rather than inlined again.
static __attribute__((noinline)) void KERNEL(narrow_tile)(
    const float *a, long lda, long segments, long segment_length, long segment_stride, long rows,
    const float *panel, const float *bias, const float *residual, const float *slopes,
    float low, float high, float *c, long ldc, long columns)
{
#define CALL(n) KERNEL(tile)(0, a, lda, segments, segment_length, segment_stride, n, panel, LANES, bias, residual, slopes, \
                             low, high, c, ldc, columns)
    SWITCH_ROWS(CALL)
#undef CALL
}

/// The panels of output channels col0..<col1 (col0 starts a panel): `WIDE(panel, bias, residual,
/// slopes, c, columns)` for each full panel, `NARROW(...)` for a last one-vector panel.
#define SWEEP_PANELS(WIDE, NARROW)                                                                      \
    for (long column = col0; column < col1;) {                                                         \
        long remaining = col1 - column;                                                                \
        const float *panel = panels + k * column;                                                      \
        const float *res = epilogue->residual ? epilogue->residual + column : 0;                       \
        const float *slp = epilogue->slopes ? epilogue->slopes + column : 0;                           \
        if (remaining > LANES) {                                                                       \
            WIDE(panel, bias + column, res, slp, c + column, remaining < 2 * LANES ? remaining : 2 * LANES); \
            column += 2 * LANES;                                                                       \
        } else {                                                                                       \
            NARROW(panel, bias + column, res, slp, c + column, remaining);                             \
            column += LANES;                                                                           \
        }                                                                                              \
    }

/// row_tile for a literal `rows`.
INLINE void KERNEL(row_tile_rows)(
    const float *a, long lda, long segments, long segment_length, long segment_stride, long rows,
    const float *panels, const float *bias, long k, long ldc, long col0, long col1,
    const posekit_epilogue *epilogue, float *c)
{
    float low = epilogue->low, high = epilogue->high;
#define WIDE(p, b, r, s, out, n) KERNEL(tile)(1, a, lda, segments, segment_length, segment_stride, rows, p, 2 * LANES, b, r, s, low, high, out, ldc, n)
#define NARROW(p, b, r, s, out, n) KERNEL(narrow_tile)(a, lda, segments, segment_length, segment_stride, rows, p, b, r, s, low, high, out, ldc, n)
    SWEEP_PANELS(WIDE, NARROW)
#undef WIDE
#undef NARROW
}

static void KERNEL(row_tile)(
    const float *a, long lda, long segments, long segment_length, long segment_stride, long rows,
    const float *panels, const float *bias, long k, long ldc, long col0, long col1,
    const posekit_epilogue *epilogue, float *c)
{
#define CALL(n) KERNEL(row_tile_rows)(a, lda, segments, segment_length, segment_stride, n, panels, bias, k, ldc, col0, col1, \
                                      epilogue, c)
    SWITCH_ROWS(CALL)
#undef CALL
}

/// A compacted tile: only the listed channels, each read in place from every row (rows past
/// `rows` read row 0, so every lane stays finite) and its weight row found through the list.
/// Reading in place rather than from a channel-major copy saves gathering the kept values: 4% of
/// PoseNet's forward pass at 513 on Zen 1 went to that copy.
INLINE void KERNEL(compacted_tile)(
    int wide, const float *a, long lda, long rows, const int32_t *channels, long count,
    const float *panel, long panel_width, const float *bias, const float *residual, const float *slopes,
    float low, float high, float *c, long ldc, long columns)
{
    vec_t bias0 = LOAD(bias), bias1 = wide ? LOAD(bias + LANES) : (vec_t){};
    vec_t lowv = (vec_t){} + low, highv = (vec_t){} + high;  // (outside the loop: the add is free)
    FOR_ROWS(DECLARE_ACC)
    FOR_ROWS(DECLARE_ROW)
    if (wide) {
        for (long i = 0; i < count; i++) {
            long channel = channels[i];
            const float *b = panel + channel * panel_width;
            vec_t w0 = LOAD(b), w1 = LOAD(b + LANES);
            FOR_ROWS(CSTEP_WIDE)
        }
    } else {
        for (long i = 0; i < count; i++) {
            long channel = channels[i];
            vec_t w0 = LOAD(panel + channel * panel_width);
            FOR_ROWS(CSTEP_NARROW)
        }
    }
    FOR_ROWS(STORE_ROW)
}

static __attribute__((noinline)) void KERNEL(compacted_narrow_tile)(
    const float *a, long lda, long rows, const int32_t *channels, long count,
    const float *panel, const float *bias, const float *residual, const float *slopes,
    float low, float high, float *c, long ldc, long columns)
{
    KERNEL(compacted_tile)(0, a, lda, rows, channels, count, panel, LANES, bias, residual, slopes, low, high, c, ldc, columns);
}

static void KERNEL(compacted_row_tile)(
    const float *a, long lda, long rows, const int32_t *channels, long count,
    const float *panels, const float *bias, long k, long ldc, long col0, long col1,
    const posekit_epilogue *epilogue, float *c)
{
    float low = epilogue->low, high = epilogue->high;
#define WIDE(p, b, r, s, out, n) KERNEL(compacted_tile)(1, a, lda, rows, channels, count, p, 2 * LANES, b, r, s, low, high, out, ldc, n)
#define NARROW(p, b, r, s, out, n) KERNEL(compacted_narrow_tile)(a, lda, rows, channels, count, p, b, r, s, low, high, out, ldc, n)
    SWEEP_PANELS(WIDE, NARROW)
#undef WIDE
#undef NARROW
}

const posekit_packed_gemm_kernel KERNEL(table) = {
    TILE_ROWS, LANES, KERNEL(row_tile), KERNEL(compacted_row_tile),
};
