// Convolutions with few output channels (a segmentation head's 3×3 to one channel), written once with
// the compiler's vector extensions and included by one file per instruction set (after
// packed_gemm_template.h, whose VEC_BYTES, LANES, vec_t, LOAD, INLINE and KERNEL it uses).
// The GEMM kernels vectorise over output channels, so one output channel would use one lane of a
// panel; here each output value is a dot product over its window instead: NHWC makes a window row
// `kW·Cin` contiguous input floats, and OHWI weights make the matching filter row contiguous too.

/// Σ over the lanes, pairwise (halves added until one lane is left).
INLINE float KERNEL(lane_sum)(vec_t v) {
#if VEC_BYTES >= 64
    typedef float h8 __attribute__((vector_size(32)));
    h8 a = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7), b = __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
    h8 s8 = a + b;
#elif VEC_BYTES >= 32
    typedef float h8 __attribute__((vector_size(32)));
    h8 s8 = v;
#endif
#if VEC_BYTES >= 32
    typedef float h4 __attribute__((vector_size(16)));
    h4 s4 = __builtin_shufflevector(s8, s8, 0, 1, 2, 3) + __builtin_shufflevector(s8, s8, 4, 5, 6, 7);
#else
    typedef float h4 __attribute__((vector_size(16)));
    h4 s4 = v;
#endif
    h4 s2 = s4 + __builtin_shufflevector(s4, s4, 2, 3, 0, 1);
    return s2[0] + s2[1];
}

/// For each of `pixels` output pixels p (pixel p's window at `window + p·pixel_stride`) and each
/// output channel co < `cout`: `out[p·cout + co] = clamp(bias[co] + Σ_{r < rows} Σ_{i < length}
/// window[p·pixel_stride + r·row_stride + i] · filters[co·filter_stride + r·filter_row_stride + i],
/// low, high)`; `bias` may be NULL. Two vector accumulators per value, then a scalar tail.
#if VEC_BYTES == 32
/// Eight vectors' lane sums as one vector (s[j] = Σ lanes of v[j]): three rounds of pairwise adds of
/// shuffled halves, the transposed reduction instead of eight horizontal sums.
INLINE vec_t KERNEL(lane_sums8)(const vec_t v[8]) {
    vec_t h01 = __builtin_shufflevector(v[0], v[1], 0, 2, 8, 10, 4, 6, 12, 14) + __builtin_shufflevector(v[0], v[1], 1, 3, 9, 11, 5, 7, 13, 15);
    vec_t h23 = __builtin_shufflevector(v[2], v[3], 0, 2, 8, 10, 4, 6, 12, 14) + __builtin_shufflevector(v[2], v[3], 1, 3, 9, 11, 5, 7, 13, 15);
    vec_t h45 = __builtin_shufflevector(v[4], v[5], 0, 2, 8, 10, 4, 6, 12, 14) + __builtin_shufflevector(v[4], v[5], 1, 3, 9, 11, 5, 7, 13, 15);
    vec_t h67 = __builtin_shufflevector(v[6], v[7], 0, 2, 8, 10, 4, 6, 12, 14) + __builtin_shufflevector(v[6], v[7], 1, 3, 9, 11, 5, 7, 13, 15);
    // h01 = [v0 01, v0 23, v1 01, v1 23 | v0 45, v0 67, v1 45, v1 67] (pair sums)
    vec_t q0 = __builtin_shufflevector(h01, h23, 0, 2, 8, 10, 4, 6, 12, 14) + __builtin_shufflevector(h01, h23, 1, 3, 9, 11, 5, 7, 13, 15);
    vec_t q1 = __builtin_shufflevector(h45, h67, 0, 2, 8, 10, 4, 6, 12, 14) + __builtin_shufflevector(h45, h67, 1, 3, 9, 11, 5, 7, 13, 15);
    // q0 = [v0 0..3, v1 0..3, v2 0..3, v3 0..3 | v0 4..7, v1 4..7, v2 4..7, v3 4..7]
    return __builtin_shufflevector(q0, q1, 0, 1, 2, 3, 8, 9, 10, 11) + __builtin_shufflevector(q0, q1, 4, 5, 6, 7, 12, 13, 14, 15);
}
#endif

static void KERNEL(window_dot)(
    const float *window, long pixel_stride, long pixels, long row_stride, long rows, long length,
    const float *filters, long filter_row_stride, long filter_stride, long cout,
    const float *bias, float low, float high, float *out)
{
    long p = 0;
#if VEC_BYTES == 32
    // One output channel (a mask head): eight pixels at a time, one accumulator each, reduced together.
    if (cout == 1 && length % LANES == 0) {
        vec_t lowv = (vec_t){} + low, highv = (vec_t){} + high, biasv = (vec_t){} + (bias ? bias[0] : 0);
        for (; p + 8 <= pixels; p += 8) {
            vec_t acc[8] = {};
            for (long r = 0; r < rows; r++) {
                const float *y = filters + r * filter_row_stride, *x = window + p * pixel_stride + r * row_stride;
                for (long i = 0; i < length; i += LANES) {
                    vec_t wv = LOAD(y + i);
                    for (int j = 0; j < 8; j++) acc[j] += LOAD(x + j * pixel_stride + i) * wv;
                }
            }
            vec_t sums = KERNEL(lane_sums8)(acc) + biasv;
            sums = KERNEL(clamp)(sums, lowv, highv);
            memcpy(out + p, &sums, sizeof(sums));
        }
    }
#endif
    for (; p < pixels; p++) {
        const float *pixel = window + p * pixel_stride;
        for (long co = 0; co < cout; co++) {
            const float *filter = filters + co * filter_stride;
            vec_t acc0 = {}, acc1 = {};
            float tail = 0;
            for (long r = 0; r < rows; r++) {
                const float *x = pixel + r * row_stride, *y = filter + r * filter_row_stride;
                long i = 0;
                for (; i + 2 * LANES <= length; i += 2 * LANES) {
                    acc0 += LOAD(x + i) * LOAD(y + i);
                    acc1 += LOAD(x + i + LANES) * LOAD(y + i + LANES);
                }
                if (i + LANES <= length) {
                    acc0 += LOAD(x + i) * LOAD(y + i);
                    i += LANES;
                }
                for (; i < length; i++) tail += x[i] * y[i];
            }
            float sum = (bias ? bias[co] : 0) + KERNEL(lane_sum)(acc0 + acc1) + tail;
            out[p * cout + co] = sum < low ? low : (sum > high ? high : sum);
        }
    }
}

const posekit_window_dot_kernel KERNEL(window_dot_table) = { KERNEL(window_dot) };
