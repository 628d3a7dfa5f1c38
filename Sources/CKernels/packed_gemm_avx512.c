// The packed GEMM for AVX-512: 8 rows × 2 zmm accumulators (16 of the 32 zmm registers).
#include "posekit_kernels.h"

#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("avx,avx2,fma,avx512f,avx512bw,avx512dq,avx512vl"))), apply_to = function)
#define VEC_BYTES 64
#define TILE_ROWS 8
#define KERNEL(x) posekit_avx512_##x
#include "packed_gemm_template.h"
#include "depthwise_template.h"
#include "window_dot_template.h"
#pragma clang attribute pop
#endif
