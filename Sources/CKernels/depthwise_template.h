// The depthwise 3×3 interior sweep, written once with the compiler's vector extensions and
// included by one file per instruction set (after packed_gemm_template.h, whose VEC_BYTES, LANES,
// vec_t, LOAD, INLINE, KERNEL and clamp it uses). Layouts: NHWC rows (`row_stride` floats apart),
// weights `[3, 3, C]`.

/// Half a vector (the channel block after the full ones: 24 channels are 16 + 8 with AVX-512).
typedef float half_t __attribute__((vector_size(VEC_BYTES / 2)));
typedef float half_unaligned_t __attribute__((vector_size(VEC_BYTES / 2), aligned(4)));
typedef int32_t ihalf_t __attribute__((vector_size(VEC_BYTES / 2)));

/// One group of 4 output pixels over channel blocks of type T (`lanes` wide) from `*ch` while a
/// whole block fits; advances `*ch`. Pixel j, tap kx reads input column j·s + kx·d of the group.
#define DEPTHWISE_BLOCKS(T, TU, IT, lanes)                                                              \
    while (*ch + (lanes) <= c) {                                                                       \
        T b = bias ? *(const TU *)(bias + *ch) : (T){};                                                 \
        T a0 = b, a1 = b, a2 = b, a3 = b;                                                              \
        const float *row = window + *ch, *w = wts + *ch;                                               \
        for (long r = 0; r < window_rows; r++) {                                                       \
            T w0 = *(const TU *)w, w1 = *(const TU *)(w + c), w2 = *(const TU *)(w + 2 * c);           \
            a0 += *(const TU *)row * w0;                                                               \
            a0 += *(const TU *)(row + d * c) * w1;                                                     \
            a0 += *(const TU *)(row + 2 * d * c) * w2;                                                 \
            a1 += *(const TU *)(row + s * c) * w0;                                                     \
            a1 += *(const TU *)(row + (s + d) * c) * w1;                                               \
            a1 += *(const TU *)(row + (s + 2 * d) * c) * w2;                                           \
            a2 += *(const TU *)(row + 2 * s * c) * w0;                                                 \
            a2 += *(const TU *)(row + (2 * s + d) * c) * w1;                                           \
            a2 += *(const TU *)(row + (2 * s + 2 * d) * c) * w2;                                       \
            a3 += *(const TU *)(row + 3 * s * c) * w0;                                                 \
            a3 += *(const TU *)(row + (3 * s + d) * c) * w1;                                           \
            a3 += *(const TU *)(row + (3 * s + 2 * d) * c) * w2;                                       \
            row += d * row_stride;                                                                     \
            w += 3 * c;                                                                                \
        }                                                                                              \
        T lo = (T){} + low, hi = (T){} + high;                                                         \
        T outs[4] = {a0, a1, a2, a3};                                                                  \
        for (int j = 0; j < 4; j++) {                                                                  \
            IT below = outs[j] < lo, above = outs[j] > hi, bits = (IT)outs[j];                         \
            bits = (bits & ~below) | ((IT)lo & below);                                                 \
            bits = (bits & ~above) | ((IT)hi & above);                                                 \
            memcpy(out + j * c + *ch, &bits, sizeof(bits));                                            \
        }                                                                                              \
        *ch += (lanes);                                                                                \
    }

/// One pixel over channel blocks of type T: the same operations in the same order as each pixel
/// of DEPTHWISE_BLOCKS, so a pixel's value does not depend on the run it is computed in.
#define DEPTHWISE_PIXEL_BLOCKS(T, TU, IT, lanes)                                                        \
    while (*ch + (lanes) <= c) {                                                                       \
        T a0 = bias ? *(const TU *)(bias + *ch) : (T){};                                               \
        const float *row = window + *ch, *w = wts + *ch;                                               \
        for (long r = 0; r < window_rows; r++) {                                                       \
            a0 += *(const TU *)row * *(const TU *)w;                                                   \
            a0 += *(const TU *)(row + d * c) * *(const TU *)(w + c);                                   \
            a0 += *(const TU *)(row + 2 * d * c) * *(const TU *)(w + 2 * c);                           \
            row += d * row_stride;                                                                     \
            w += 3 * c;                                                                                \
        }                                                                                              \
        T lo = (T){} + low, hi = (T){} + high;                                                         \
        IT below = a0 < lo, above = a0 > hi, bits = (IT)a0;                                            \
        bits = (bits & ~below) | ((IT)lo & below);                                                     \
        bits = (bits & ~above) | ((IT)hi & above);                                                     \
        memcpy(out + *ch, &bits, sizeof(bits));                                                        \
        *ch += (lanes);                                                                                \
    }

