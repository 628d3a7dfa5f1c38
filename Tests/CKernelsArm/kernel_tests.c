// CKernels' copies against naive loops, in plain C: the test Swift cannot run where Swift is not built
// (`make test-arm64` cross-compiles this file and Sources/CKernels for aarch64 and runs it under
// qemu-aarch64 on several CPU models; `make test-ckernels` runs it natively). Every copy this binary
// has and this CPU runs is checked; the others are listed as skipped, with the reason.
//   packed GEMM    row_tile (plain and convolution-like segments, clamp, residual, PReLU, partial
//                  tiles and panels) and compacted_row_tile, against double-precision loops;
//   window dot     the few-output-channel convolution's dot products over windows, against double loops;
//   depthwise 3×3  the interior sweep for each stride and dilation PoseNet and the graphs use, 1–3
//                  window rows, channel counts that take every block width, against double loops;
//   int8 GEMMs     the weight packer against an independent quantization read back through the
//                  documented layout, each copy's row quantization against its bound, and its tile
//                  against exact integer sums of the same quantized values (posekit_reduced_precision.h).
// Exit status 0 when everything that ran passed. Deterministic (a fixed-seed generator).
#include "posekit_kernels.h"
#include "posekit_reduced_precision.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1 << 20)
#endif
#endif

static int failures = 0, checks = 0;
static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;

