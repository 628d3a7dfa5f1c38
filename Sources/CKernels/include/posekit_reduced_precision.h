// PoseKit's reduced-precision GEMMs for 1×1 convolutions: int8 with `vpdpbusd` (AVX512-VNNI on zmm,
// AVX-VNNI on ymm), with `vpmaddwd` on 16-bit operands (AVX2 without VNNI), with `sdot` (aarch64 with
// the dot-product extension) or `smull`/`sadalp` (any aarch64), and bf16 with `vdpbf16ps` (AVX512-BF16).
// Each copy is compiled with `__attribute__((target(...)))` (no build flags); Tensor's `Precision` picks
// one from CPUID (x86) or the hardware capabilities (aarch64). Calling a copy the CPU lacks is SIGILL:
// the getters return NULL where a copy was not compiled (x86 copies on aarch64 and back), and the
// caller checks the CPU.
//
// int8 layouts (V = the int32 lanes of one vector: 16 on zmm, 8 on ymm, 4 on NEON; G = the copy's
// `k_group`, input channels per int32 lane: 4, or 2 for the 16-bit copy; KP = K rounded up to G):
//   activations: `rows` rows of KP values of `element_bytes` each, row r quantized with its own scale
//                s_r and zero point z_r (0 when the row has no negative value, else 128):
//                x ≈ s_r·(q − z_r), q in 0...255. The copy stores q' = q − o and z'_r = z_r − o, with
//                o = 0 (u8, or u16 for the 16-bit copy) or 128 (s8: NEON's `sdot` and `smull` are signed),
//                so always x ≈ s_r·(q' − z'_r); the values past K hold z'_r.
//   weights:     per output channel j, w ≈ t_j·wq with wq in −127...127 (t_j = max|W[:, j]|/127);
//                panels of 2V channels (the last V wide when at most V remain), the panel starting
//                at channel j at element `KP·j`: for each group of G input channels g, the 2V
//                channels' G values (channel-major: [2V][G]), each `element_bytes` wide; rows past K are 0.
//   result:      c[r, j] = clamp(s_r·t_j·(Σ_k q'[r, k]·wq[k, j] − z'_r·Σ_k wq[k, j]) + bias[j], low, high),
//                with the int32 sum exact and everything after it in float32: every copy gives the same
//                values (the same quantization, exact sums, the same float32 epilogue).
// bf16 layouts (K2 = K rounded up to 2): activations rows of K2 bf16 (round to nearest even, 0
// past K); panels as above with pairs: for each pair of input channels, the 2V channels' 2 values.
#ifndef POSEKIT_REDUCED_PRECISION_H
#define POSEKIT_REDUCED_PRECISION_H

#include <stdint.h>

/// Quantizes `rows` rows of `k` floats (`a + r·lda`) to rows of `k4` values (`element_bytes` each) at
/// `q + r·k4·element_bytes`, each with its own scale and (offset) zero point (written to `row_scale[r]`,
/// `row_zero[r]`).
typedef void (*posekit_quantize_rows_fn)(
    const float *a, long lda, long rows, long k, long k4, uint8_t *q, float *row_scale, float *row_zero);

/// One tile of ≤ `tile_rows` rows of quantized activations (`q`, rows `k4` values apart, with their
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
    /// Input channels per group (G above): 4, or 2 for 16-bit operands.
    long k_group;
    /// Bytes of one stored activation and one packed weight: 1, or 2 for 16-bit operands.
    long element_bytes;
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
    POSEKIT_INT8_AVX2 = 2,         ///< AVX2 without VNNI: `vpmaddwd` on u16 × s16, ymm
    POSEKIT_INT8_NEON_DOT = 3,     ///< aarch64 with the dot-product extension (ARMv8.2+ `sdot`)
    POSEKIT_INT8_NEON = 4,         ///< any aarch64: `smull`/`smlal` into int16, `sadalp` into int32
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
/// vectors of `lanes` int32 lanes and groups of 4 (layout above): `panels` holds `k4 · (n rounded up
/// to lanes)` bytes; `col_scale` and `col_sum` (Σ_k wq, as float) hold `n` rounded up to `lanes`
/// (0 past n). Plain C: runs once per layer at load.
void posekit_pack_int8_panels(const float *w, long k, long n, long lanes, int8_t *panels,
                              float *col_scale, float *col_sum);

/// The same for `kernel`'s layout (its lanes, group and element width): `panels` holds
/// `kp · (n rounded up to lanes) · element_bytes` bytes, kp = k rounded up to the group.
void posekit_pack_int8_panels_for(const posekit_int8_gemm_kernel *kernel, const float *w, long k, long n,
                                  void *panels, float *col_scale, float *col_sum);

/// Rounds the row-major `k × n` weights to bf16 (nearest even) and packs them into bf16 panels:
/// `k2 · (n rounded up to lanes)` values.
void posekit_pack_bf16_panels(const float *w, long k, long n, long lanes, uint16_t *panels);

/// A float rounded to bf16 (nearest, ties to even; NaN stays NaN), the rule every copy uses.
uint16_t posekit_bf16_from_float(float x);

#endif