/// The scalar channel tail of pixels 0..<pixels of a group.
INLINE void KERNEL(depthwise_tail)(
    const float *window, long row_stride, const float *wts, long window_rows, const float *bias,
    long c, long s, long d, float low, float high, float *out, long pixels, long ch)
{
    for (; ch < c; ch++) {
        for (long j = 0; j < pixels; j++) {
            float acc = bias ? bias[ch] : 0;
            const float *row = window + j * s * c + ch, *w = wts + ch;
            for (long r = 0; r < window_rows; r++) {
                acc += row[0] * w[0];
                acc += row[d * c] * w[c];
                acc += row[2 * d * c] * w[2 * c];
                row += d * row_stride;
                w += 3 * c;
            }
            out[j * c + ch] = acc < low ? low : (acc > high ? high : acc);
        }
    }
}

/// One pixel over all channels (runs shorter than a group).
INLINE void KERNEL(depthwise_pixel)(
    const float *window, long row_stride, const float *wts, long window_rows, const float *bias,
    long c, long s, long d, float low, float high, float *out)
{
    long channel = 0, *ch = &channel;
    DEPTHWISE_PIXEL_BLOCKS(vec_t, vec_unaligned_t, ivec_t, LANES)
#if VEC_BYTES >= 32
    DEPTHWISE_PIXEL_BLOCKS(half_t, half_unaligned_t, ihalf_t, LANES / 2)
#endif
    KERNEL(depthwise_tail)(window, row_stride, wts, window_rows, bias, c, s, d, low, high, out, 1, channel);
}

/// One group of 4 interior pixels over all channels: full vectors, a half vector, single channels.
INLINE void KERNEL(depthwise_group)(
    const float *window, long row_stride, const float *wts, long window_rows, const float *bias,
    long c, long s, long d, float low, float high, float *out, long *ch)
{
    DEPTHWISE_BLOCKS(vec_t, vec_unaligned_t, ivec_t, LANES)
#if VEC_BYTES >= 32
    DEPTHWISE_BLOCKS(half_t, half_unaligned_t, ihalf_t, LANES / 2)
#endif
    KERNEL(depthwise_tail)(window, row_stride, wts, window_rows, bias, c, s, d, low, high, out, 4, *ch);
}

/// The groups of a run of `pixels` pixels; a last partial group is computed as the group ending
/// at the run's end (rewriting a few pixels with the same values); a run shorter than a group
/// goes pixel by pixel.
INLINE void KERNEL(depthwise_groups)(
    const float *window, long row_stride, const float *wts, long window_rows, const float *bias,
    long c, long s, long d, long pixels, float low, float high, float *out)
{
    if (pixels < 4) {
        for (long p = 0; p < pixels; p++)
            KERNEL(depthwise_pixel)(window + p * s * c, row_stride, wts, window_rows, bias, c, s, d, low, high, out + p * c);
        return;
    }
    long first = 0;
    while (first < pixels) {
        long start = first < pixels - 4 ? first : pixels - 4;
        long ch = 0;
        KERNEL(depthwise_group)(window + start * s * c, row_stride, wts, window_rows, bias, c, s, d, low, high,
                                out + start * c, &ch);
        first = start + 4;
    }
}

/// `pixels` (≥ 1) consecutive output pixels of one row whose windows lie inside the image
/// horizontally (Tensor's `depthwiseInterior`): `window` is the left input pixel of the first
/// pixel's window in its first window row, `wts` that row's weights; `window_rows` (1...3) rows
/// are read, `dilation` apart. Stride, dilation and a full 3-row window become constants for
/// PoseNet's combinations, so the tap offsets are constant multiples of `c`.
static void KERNEL(depthwise_interior)(
    const float *window, long row_stride, const float *wts, long window_rows, const float *bias,
    long c, long stride, long dilation, long pixels, float low, float high, float *out)
{
#define CASE(S, D)                                                                                      \
    if (stride == S && dilation == D) {                                                                \
        if (window_rows == 3)                                                                          \
            KERNEL(depthwise_groups)(window, row_stride, wts, 3, bias, c, S, D, pixels, low, high, out); \
        else                                                                                           \
            KERNEL(depthwise_groups)(window, row_stride, wts, window_rows, bias, c, S, D, pixels, low, high, out); \
        return;                                                                                        \
    }
    CASE(1, 1) CASE(2, 1) CASE(1, 2) CASE(1, 4)
#undef CASE
    KERNEL(depthwise_groups)(window, row_stride, wts, window_rows, bias, c, stride, dilation, pixels, low, high, out);
}

const posekit_depthwise_kernel KERNEL(depthwise_table) = { KERNEL(depthwise_interior) };
