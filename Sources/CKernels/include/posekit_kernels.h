// PoseKit's packed GEMM microkernels, compiled for several instruction sets in one binary.
//
// Each instruction set's copy is compiled with `__attribute__((target(...)))` (no build flags), and
// `posekit_packed_gemm_kernel` hands out the table of one of them; the caller (Tensor's
// `KernelISA`) picks the best one the CPU supports from CPUID. Calling a copy the CPU lacks is
// SIGILL: the table for an ISA is non-null only where the copy was compiled (x86-64 for AVX2 and
// AVX-512), and the caller checks the CPU.
//
// Layout of the weights (`panels`), K-major panels of `panel_width` = 2V output channels (V the
// vector lanes): the panel starting at output channel j holds, for k = 0..<K, the weights
// W[k, j ..< j + 2V] contiguously, at `panels + K·j`; the last panel is V wide when at most V
// channels remain, zero-padded to its width. `bias` is zero-padded to the panels' total width.
#ifndef POSEKIT_KERNELS_H
#define POSEKIT_KERNELS_H

#include <stdint.h>

/// What a GEMM tile does to each output value after the bias, as it stores it (the fused
/// epilogue): `y = prelu(clamp(A·W + bias + residual, low, high))`, the residual and the PReLU each
/// optional. One kernel per operation, the epilogue a parameter (ggml's way): a graph's residual
/// add and PReLU cost no pass over memory of their own.
typedef struct {
    /// The activation as a clamp (−∞, +∞ for none).
    float low, high;
    /// NULL, or the tensor added after the bias, laid out as C: its value for `c[r, j]` is at
    /// `residual + r·ldc + j` (set per tile, like `c`). May be C itself (read before written).
    const float *residual;
    /// NULL, or PReLU slopes after the clamp, one per output channel, indexed and zero-padded as
    /// the bias: `y = max(y, 0) + slope·min(y, 0)`.
    const float *slopes;
} posekit_epilogue;

/// `c[r, col0..<col1] = epilogue(A(r)·W + bias)` for the `rows` (≤ tile_rows) rows of one
/// tile. Row r of A is `segments` runs of `segment_length` floats at `a + r·lda + s·segment_stride`.
/// `k` is W's row count (the sum of the runs), `ldc` the row stride of C (the layer's Cout);
/// `col0` starts a panel.
typedef void (*posekit_row_tile_fn)(
    const float *a, long lda, long segments, long segment_length, long segment_stride, long rows,
    const float *panels, const float *bias, long k, long ldc, long col0, long col1,
    const posekit_epilogue *epilogue, float *c);

/// The same over only `count` of A's columns (input channels), the i-th being column and W's row
/// `channels[i]`: row r's value of it is at `a + r·lda + channels[i]` (one run per row).
typedef void (*posekit_compacted_row_tile_fn)(
    const float *a, long lda, long rows, const int32_t *channels, long count,
    const float *panels, const float *bias, long k, long ldc, long col0, long col1,
    const posekit_epilogue *epilogue, float *c);

typedef struct {
    /// Rows (output pixels) one call computes.
    long tile_rows;
    /// Lanes of one vector; a full panel is two.
    long vector_lanes;
    posekit_row_tile_fn row_tile;
    posekit_compacted_row_tile_fn compacted_row_tile;
} posekit_packed_gemm_kernel;

/// `pixels` (≥ 1) consecutive interior output pixels of one row of a depthwise 3×3 convolution,
/// all `c` channels, NHWC: `window` is the left input pixel of the first pixel's window in its
/// first in-image window row, `wts` that row's weights (`[3, 3, c]` from there), `window_rows`
/// (1...3) rows `dilation` apart, `row_stride` floats between input rows; `bias` may be NULL.
/// Output pixel j goes to `out + j·c`, clamped to low...high.
typedef void (*posekit_depthwise_interior_fn)(
    const float *window, long row_stride, const float *wts, long window_rows, const float *bias,
    long c, long stride, long dilation, long pixels, float low, float high, float *out);

typedef struct {
    posekit_depthwise_interior_fn interior;
} posekit_depthwise_kernel;

/// Convolution to few output channels as dot products over each window (window_dot_template.h): for
/// each of `pixels` output pixels p and channel co < `cout`, `out[p·cout + co] = clamp(bias[co] +
/// Σ_{r < rows} Σ_{i < length} window[p·pixel_stride + r·row_stride + i] ·
/// filters[co·filter_stride + r·filter_row_stride + i], low, high)`; `bias` may be NULL.
typedef void (*posekit_window_dot_fn)(
    const float *window, long pixel_stride, long pixels, long row_stride, long rows, long length,
    const float *filters, long filter_row_stride, long filter_stride, long cout,
    const float *bias, float low, float high, float *out);

typedef struct {
    posekit_window_dot_fn window_dot;
} posekit_window_dot_kernel;

/// The instruction sets with a compiled copy.
enum {
    POSEKIT_ISA_BASELINE = 0,  ///< SSE2 on x86-64, NEON on aarch64 (the architecture's baseline)
    POSEKIT_ISA_AVX2 = 1,      ///< AVX2 + FMA (x86-64-v3)
    POSEKIT_ISA_AVX512 = 2,    ///< AVX-512 F/BW/DQ/VL
};

/// The kernel table of `isa`, or NULL when this binary has no copy for it (AVX on aarch64).
const posekit_packed_gemm_kernel *posekit_packed_gemm_kernel_for(int isa);

/// The depthwise kernel table of `isa`, or NULL when this binary has no copy for it.
const posekit_depthwise_kernel *posekit_depthwise_kernel_for(int isa);

/// The few-channel convolution table of `isa`, or NULL when this binary has no copy for it.
const posekit_window_dot_kernel *posekit_window_dot_kernel_for(int isa);

#endif
