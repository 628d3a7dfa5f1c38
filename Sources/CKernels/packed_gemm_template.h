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

/// Stores the first `columns` lanes of clamp(x) at `out`.
INLINE void KERNEL(store)(vec_t x, long columns, vec_t low, vec_t high, float *out) {
    vec_t y = KERNEL(clamp)(x, low, high);
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
#elif TILE_ROWS == 8
#define FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#elif TILE_ROWS == 12
#define FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#else
#error "TILE_ROWS must be 4, 6, 8 or 12"
#endif

#define DECLARE_ACC(r) vec_t acc0_##r = bias0, acc1_##r = bias1;
#define DECLARE_ROW(r) const float *a_##r = a + ((r) < rows ? (r) : 0) * lda;
#define STEP_WIDE(r) { float x = a_##r[kk]; acc0_##r += w0 * x; acc1_##r += w1 * x; }
#define STEP_NARROW(r) { acc0_##r += w0 * a_##r[kk]; }
#define ADVANCE_ROW(r) a_##r += segment_stride;
#define STORE_ROW(r) if ((r) < rows) { \
        KERNEL(store)(acc0_##r, columns, lowv, highv, c + (r) * ldc); \
        if (wide) KERNEL(store)(acc1_##r, columns - LANES, lowv, highv, c + (r) * ldc + LANES); }
#define CSTEP_WIDE(r) { float x = xs[r]; acc0_##r += w0 * x; acc1_##r += w1 * x; }
#define CSTEP_NARROW(r) { acc0_##r += w0 * xs[r]; }

/// One tile: `rows` rows × one panel (`wide`: 2 vectors, else 1), `columns` lanes of it stored.
/// Rows past `rows` re-read row 0 and are not stored, so a partial tile costs no branch inside the loop.
INLINE void KERNEL(tile)(
    int wide, const float *a, long lda, long segments, long segment_length, long segment_stride, long rows,
    const float *panel, long panel_width, const float *bias, float low, float high, float *c, long ldc, long columns)
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
    const float *panel, const float *bias, float low, float high, float *c, long ldc, long columns)
{
    KERNEL(tile)(0, a, lda, segments, segment_length, segment_stride, rows, panel, LANES, bias, low, high, c, ldc, columns);
}

/// The panels of output channels col0..<col1 (col0 starts a panel): `WIDE(panel, bias, c, columns)`
/// for each full panel, `NARROW(...)` for a last one-vector panel.
#define SWEEP_PANELS(WIDE, NARROW)                                                                      \
    for (long column = col0; column < col1;) {                                                         \
        long remaining = col1 - column;                                                                \
        const float *panel = panels + k * column;                                                      \
        if (remaining > LANES) {                                                                       \
            WIDE(panel, bias + column, c + column, remaining < 2 * LANES ? remaining : 2 * LANES);     \
            column += 2 * LANES;                                                                       \
        } else {                                                                                       \
            NARROW(panel, bias + column, c + column, remaining);                                       \
            column += LANES;                                                                           \
        }                                                                                              \
    }

static void KERNEL(row_tile)(
    const float *a, long lda, long segments, long segment_length, long segment_stride, long rows,
    const float *panels, const float *bias, long k, long ldc, long col0, long col1,
    float low, float high, float *c)
{
#define WIDE(p, b, out, n) KERNEL(tile)(1, a, lda, segments, segment_length, segment_stride, rows, p, 2 * LANES, b, low, high, out, ldc, n)
#define NARROW(p, b, out, n) KERNEL(narrow_tile)(a, lda, segments, segment_length, segment_stride, rows, p, b, low, high, out, ldc, n)
    SWEEP_PANELS(WIDE, NARROW)
#undef WIDE
#undef NARROW
}

/// A compacted tile: for each listed channel the weight row is found through the list, and the
/// tile's values of it are adjacent (one pointer, fixed offsets).
INLINE void KERNEL(compacted_tile)(
    int wide, const float *a, long rows, const int32_t *channels, long count,
    const float *panel, long panel_width, const float *bias, float low, float high, float *c, long ldc, long columns)
{
    vec_t bias0 = LOAD(bias), bias1 = wide ? LOAD(bias + LANES) : (vec_t){};
    vec_t lowv = (vec_t){} + low, highv = (vec_t){} + high;  // (outside the loop: the add is free)
    FOR_ROWS(DECLARE_ACC)
    if (wide) {
        for (long i = 0; i < count; i++) {
            const float *b = panel + (long)channels[i] * panel_width, *xs = a + i * TILE_ROWS;
            vec_t w0 = LOAD(b), w1 = LOAD(b + LANES);
            FOR_ROWS(CSTEP_WIDE)
        }
    } else {
        for (long i = 0; i < count; i++) {
            const float *b = panel + (long)channels[i] * panel_width, *xs = a + i * TILE_ROWS;
            vec_t w0 = LOAD(b);
            FOR_ROWS(CSTEP_NARROW)
        }
    }
    FOR_ROWS(STORE_ROW)
}

static __attribute__((noinline)) void KERNEL(compacted_narrow_tile)(
    const float *a, long rows, const int32_t *channels, long count,
    const float *panel, const float *bias, float low, float high, float *c, long ldc, long columns)
{
    KERNEL(compacted_tile)(0, a, rows, channels, count, panel, LANES, bias, low, high, c, ldc, columns);
}

static void KERNEL(compacted_row_tile)(
    const float *a, long rows, const int32_t *channels, long count,
    const float *panels, const float *bias, long k, long ldc, long col0, long col1,
    float low, float high, float *c)
{
#define WIDE(p, b, out, n) KERNEL(compacted_tile)(1, a, rows, channels, count, p, 2 * LANES, b, low, high, out, ldc, n)
#define NARROW(p, b, out, n) KERNEL(compacted_narrow_tile)(a, rows, channels, count, p, b, low, high, out, ldc, n)
    SWEEP_PANELS(WIDE, NARROW)
#undef WIDE
#undef NARROW
}

const posekit_packed_gemm_kernel KERNEL(table) = {
    TILE_ROWS, LANES, KERNEL(row_tile), KERNEL(compacted_row_tile),
};
