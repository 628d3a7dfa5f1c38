// The packed GEMM for the architecture's baseline: SSE2 on x86-64 (16 xmm registers: 6 rows × 2
// accumulators + 2 weight vectors + 1 broadcast), NEON on aarch64 (32 registers: 8 rows).
#include "posekit_kernels.h"

#define VEC_BYTES 16
#if defined(__aarch64__)
#define TILE_ROWS 8
#else
#define TILE_ROWS 6
#endif
#define KERNEL(x) posekit_baseline_##x
#include "packed_gemm_template.h"
#include "depthwise_template.h"
#include "window_dot_template.h"
