// The depthwise 3×3 interior sweep, written once with the compiler's vector extensions and
// included by one file per instruction set (after packed_gemm_template.h, whose VEC_BYTES, LANES,
// vec_t, LOAD, INLINE, KERNEL and clamp it uses). Layouts: NHWC rows (`row_stride` floats apart),
// weights `[3, 3, C]`.

/// Half a vector (the channel block after the full ones: 24 channels are 16 + 8 with AVX-512).
typedef float half_t __attribute__((vector_size(VEC_BYTES / 2)));
typedef float half_unaligned_t __attribute__((vector_size(VEC_BYTES / 2), aligned(4)));
typedef int32_t ihalf_t __attribute__((vector_size(VEC_BYTES / 2)));

/// Output pixels per group: eight accumulators, so eight independent multiply-add chains hide
/// the FMA latency (five cycles on Zen, four on Intel) that four chains left exposed; 12–16%
/// faster in cache on Zen 1 (65×65×192, 33×33×384) than groups of four, the same from memory.
#define DEPTHWISE_GROUP 8

/// Pixel j of a group: the three taps of one window row, in window order.
#define DEPTHWISE_TAPS(TU, j)                                                                           \
    a##j += *(const TU *)(row + (j) * s * c) * w0;                                                     \
    a##j += *(const TU *)(row + ((j) * s + d) * c) * w1;                                               \
    a##j += *(const TU *)(row + ((j) * s + 2 * d) * c) * w2;

/// Pixel j of a group clamped (NaN lanes pass through) and stored.
#define DEPTHWISE_STORE(IT, j) {                                                                        \
    IT below = a##j < lo, above = a##j > hi, bits = (IT)a##j;                                          \
    bits = (bits & ~below) | ((IT)lo & below);                                                         \
    bits = (bits & ~above) | ((IT)hi & above);                                                         \
    memcpy(out + (j) * c + *ch, &bits, sizeof(bits)); }

/// One group of DEPTHWISE_GROUP output pixels over channel blocks of type T (`lanes` wide) from
/// `*ch` while a whole block fits; advances `*ch`. Pixel j, tap kx reads input column j·s + kx·d
/// of the group.
#define DEPTHWISE_BLOCKS(T, TU, IT, lanes)                                                              \
    while (*ch + (lanes) <= c) {                                                                       \
        T b = bias ? *(const TU *)(bias + *ch) : (T){};                                                 \
        T a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b;                              \
        const float *row = window + *ch, *w = wts + *ch;                                               \
        for (long r = 0; r < window_rows; r++) {                                                       \
            T w0 = *(const TU *)w, w1 = *(const TU *)(w + c), w2 = *(const TU *)(w + 2 * c);           \
            DEPTHWISE_TAPS(TU, 0) DEPTHWISE_TAPS(TU, 1) DEPTHWISE_TAPS(TU, 2) DEPTHWISE_TAPS(TU, 3)    \
            DEPTHWISE_TAPS(TU, 4) DEPTHWISE_TAPS(TU, 5) DEPTHWISE_TAPS(TU, 6) DEPTHWISE_TAPS(TU, 7)    \
            row += d * row_stride;                                                                     \
            w += 3 * c;                                                                                \
        }                                                                                              \
        T lo = (T){} + low, hi = (T){} + high;                                                         \
        DEPTHWISE_STORE(IT, 0) DEPTHWISE_STORE(IT, 1) DEPTHWISE_STORE(IT, 2) DEPTHWISE_STORE(IT, 3)    \
        DEPTHWISE_STORE(IT, 4) DEPTHWISE_STORE(IT, 5) DEPTHWISE_STORE(IT, 6) DEPTHWISE_STORE(IT, 7)    \
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

/// One group of DEPTHWISE_GROUP interior pixels over all channels: full vectors, a half vector, single channels.
INLINE void KERNEL(depthwise_group)(
    const float *window, long row_stride, const float *wts, long window_rows, const float *bias,
    long c, long s, long d, float low, float high, float *out, long *ch)
{
    DEPTHWISE_BLOCKS(vec_t, vec_unaligned_t, ivec_t, LANES)
#if VEC_BYTES >= 32
    DEPTHWISE_BLOCKS(half_t, half_unaligned_t, ihalf_t, LANES / 2)
#endif
    KERNEL(depthwise_tail)(window, row_stride, wts, window_rows, bias, c, s, d, low, high, out, DEPTHWISE_GROUP, *ch);
}

/// The groups of a run of `pixels` pixels; a last partial group is computed as the group ending
/// at the run's end (rewriting a few pixels with the same values); a run shorter than a group
/// goes pixel by pixel.
INLINE void KERNEL(depthwise_groups)(
    const float *window, long row_stride, const float *wts, long window_rows, const float *bias,
    long c, long s, long d, long pixels, float low, float high, float *out)
{
    if (pixels < DEPTHWISE_GROUP) {
        for (long p = 0; p < pixels; p++)
            KERNEL(depthwise_pixel)(window + p * s * c, row_stride, wts, window_rows, bias, c, s, d, low, high, out + p * c);
        return;
    }
    long first = 0;
    while (first < pixels) {
        long start = first < pixels - DEPTHWISE_GROUP ? first : pixels - DEPTHWISE_GROUP;
        long ch = 0;
        KERNEL(depthwise_group)(window + start * s * c, row_stride, wts, window_rows, bias, c, s, d, low, high,
                                out + start * c, &ch);
        first = start + DEPTHWISE_GROUP;
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