/// Uniform in [-1, 1) (xorshift64*).
static float uniform(void) {
    rng_state ^= rng_state >> 12; rng_state ^= rng_state << 25; rng_state ^= rng_state >> 27;
    unsigned long long x = rng_state * 2685821657736338717ull;
    return (float)((double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static void fill(float *x, long n, float scale) { for (long i = 0; i < n; i++) x[i] = uniform() * scale; }

static void fail(const char *what, const char *copy, const char *detail) {
    if (failures < 20) fprintf(stderr, "FAIL %s [%s]: %s\n", what, copy, detail);
    failures++;
}

// ---------------------------------------------------------------- which copies this CPU runs

static int cpu_runs_isa(int isa) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (isa == POSEKIT_ISA_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (isa == POSEKIT_ISA_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
    return isa == POSEKIT_ISA_BASELINE;
}

static int cpu_runs_int8(int variant) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    int avx512 = cpu_runs_isa(POSEKIT_ISA_AVX512);
    switch (variant) {
    case POSEKIT_INT8_AVX2: return avx2;
    case POSEKIT_INT8_AVX512_VNNI: return avx512 && __builtin_cpu_supports("avx512vnni");
#if defined(__clang__) && __clang_major__ >= 16
    case POSEKIT_INT8_AVX_VNNI: return avx2 && __builtin_cpu_supports("avxvnni");
#endif
    default: return 0;
    }
#elif defined(__aarch64__) && defined(__linux__)
    if (variant == POSEKIT_INT8_NEON) return 1;
    if (variant == POSEKIT_INT8_NEON_DOT) return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
    return 0;
#else
    return 0;
#endif
}

static const char *isa_name(int isa) {
    switch (isa) {
    case POSEKIT_ISA_BASELINE:
#if defined(__aarch64__)
        return "baseline (NEON)";
#else
        return "baseline (SSE2)";
#endif
    case POSEKIT_ISA_AVX2: return "AVX2+FMA";
    case POSEKIT_ISA_AVX512: return "AVX-512";
    default: return "?";
    }
}

static const char *int8_name(int variant) {
    switch (variant) {
    case POSEKIT_INT8_AVX512_VNNI: return "int8 AVX512-VNNI";
    case POSEKIT_INT8_AVX_VNNI: return "int8 AVX-VNNI";
    case POSEKIT_INT8_AVX2: return "int8 AVX2 (vpmaddwd)";
    case POSEKIT_INT8_NEON_DOT: return "int8 NEON sdot";
    case POSEKIT_INT8_NEON: return "int8 NEON smull";
    default: return "?";
    }
}

// ---------------------------------------------------------------- packed GEMM

/// Packs row-major k × n weights as PackedPointwiseWeights does (posekit_kernels.h): panels of 2V,
/// the last V wide when at most V remain, zero-padded; returns the panels, `bias_out` the padded bias.
static float *pack_panels(const float *w, long k, long n, long v, const float *bias, float **bias_out) {
    long padded = (n + v - 1) / v * v;
    float *panels = calloc((size_t)(k * padded + 64), sizeof(float));
    float *b = calloc((size_t)(padded + 64), sizeof(float));
    for (long column = 0; column < n;) {
        long width = padded - column < 2 * v ? padded - column : 2 * v;
        for (long kk = 0; kk < k; kk++)
            for (long j = 0; j < width; j++)
                panels[k * column + kk * width + j] = column + j < n ? w[kk * n + column + j] : 0;
        column += width;
    }
    for (long j = 0; j < n; j++) b[j] = bias[j];
    *bias_out = b;
    return panels;
}

static double epilogue_ref(double y, const posekit_epilogue *e, const float *residual, long j) {
    if (residual) y += residual[j];
    y = y < e->low ? e->low : (y > e->high ? e->high : y);
    if (e->slopes) y = y > 0 ? y : y * e->slopes[j];
    return y;
}

static void test_packed_gemm(int isa) {
    const posekit_packed_gemm_kernel *kernel = posekit_packed_gemm_kernel_for(isa);
    const char *name = isa_name(isa);
    long v = kernel->vector_lanes, tile = kernel->tile_rows;
    static const long ks[] = {1, 3, 24, 37, 64}, ns[] = {1, 5, 8, 16, 24, 33, 48, 115};
    static const long segment_counts[] = {1, 3};
    for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
    for (size_t si = 0; si < 2; si++)
    for (int mode = 0; mode < 3; mode++) {
        long segments = segment_counts[si], length = ks[ki], k = segments * length, n = ns[ni];
        long segment_stride = length + 5, lda = segments * segment_stride + 3, ldc = n;
        float *a = malloc(sizeof(float) * (size_t)(tile * lda + 8)), *w = malloc(sizeof(float) * (size_t)(k * n));
        float *bias = malloc(sizeof(float) * (size_t)n), *slopes = calloc((size_t)(n + 64), sizeof(float));
        float *residual = malloc(sizeof(float) * (size_t)(tile * ldc)), *c = malloc(sizeof(float) * (size_t)(tile * ldc));
        fill(a, tile * lda + 8, 2); fill(w, k * n, 1); fill(bias, n, 1); fill(slopes, n, 0.5f); fill(residual, tile * ldc, 1);
        float *padded_bias, *panels = pack_panels(w, k, n, v, bias, &padded_bias);
        float *padded_slopes = calloc((size_t)(n + 2 * v + 64), sizeof(float));
        memcpy(padded_slopes, slopes, sizeof(float) * (size_t)n);
        posekit_epilogue e = { -INFINITY, INFINITY, NULL, NULL };
        if (mode == 1) { e.low = 0; e.high = 6; }
        if (mode == 2) { e.low = -3; e.high = 3; e.slopes = padded_slopes; }
        for (long rows = 1; rows <= tile; rows++) {
            const float *res = mode == 2 ? residual : NULL;
            e.residual = res;
            for (long i = 0; i < tile * ldc; i++) c[i] = NAN;
            kernel->row_tile(a, lda, segments, length, segment_stride, rows, panels, padded_bias, k, ldc, 0, n, &e, c);
            for (long r = 0; r < tile; r++)
                for (long j = 0; j < n; j++) {
                    checks++;
                    float got = c[r * ldc + j];
                    if (r >= rows) {
                        if (!isnan(got)) fail("packed GEMM row_tile wrote past its rows", name, "");
                        continue;
                    }
                    double sum = bias[j], magnitude = fabs(bias[j]);
                    for (long s = 0; s < segments; s++)
                        for (long kk = 0; kk < length; kk++) {
                            double p = (double)a[r * lda + s * segment_stride + kk] * w[(s * length + kk) * n + j];
                            sum += p; magnitude += fabs(p);
                        }
                    double expected = epilogue_ref(sum, &e, res ? res + r * ldc : NULL, j);
                    if (!(fabs(got - expected) <= 1e-5 * (magnitude + 1) * 4)) {
                        char detail[256];
                        snprintf(detail, sizeof detail, "k=%ld n=%ld rows=%ld mode=%d r=%ld j=%ld: %g, expected %g",
                                 k, n, rows, mode, r, j, got, expected);
                        fail("packed GEMM row_tile", name, detail);
                    }
                }
            // The compacted tile over every other channel, read in place from rows of k + 3 floats
            // (rows not adjacent); rows past `rows` are left NaN, as the kernel must not store them.
            long count = (k + 1) / 2, dense_lda = k + 3;
            int32_t *channels = malloc(sizeof(int32_t) * (size_t)count);
            float *dense = malloc(sizeof(float) * (size_t)(tile * dense_lda));
            for (long i = 0; i < tile * dense_lda; i++) dense[i] = NAN;
            for (long r = 0; r < rows; r++)
                for (long ch = 0; ch < k; ch++)
                    dense[r * dense_lda + ch] = a[r * lda + (ch / length) * segment_stride + ch % length];
            for (long i = 0; i < count; i++) channels[i] = (int32_t)(2 * i);
            for (long i = 0; i < tile * ldc; i++) c[i] = NAN;
            kernel->compacted_row_tile(dense, dense_lda, rows, channels, count, panels, padded_bias, k, ldc, 0, n, &e, c);
            for (long r = 0; r < rows; r++)
                for (long j = 0; j < n; j++) {
                    checks++;
                    double sum = bias[j], magnitude = fabs(bias[j]);
                    for (long i = 0; i < count; i++) {
                        double p = (double)dense[r * dense_lda + channels[i]] * w[channels[i] * n + j];
                        sum += p; magnitude += fabs(p);
                    }
                    double expected = epilogue_ref(sum, &e, res ? res + r * ldc : NULL, j);
                    float got = c[r * ldc + j];
                    if (!(fabs(got - expected) <= 1e-5 * (magnitude + 1) * 4)) {
                        char detail[256];
                        snprintf(detail, sizeof detail, "k=%ld n=%ld rows=%ld r=%ld j=%ld: %g, expected %g", k, n, rows, r, j, got, expected);
                        fail("packed GEMM compacted_row_tile", name, detail);
                    }
                }
            free(channels); free(dense);
        }
        free(a); free(w); free(bias); free(slopes); free(residual); free(c); free(panels); free(padded_bias); free(padded_slopes);
    }
}

// ---------------------------------------------------------------- depthwise 3×3 interior

static void test_depthwise(int isa) {
    const posekit_depthwise_kernel *kernel = posekit_depthwise_kernel_for(isa);
    const char *name = isa_name(isa);
    static const long channel_counts[] = {1, 3, 4, 8, 12, 20, 24, 36, 48};
    static const long combos[][2] = {{1, 1}, {2, 1}, {1, 2}, {1, 4}, {2, 2}};
    for (size_t ci = 0; ci < sizeof channel_counts / sizeof *channel_counts; ci++)
    for (size_t si = 0; si < sizeof combos / sizeof *combos; si++)
    for (long window_rows = 1; window_rows <= 3; window_rows++)
    for (long pixels = 1; pixels <= 17; pixels++)
    for (int with_bias = 0; with_bias < 2; with_bias++) {
        long c = channel_counts[ci], s = combos[si][0], d = combos[si][1];
        long width = (pixels - 1) * s + 2 * d + 1 + 3, row_stride = width * c + 5, height = 2 * d + 1;
        float *image = malloc(sizeof(float) * (size_t)(height * row_stride + 8));
        float *wts = malloc(sizeof(float) * (size_t)(9 * c)), *bias = malloc(sizeof(float) * (size_t)c);
        float *out = malloc(sizeof(float) * (size_t)((pixels + 1) * c));
        fill(image, height * row_stride + 8, 2); fill(wts, 9 * c, 1); fill(bias, c, 1);
        for (long i = 0; i < (pixels + 1) * c; i++) out[i] = NAN;
        float low = with_bias ? 0 : -INFINITY, high = with_bias ? 6 : INFINITY;
        kernel->interior(image, row_stride, wts, window_rows, with_bias ? bias : NULL, c, s, d, pixels, low, high, out);
        for (long p = 0; p <= pixels; p++)
            for (long ch = 0; ch < c; ch++) {
                checks++;
                float got = out[p * c + ch];
                if (p == pixels) {
                    if (!isnan(got)) fail("depthwise interior wrote past its pixels", name, "");
                    continue;
                }
                double sum = with_bias ? bias[ch] : 0, magnitude = fabs(sum);
                for (long r = 0; r < window_rows; r++)
                    for (long kx = 0; kx < 3; kx++) {
                        double t = (double)image[r * d * row_stride + (p * s + kx * d) * c + ch] * wts[(r * 3 + kx) * c + ch];
                        sum += t; magnitude += fabs(t);
                    }
                double expected = sum < low ? low : (sum > high ? high : sum);
                if (!(fabs(got - expected) <= 1e-5 * (magnitude + 1))) {
                    char detail[256];
                    snprintf(detail, sizeof detail, "c=%ld s=%ld d=%ld rows=%ld pixels=%ld p=%ld ch=%ld: %g, expected %g",
                             c, s, d, window_rows, pixels, p, ch, got, expected);
                    fail("depthwise interior", name, detail);
                }
            }
        free(image); free(wts); free(bias); free(out);
    }
}

// ---------------------------------------------------------------- few-channel convolution (window dot products)

static void test_window_dot(int isa) {
    const posekit_window_dot_kernel *kernel = posekit_window_dot_kernel_for(isa);
    const char *name = isa_name(isa);
    static const long lengths[] = {1, 3, 7, 8, 16, 24, 33, 48, 100};
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++)
    for (long rows = 1; rows <= 3; rows++)
    for (long cout = 1; cout <= 4; cout += 3)
    for (int with_bias = 0; with_bias < 2; with_bias++) {
        long length = lengths[li], pixels = 11, pixel_stride = length / 2 + 3, row_stride = pixels * pixel_stride + length + 7;
        long filter_row_stride = length + 2, filter_stride = rows * filter_row_stride + 1;
        float *image = malloc(sizeof(float) * (size_t)(rows * row_stride + 8));
        float *filters = malloc(sizeof(float) * (size_t)(cout * filter_stride + 8)), *bias = malloc(sizeof(float) * (size_t)cout);
        float *out = malloc(sizeof(float) * (size_t)((pixels + 1) * cout));
        fill(image, rows * row_stride + 8, 2); fill(filters, cout * filter_stride + 8, 1); fill(bias, cout, 1);
        for (long i = 0; i < (pixels + 1) * cout; i++) out[i] = NAN;
        float low = with_bias ? -1 : -INFINITY, high = with_bias ? 1 : INFINITY;
        kernel->window_dot(image, pixel_stride, pixels, row_stride, rows, length, filters, filter_row_stride, filter_stride, cout,
                           with_bias ? bias : NULL, low, high, out);
        for (long p = 0; p <= pixels; p++)
            for (long co = 0; co < cout; co++) {
                checks++;
                float got = out[p * cout + co];
                if (p == pixels) {
                    if (!isnan(got)) fail("window dot wrote past its pixels", name, "");
                    continue;
                }
                double sum = with_bias ? bias[co] : 0, magnitude = fabs(sum);
                for (long r = 0; r < rows; r++)
                    for (long i = 0; i < length; i++) {
                        double t = (double)image[p * pixel_stride + r * row_stride + i] * filters[co * filter_stride + r * filter_row_stride + i];
                        sum += t; magnitude += fabs(t);
                    }
                double expected = sum < low ? low : (sum > high ? high : sum);
                if (!(fabs(got - expected) <= 1e-5 * (magnitude + 1))) {
                    char detail[256];
                    snprintf(detail, sizeof detail, "length=%ld rows=%ld cout=%ld p=%ld co=%ld: %g, expected %g", length, rows, cout, p, co,
                             got, expected);
                    fail("window dot", name, detail);
                }
            }
        free(image); free(filters); free(bias); free(out);
    }
}

// ---------------------------------------------------------------- int8

/// The weight of input channel i, output channel j as `kernel`'s panels hold it (the documented layout).
static int panel_weight(const posekit_int8_gemm_kernel *kernel, const void *panels, long kp, long padded, long i, long j) {
    long v = kernel->vector_lanes, g = kernel->k_group, column = j / (2 * v) * (2 * v);
    long width = padded - column < 2 * v ? padded - column : 2 * v;
    long index = kp * column + (i / g * g) * width + (j - column) * g + i % g;
    return kernel->element_bytes == 1 ? ((const int8_t *)panels)[index] : ((const int16_t *)panels)[index];
}

static int stored_activation(const posekit_int8_gemm_kernel *kernel, const uint8_t *q, long index, int signed_bytes) {
    if (kernel->element_bytes == 2) return ((const uint16_t *)(const void *)q)[index];
    return signed_bytes ? ((const int8_t *)q)[index] : q[index];
}

static void test_int8(int variant) {
    const posekit_int8_gemm_kernel *kernel = posekit_int8_gemm_kernel_for(variant);
    const char *name = int8_name(variant);
    // NEON's copies store s8 (q − 128), the x86 ones u8 or u16.
    int signed_bytes = variant == POSEKIT_INT8_NEON || variant == POSEKIT_INT8_NEON_DOT;
    long v = kernel->vector_lanes, tile = kernel->tile_rows, g = kernel->k_group, eb = kernel->element_bytes;
    static const long ks[] = {1, 5, 30, 64, 67, 96, 200}, ns[] = {1, 3, 8, 13, 24, 40, 115};
    for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
        long k = ks[ki], n = ns[ni], kp = (k + g - 1) / g * g, padded = (n + v - 1) / v * v;
        float *w = malloc(sizeof(float) * (size_t)(k * n));
        fill(w, k * n, 0.5f);
        if (n > 2) for (long i = 0; i < k; i++) w[i * n + 2] = 0;  // an all-zero channel: scale 1
        void *panels = calloc((size_t)(kp * padded * eb + 64), 1);
        float *col_scale = calloc((size_t)padded, sizeof(float)), *col_sum = calloc((size_t)padded, sizeof(float));
        posekit_pack_int8_panels_for(kernel, w, k, n, panels, col_scale, col_sum);
        // The packer against an independent quantization.
        int *wq = malloc(sizeof(int) * (size_t)(k * n));
        for (long j = 0; j < padded; j++) {
            float largest = 0;
            for (long i = 0; j < n && i < k; i++) largest = fmaxf(largest, fabsf(w[i * n + j]));
            float t = largest > 0 ? largest / 127.0f : 1.0f;
            long sum = 0;
            for (long i = 0; i < kp; i++) {
                int expected = 0;
                if (i < k && j < n) {
                    float r = rintf(w[i * n + j] / t);
                    expected = (int)(r > 127 ? 127 : (r < -127 ? -127 : r));
                    wq[i * n + j] = expected;
                    sum += expected;
                }
                checks++;
                if (panel_weight(kernel, panels, kp, padded, i, j) != expected) {
                    char detail[256];
                    snprintf(detail, sizeof detail, "k=%ld n=%ld i=%ld j=%ld: %d, expected %d", k, n, i, j,
                             panel_weight(kernel, panels, kp, padded, i, j), expected);
                    fail("int8 weight packing", name, detail);
                }
            }
            checks++;
            if (col_scale[j] != t || col_sum[j] != (float)sum) fail("int8 column scale or sum", name, "");
        }
        for (int sign = 0; sign < 2; sign++) {
            // Rows: ReLU6-like (no negative value: zero point 0), signed ones (128), and a row of zeros.
            long m = 2 * tile + 1;
            float *a = malloc(sizeof(float) * (size_t)(m * k));
            for (long i = 0; i < m * k; i++) a[i] = sign ? uniform() * 3 : fabsf(uniform()) * 6;
            for (long i = 0; i < k; i++) a[(m - 1) * k + i] = 0;
            uint8_t *q = malloc((size_t)(m * kp * eb));
            float *row_scale = malloc(sizeof(float) * (size_t)m), *row_zero = malloc(sizeof(float) * (size_t)m);
            kernel->quantize_rows(a, k, m, k, kp, q, row_scale, row_zero);
            for (long r = 0; r < m; r++) {
                double s = row_scale[r], z = row_zero[r];
                double offset = signed_bytes ? 128 : 0;
                int has_negative = 0;
                for (long i = 0; i < k; i++) has_negative |= a[r * k + i] < 0;
                checks++;
                if (z + offset != (has_negative ? 128 : 0)) fail("int8 zero point", name, "");
                for (long i = 0; i < kp; i++) {
                    int value = stored_activation(kernel, q, r * kp + i, signed_bytes);
                    checks++;
                    if (value + offset < 0 || value + offset > 255) { fail("int8 activation out of 0...255", name, ""); continue; }
                    if (i >= k) {
                        if (value != (int)z) fail("int8 padding is not the zero point", name, "");
                        continue;
                    }
                    double back = s * (value - z), x = a[r * k + i];
                    if (!(fabs(back - x) <= s * 0.5 * (1 + 1e-5) + 1e-7)) {
                        char detail[256];
                        snprintf(detail, sizeof detail, "k=%ld r=%ld i=%ld: %g back to %g (scale %g)", k, r, i, x, back, s);
                        fail("int8 activation quantization", name, detail);
                    }
                }
            }
            // Tiles of 1...tile_rows rows against exact integer sums, in two column ranges.
            float *c = malloc(sizeof(float) * (size_t)(tile * n)), *bias = malloc(sizeof(float) * (size_t)(padded + 64));
            fill(bias, padded, 1);
            float low = sign ? -INFINITY : -2, high = sign ? INFINITY : 2;
            for (long rows = 1; rows <= tile; rows++) {
                long first = (rows - 1) % 2;  // tiles starting at row 0 and 1
                for (long i = 0; i < tile * n; i++) c[i] = NAN;
                long split = n > 2 * v ? 2 * v : n;  // a call per column range (a chunk boundary)
                kernel->row_tile(q + first * kp * eb, kp, rows, row_scale + first, row_zero + first, (const int8_t *)panels,
                                 col_scale, col_sum, bias, n, 0, split, low, high, c);
                if (split < n)
                    kernel->row_tile(q + first * kp * eb, kp, rows, row_scale + first, row_zero + first, (const int8_t *)panels,
                                     col_scale, col_sum, bias, n, split, n, low, high, c);
                for (long r = 0; r < tile; r++)
                    for (long j = 0; j < n; j++) {
                        checks++;
                        float got = c[r * n + j];
                        if (r >= rows) {
                            if (!isnan(got)) fail("int8 row_tile wrote past its rows", name, "");
                            continue;
                        }
                        long row = first + r, exact = 0;
                        for (long i = 0; i < k; i++)
                            exact += (long)(stored_activation(kernel, q, row * kp + i, signed_bytes) - (long)row_zero[row]) * wq[i * n + j];
                        double expected = (double)row_scale[row] * col_scale[j] * (double)exact + bias[j];
                        expected = expected < low ? low : (expected > high ? high : expected);
                        if (!(fabs(got - expected) <= 1e-5 * (fabs(expected) + 1))) {
                            char detail[256];
                            snprintf(detail, sizeof detail, "k=%ld n=%ld rows=%ld r=%ld j=%ld: %g, expected %g", k, n, rows, r, j, got, expected);
                            fail("int8 row_tile", name, detail);
                        }
                    }
            }
            free(a); free(q); free(row_scale); free(row_zero); free(c); free(bias);
        }
        free(w); free(panels); free(col_scale); free(col_sum); free(wq);
    }
}

int main(void) {
#if defined(__aarch64__)
    printf("CKernels tests, aarch64\n");
#elif defined(__x86_64__)
    printf("CKernels tests, x86-64\n");
#endif
    for (int isa = POSEKIT_ISA_BASELINE; isa <= POSEKIT_ISA_AVX512; isa++) {
        if (!posekit_packed_gemm_kernel_for(isa)) continue;  // not compiled for this architecture
        if (!cpu_runs_isa(isa)) { printf("  skipped  %-22s packed GEMM, depthwise, window dot: this CPU lacks it\n", isa_name(isa)); continue; }
        int before = failures, checks_before = checks;
        test_packed_gemm(isa);
        test_depthwise(isa);
        test_window_dot(isa);
        printf("  %s %-22s packed GEMM, depthwise, window dot (%d values)\n", failures == before ? "passed " : "FAILED ", isa_name(isa),
               checks - checks_before);
    }
    for (int variant = POSEKIT_INT8_AVX512_VNNI; variant <= POSEKIT_INT8_NEON; variant++) {
        if (!posekit_int8_gemm_kernel_for(variant)) continue;
        if (!cpu_runs_int8(variant)) { printf("  skipped  %-22s this CPU lacks it\n", int8_name(variant)); continue; }
        int before = failures, checks_before = checks;
        test_int8(variant);
        printf("  %s %-22s packing, quantization, tiles (%d values)\n", failures == before ? "passed " : "FAILED ",
               int8_name(variant), checks - checks_before);
    }
    printf("%s: %d values checked, %d failures\n", failures ? "FAILED" : "passed", checks, failures);
    return failures ? 1 : 0;
}
