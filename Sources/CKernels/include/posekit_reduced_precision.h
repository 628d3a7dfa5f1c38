// PoseKit's reduced-precision GEMMs for 1×1 convolutions: int8 with `vpdpbusd` (AVX512-VNNI on zmm,
// AVX-VNNI on ymm) and bf16 with `vdpbf16ps` (AVX512-BF16). Each copy is compiled with
// `__attribute__((target(...)))` (no build flags); Tensor's `Precision` picks one from CPUID. Calling a
// copy the CPU lacks is SIGILL: the getters return NULL where a copy was not compiled (aarch64), and
// the caller checks the CPU.
//
// int8 layouts (V = the int32 lanes of one vector: 16 on zmm, 8 on ymm; K4 = K rounded up to 4):
//   activations: `rows` rows of K4 bytes (u8), row r quantized with its own scale s_r and zero point
//                z_r (0 when the row has no negative value, else 128): x ≈ s_r·(q − z_r); the bytes
//                past K hold z_r.
//   weights:     per output channel j, w ≈ t_j·wq with wq in −127...127 (t_j = max|W[:, j]|/127);
//                panels of 2V channels (the last V wide when at most V remain), the panel starting
//                at channel j at `panels + K4·j`: for each group of 4 input channels g, the 2V
//                channels' 4 bytes (channel-major: [2V][4]); rows past K are 0.
//   result:      c[r, j] = clamp(s_r·t_j·(Σ_k q[r, k]·wq[k, j] − z_r·Σ_k wq[k, j]) + bias[j], low, high),
//                with the int32 sum exact and everything after it in float32.
// bf16 layouts (K2 = K rounded up to 2): activations rows of K2 bf16 (round to nearest even, 0
// past K); panels as above with pairs: for each pair of input channels, the 2V channels' 2 values.
#ifndef POSEKIT_REDUCED_PRECISION_H
#define POSEKIT_REDUCED_PRECISION_H

#include <stdint.h>

/// Quantizes `rows` rows of `k` floats (`a + r·lda`) to u8 rows of `k4` bytes at `q + r·k4`, each
/// with its own scale and zero point (written to `row_scale[r]`, `row_zero[r]`).
typedef void (*posekit_quantize_rows_fn)(
    const float *a, long lda, long rows, long k, long k4, uint8_t *q, float *row_scale, float *row_zero);

/// One tile of ≤ `tile_rows` rows of quantized activations (`q`, rows `k4` bytes apart, with their
/// `row_scale`/`row_zero`) times the int8 panels of channels col0..<col1 (col0 starts a panel).
/// `col_scale`, `col_sum` and `bias` are padded to the panels' width; `ldc` is C's row stride.
typedef void (*posekit_int8_row_tile_fn)(
    const uint8_t *q, long k4, long rows, const float *row_scale, const float *row_zero,
    const int8_t *panels, const float *col_scale, const float *col_sum, const float *bias,
    long ldc, long col0, long col1, float low, float high, float *c);

/// Converts `rows` rows of `k` floats to bf16 rows of `k2` values at `out + r·k2`.
typedef void (*posekit_to_bf16_rows_fn)(const float *a, long lda, long rows, long k, long k2, uint16_t *out);

/// One tile of ≤ `tile_rows` bf16 rows (`k2` apart) times the bf16 panels of channels col0..<col1.
typedef void (*posekit_bf16_row_tile_fn)(
    const uint16_t *a, long k2, long rows, const uint16_t *panels, const float *bias,
    long ldc, long col0, long col1, float low, float high, float *c);

typedef struct {
    long tile_rows;
    long vector_lanes;
    posekit_quantize_rows_fn quantize_rows;
    posekit_int8_row_tile_fn row_tile;
} posekit_int8_gemm_kernel;

typedef struct {
    long tile_rows;
    long vector_lanes;
    posekit_to_bf16_rows_fn to_bf16_rows;
    posekit_bf16_row_tile_fn row_tile;
} posekit_bf16_gemm_kernel;

/// The int8 copies.
enum {
    POSEKIT_INT8_AVX512_VNNI = 0,  ///< AVX-512 F/BW/DQ/VL + AVX512-VNNI, zmm
    POSEKIT_INT8_AVX_VNNI = 1,     ///< AVX2 + AVX-VNNI (VEX `vpdpbusd`), ymm
};

/// The bf16 copies.
enum {
    POSEKIT_BF16_AVX512 = 0,       ///< AVX-512 F/BW/DQ/VL + AVX512-BF16, zmm
};

/// The int8 kernel `variant`, or NULL when this binary has no copy of it.
const posekit_int8_gemm_kernel *posekit_int8_gemm_kernel_for(int variant);

/// The bf16 kernel `variant`, or NULL when this binary has no copy of it.
const posekit_bf16_gemm_kernel *posekit_bf16_gemm_kernel_for(int variant);

/// Quantizes the row-major `k × n` weights per output channel and packs them into int8 panels for
/// vectors of `lanes` int32 lanes (layout above): `panels` holds `k4 · (n rounded up to lanes)`
/// bytes; `col_scale` and `col_sum` (Σ_k wq, as float) hold `n` rounded up to `lanes` (0 past n).
/// Plain C: runs once per layer at load.
void posekit_pack_int8_panels(const float *w, long k, long n, long lanes, int8_t *panels,
                              float *col_scale, float *col_sum);

/// Rounds the row-major `k × n` weights to bf16 (nearest even) and packs them into bf16 panels:
/// `k2 · (n rounded up to lanes)` values.
void posekit_pack_bf16_panels(const float *w, long k, long n, long lanes, uint16_t *panels);

/// A float rounded to bf16 (nearest, ties to even; NaN stays NaN), the rule every copy uses.
uint16_t posekit_bf16_from_float(float x);

#endif
