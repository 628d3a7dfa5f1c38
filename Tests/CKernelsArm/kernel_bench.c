// CKernels' GEMM copies timed on PoseNet's 1×1 layer shapes (MobileNet 0.75 at 513), one core, in plain C
// (`make bench-ckernels`): the fp32 packed GEMM of each instruction set the CPU runs against each int8 copy it
// runs (quantizing the rows included), driven as Tensor drives them (fp32: column chunks of ~128 KiB of
// weights swept over all row tiles; int8: groups of ~64 KiB of quantized rows, chunks of ~256 KiB).
// Times are the best of `runs` in this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), which a busy host
// inflates less than wall time; both are printed. `kernel_bench [runs]`.
#define _POSIX_C_SOURCE 200809L
#include "posekit_kernels.h"
#include "posekit_reduced_precision.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1 << 20)
#endif
#endif

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int runs_isa(int isa) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (isa == POSEKIT_ISA_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (isa == POSEKIT_ISA_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
    return isa == POSEKIT_ISA_BASELINE;
}

static int runs_int8(int variant) {
#if defined(__x86_64__)
    int avx2 = runs_isa(POSEKIT_ISA_AVX2);
    if (variant == POSEKIT_INT8_AVX2) return avx2;
    if (variant == POSEKIT_INT8_AVX512_VNNI) return runs_isa(POSEKIT_ISA_AVX512) && __builtin_cpu_supports("avx512vnni");
#if defined(__clang__) && __clang_major__ >= 16
    if (variant == POSEKIT_INT8_AVX_VNNI) return avx2 && __builtin_cpu_supports("avxvnni");
#endif
    return 0;
#elif defined(__aarch64__) && defined(__linux__)
    if (variant == POSEKIT_INT8_NEON) return 1;
    if (variant == POSEKIT_INT8_NEON_DOT) return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
    return 0;
#else
    return 0;
#endif
}

static const char *isa_names[] = {"fp32 baseline", "fp32 AVX2+FMA", "fp32 AVX-512"};
static const char *int8_names[] = {"int8 AVX512-VNNI", "int8 AVX-VNNI", "int8 AVX2 vpmaddwd", "int8 NEON sdot", "int8 NEON smull"};

typedef struct { long m, k, n; const char *layer; } shape;

/// One fp32 pass: column chunks of ~128 KiB of weights, each swept over every row tile.
static void fp32_pass(const posekit_packed_gemm_kernel *kernel, const float *a, const float *panels, const float *bias,
                      long m, long k, long n, float *c) {
    long panel = 2 * kernel->vector_lanes, chunk = (128 * 1024) / (k * panel * 4);
    chunk = (chunk < 1 ? 1 : chunk) * panel;
    posekit_epilogue e = {0, 6, NULL, NULL};
    for (long c0 = 0; c0 < n; c0 += chunk) {
        long c1 = c0 + chunk < n ? c0 + chunk : n;
        for (long r = 0; r < m; r += kernel->tile_rows) {
            long rows = m - r < kernel->tile_rows ? m - r : kernel->tile_rows;
            kernel->row_tile(a + r * k, k, 1, k, 0, rows, panels, bias, k, n, c0, c1, &e, c + r * n);
        }
    }
}

/// One int8 pass: groups of ~64 KiB of quantized rows, chunks of ~256 KiB of weights swept over the group.
static void int8_pass(const posekit_int8_gemm_kernel *kernel, const float *a, const void *panels, const float *scale,
                      const float *sum, const float *bias, long m, long k, long n, float *c, uint8_t *scratch,
                      float *row_scale, float *row_zero) {
    long g = kernel->k_group, eb = kernel->element_bytes, kp = (k + g - 1) / g * g, tile = kernel->tile_rows;
    long tiles_per_group = (64 * 1024) / (tile * kp * eb);
    if (tiles_per_group < 1) tiles_per_group = 1;
    long panel = 2 * kernel->vector_lanes, chunk = (256 * 1024) / (kp * panel * eb);
    chunk = (chunk < 1 ? 1 : chunk) * panel;
    for (long row0 = 0; row0 < m; row0 += tiles_per_group * tile) {
        long rows = m - row0 < tiles_per_group * tile ? m - row0 : tiles_per_group * tile;
        kernel->quantize_rows(a + row0 * k, k, rows, k, kp, scratch, row_scale, row_zero);
        for (long c0 = 0; c0 < n; c0 += chunk) {
            long c1 = c0 + chunk < n ? c0 + chunk : n;
            for (long r = 0; r < rows; r += tile) {
                long count = rows - r < tile ? rows - r : tile;
                kernel->row_tile(scratch + r * kp * eb, kp, count, row_scale + r, row_zero + r, (const int8_t *)panels,
                                 scale, sum, bias, n, c0, c1, 0, 6, c + (row0 + r) * n);
            }
        }
    }
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 20;
    if (runs < 1) runs = 1;
    static const shape shapes[] = {
        {257 * 257, 24, 48, "block 1 (257x257)"}, {129 * 129, 48, 96, "block 2"}, {129 * 129, 96, 96, "block 3"},
        {65 * 65, 96, 192, "block 4"}, {65 * 65, 192, 192, "block 5"}, {33 * 33, 192, 384, "block 6"},
        {33 * 33, 384, 384, "blocks 7-13, each"}, {33 * 33, 384, 115, "heads"},
    };
    printf("%-20s %-20s %10s %10s %9s %8s\n", "layer (m x K x N)", "kernel", "cpu ms", "wall ms", "GFLOP/s", "vs fp32");
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        long m = shapes[s].m, k = shapes[s].k, n = shapes[s].n;
        float *a = malloc(sizeof(float) * (size_t)(m * k)), *w = malloc(sizeof(float) * (size_t)(k * n));
        float *c = malloc(sizeof(float) * (size_t)(m * n)), *bias = calloc((size_t)(n + 64), sizeof(float));
        unsigned state = 12345;
        for (long i = 0; i < m * k; i++) { state = state * 1103515245u + 12345u; a[i] = (float)((state >> 16) % 600) / 100.0f; }
        for (long i = 0; i < k * n; i++) { state = state * 1103515245u + 12345u; w[i] = (float)((int)((state >> 16) % 200) - 100) / 100.0f; }
        double flop = 2.0 * (double)m * (double)k * (double)n, fp32_best = 0;
        char label[64];
        snprintf(label, sizeof label, "%ldx%ldx%ld", m, k, n);
        printf("%s: %s\n", shapes[s].layer, label);
        for (int isa = POSEKIT_ISA_AVX512; isa >= POSEKIT_ISA_BASELINE; isa--) {
            const posekit_packed_gemm_kernel *kernel = posekit_packed_gemm_kernel_for(isa);
            if (!kernel || !runs_isa(isa)) continue;
            long v = kernel->vector_lanes, padded = (n + v - 1) / v * v;
            float *panels = calloc((size_t)(k * padded), sizeof(float));
            for (long column = 0; column < n;) {
                long width = padded - column < 2 * v ? padded - column : 2 * v;
                for (long kk = 0; kk < k; kk++)
                    for (long j = 0; j < width && column + j < n; j++) panels[k * column + kk * width + j] = w[kk * n + column + j];
                column += width;
            }
            double best = 1e30, best_wall = 1e30;
            for (int r = 0; r < runs; r++) {
                double t0 = seconds(CLOCK_THREAD_CPUTIME_ID), w0 = seconds(CLOCK_MONOTONIC);
                fp32_pass(kernel, a, panels, bias, m, k, n, c);
                double t = seconds(CLOCK_THREAD_CPUTIME_ID) - t0, wt = seconds(CLOCK_MONOTONIC) - w0;
                if (t < best) best = t;
                if (wt < best_wall) best_wall = wt;
            }
            if (fp32_best == 0) fp32_best = best;
            printf("  %-38s %10.3f %10.3f %9.1f %8.2f\n", isa_names[isa], best * 1e3, best_wall * 1e3, flop / best * 1e-9, fp32_best / best);
            free(panels);
        }
        for (int variant = POSEKIT_INT8_AVX512_VNNI; variant <= POSEKIT_INT8_NEON; variant++) {
            const posekit_int8_gemm_kernel *kernel = posekit_int8_gemm_kernel_for(variant);
            if (!kernel || !runs_int8(variant)) continue;
            long g = kernel->k_group, eb = kernel->element_bytes, kp = (k + g - 1) / g * g, v = kernel->vector_lanes;
            long padded = (n + v - 1) / v * v;
            void *panels = calloc((size_t)(kp * padded * eb + 64), 1);
            float *scale = calloc((size_t)padded, sizeof(float)), *sum = calloc((size_t)padded, sizeof(float));
            posekit_pack_int8_panels_for(kernel, w, k, n, panels, scale, sum);
            uint8_t *scratch = malloc((size_t)(m * kp * eb + 64));
            float *row_scale = malloc(sizeof(float) * (size_t)m), *row_zero = malloc(sizeof(float) * (size_t)m);
            double best = 1e30, best_wall = 1e30;
            for (int r = 0; r < runs; r++) {
                double t0 = seconds(CLOCK_THREAD_CPUTIME_ID), w0 = seconds(CLOCK_MONOTONIC);
                int8_pass(kernel, a, panels, scale, sum, bias, m, k, n, c, scratch, row_scale, row_zero);
                double t = seconds(CLOCK_THREAD_CPUTIME_ID) - t0, wt = seconds(CLOCK_MONOTONIC) - w0;
                if (t < best) best = t;
                if (wt < best_wall) best_wall = wt;
            }
            printf("  %-38s %10.3f %10.3f %9.1f %8.2f\n", int8_names[variant], best * 1e3, best_wall * 1e3, flop / best * 1e-9,
                   fp32_best / best);
            free(panels); free(scale); free(sum); free(scratch); free(row_scale); free(row_zero);
        }
        free(a); free(w); free(c); free(bias);
    }
    return 0;
}
