// The packed GEMM for AVX2 + FMA: 6 rows × 2 ymm accumulators, 2 weight vectors and 1 broadcast
// fill the 16 ymm registers (the classic Haswell SGEMM shape).
#include "posekit_kernels.h"

#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("avx,avx2,fma"))), apply_to = function)
#define VEC_BYTES 32
#define TILE_ROWS 6
#define KERNEL(x) posekit_avx2_##x
#include "packed_gemm_template.h"
#include "depthwise_template.h"
#include "window_dot_template.h"
#pragma clang attribute pop
#endif
