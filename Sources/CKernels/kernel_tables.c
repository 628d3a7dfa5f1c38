// Which instruction sets this binary has a packed GEMM copy for.
#include "posekit_kernels.h"
#include <stddef.h>

extern const posekit_packed_gemm_kernel posekit_baseline_table;
extern const posekit_depthwise_kernel posekit_baseline_depthwise_table;
extern const posekit_window_dot_kernel posekit_baseline_window_dot_table;
#if defined(__x86_64__)
extern const posekit_packed_gemm_kernel posekit_avx2_table;
extern const posekit_packed_gemm_kernel posekit_avx512_table;
extern const posekit_depthwise_kernel posekit_avx2_depthwise_table;
extern const posekit_depthwise_kernel posekit_avx512_depthwise_table;
extern const posekit_window_dot_kernel posekit_avx2_window_dot_table;
extern const posekit_window_dot_kernel posekit_avx512_window_dot_table;
#endif

const posekit_packed_gemm_kernel *posekit_packed_gemm_kernel_for(int isa) {
    switch (isa) {
    case POSEKIT_ISA_BASELINE: return &posekit_baseline_table;
#if defined(__x86_64__)
    case POSEKIT_ISA_AVX2: return &posekit_avx2_table;
    case POSEKIT_ISA_AVX512: return &posekit_avx512_table;
#endif
    default: return NULL;
    }
}

const posekit_depthwise_kernel *posekit_depthwise_kernel_for(int isa) {
    switch (isa) {
    case POSEKIT_ISA_BASELINE: return &posekit_baseline_depthwise_table;
#if defined(__x86_64__)
    case POSEKIT_ISA_AVX2: return &posekit_avx2_depthwise_table;
    case POSEKIT_ISA_AVX512: return &posekit_avx512_depthwise_table;
#endif
    default: return NULL;
    }
}

const posekit_window_dot_kernel *posekit_window_dot_kernel_for(int isa) {
    switch (isa) {
    case POSEKIT_ISA_BASELINE: return &posekit_baseline_window_dot_table;
#if defined(__x86_64__)
    case POSEKIT_ISA_AVX2: return &posekit_avx2_window_dot_table;
    case POSEKIT_ISA_AVX512: return &posekit_avx512_window_dot_table;
#endif
    default: return NULL;
    }
}
