// Why int8 without VNNI is (not) faster than fp32 on this CPU: a study, x86-64 with AVX2 only
// (`make bench-ckernels` builds and runs it after kernel_bench). Two parts, timed in this thread's CPU time:
//  1. cycles per 256-bit instruction (10 independent chains each; the clock taken as 2.45 GHz, what
//     the Zen 1 host of docs/speed.md reports: scale by your clock): FMA, vpmaddubsw, vpmaddwd, shifts,
//     vpaddd, vpunpcklwd, and pairs that show which ones share a pipe;
//  2. the int8 GEMM tile on a 1089x384x384 product (PoseNet's blocks 7-13 at 513) done three ways, every
//     result checked exact against naive int32 sums: the shipped 16-bit `vpmaddwd` (int8-avx2), and the
//     XNNPACK-style `vpmaddubsw` on 7-bit activations (u7 x s8: a pair sum stays under 32768) with its
//     int16 -> int32 widening kept off the multiply pipe (v' = v ^ 0x8000; sums of v' and of v' >> 16;
//     T = sum v' - 65535 * sum h - 32768 * steps), in several tile shapes.
// Compare with kernel_bench's fp32 figure for the same shape.
#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

#define N_OPS 100000000L
#define CYCLES_PER_NS 2.45
#define DEF(name, T, INIT, OP) \
__attribute__((noinline, target("avx2,fma"))) static double name(void) { \
    T a0 = INIT, a1 = INIT, a2 = INIT, a3 = INIT, a4 = INIT, a5 = INIT, a6 = INIT, a7 = INIT, a8 = INIT, a9 = INIT, b = INIT, c = INIT; \
    __asm__ volatile("" : "+x"(b), "+x"(c)); \
    double t = cpu(); \
    for (long i = 0; i < N_OPS / 10; i++) { OP(a0); OP(a1); OP(a2); OP(a3); OP(a4); OP(a5); OP(a6); OP(a7); OP(a8); OP(a9); } \
    t = cpu() - t; \
    __asm__ volatile("" :: "x"(a0), "x"(a1), "x"(a2), "x"(a3), "x"(a4), "x"(a5), "x"(a6), "x"(a7), "x"(a8), "x"(a9), "x"(c)); \
    return t / N_OPS * 1e9 * CYCLES_PER_NS; }
/// Five chains of each of two instructions interleaved: cycles per pair (2× the slower one's alone
/// when they share a pipe, about the slower one's alone when they issue side by side).
#define DEF2(name, OPA, OPB) \
__attribute__((noinline, target("avx2,fma"))) static double name(void) { \
    __m256i a0 = _mm256_set1_epi16(1), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0, a8 = a0, a9 = a0, b = a0; \
    __asm__ volatile("" : "+x"(b)); \
    double t = cpu(); \
    for (long i = 0; i < N_OPS / 10; i++) { OPA(a0); OPB(a5); OPA(a1); OPB(a6); OPA(a2); OPB(a7); OPA(a3); OPB(a8); OPA(a4); OPB(a9); } \
    t = cpu() - t; \
    __asm__ volatile("" :: "x"(a0), "x"(a1), "x"(a2), "x"(a3), "x"(a4), "x"(a5), "x"(a6), "x"(a7), "x"(a8), "x"(a9)); \
    return t / (N_OPS / 2) * 1e9 * CYCLES_PER_NS; }
#define OP_FMA(a) a = _mm256_fmadd_ps(a, b, c)
#define OP_MUBS(a) a = _mm256_maddubs_epi16(a, b)
#define OP_MWD(a) a = _mm256_madd_epi16(a, b)
#define OP_SRAI(a) a = _mm256_srai_epi32(a, 3)
#define OP_ADD(a) a = _mm256_add_epi32(a, b)
#define OP_UNPK(a) a = _mm256_unpacklo_epi16(a, b)

DEF(t_fma, __m256, _mm256_set1_ps(1), OP_FMA)
DEF(t_mubs, __m256i, _mm256_set1_epi16(1), OP_MUBS)
DEF(t_mwd, __m256i, _mm256_set1_epi16(1), OP_MWD)
DEF(t_srai, __m256i, _mm256_set1_epi16(1), OP_SRAI)
DEF(t_add, __m256i, _mm256_set1_epi16(1), OP_ADD)
DEF(t_unpk, __m256i, _mm256_set1_epi16(1), OP_UNPK)
DEF2(t_mubs_srai, OP_MUBS, OP_SRAI)
DEF2(t_mubs_mwd, OP_MUBS, OP_MWD)
DEF2(t_mubs_add, OP_MUBS, OP_ADD)
#define TILE(NAME, R, V) \
__attribute__((target("avx2,fma"))) static void NAME(const uint8_t *q, long K, const int8_t *w, int32_t *c, long ldc) { \
  const __m256i flip = _mm256_set1_epi32(0x8000); __m256i sv[R][V], sh[R][V]; \
  for (int r = 0; r < R; r++) for (int v = 0; v < V; v++) { sv[r][v] = _mm256_setzero_si256(); sh[r][v] = sv[r][v]; } \
  for (long k = 0; k < K; k += 4) { __m256i wv[V]; for (int v = 0; v < V; v++) wv[v] = _mm256_loadu_si256((const __m256i*)(w + v * 32)); \
    for (int r = 0; r < R; r++) { int32_t x; memcpy(&x, q + r * K + k, 4); __m256i xv = _mm256_set1_epi32(x); \
      for (int v = 0; v < V; v++) { __m256i p = _mm256_xor_si256(_mm256_maddubs_epi16(xv, wv[v]), flip); \
        sv[r][v] = _mm256_add_epi32(sv[r][v], p); sh[r][v] = _mm256_add_epi32(sh[r][v], _mm256_srai_epi32(p, 16)); } } \
    w += V * 32; } \
  __m256i m = _mm256_set1_epi32(65535), off = _mm256_set1_epi32((int32_t)(32768 * (K / 4))); \
  for (int r = 0; r < R; r++) for (int v = 0; v < V; v++) \
    _mm256_storeu_si256((__m256i*)(c + r * ldc + v * 8), _mm256_sub_epi32(_mm256_sub_epi32(sv[r][v], _mm256_mullo_epi32(sh[r][v], m)), off)); }
TILE(t3x2, 3, 2)
TILE(t4x1, 4, 1)
TILE(t6x1, 6, 1)
TILE(t2x2, 2, 2)
TILE(t5x1, 5, 1)
// reference: the exact vpmaddwd int16 6x16
#define ROWS6(X) X(0) X(1) X(2) X(3) X(4) X(5)
__attribute__((target("avx2,fma"))) static void tileB(const int16_t *q, long K, const int16_t *w, int32_t *c, long ldc) {
#define D(r) __m256i a0_##r = _mm256_setzero_si256(), a1_##r = _mm256_setzero_si256();
  ROWS6(D)
  for (long k = 0; k < K; k += 2) { __m256i w0 = _mm256_loadu_si256((const __m256i*)w), w1 = _mm256_loadu_si256((const __m256i*)(w + 16));
#define S(r) { int32_t x; memcpy(&x, q + r*K + k, 4); __m256i xv = _mm256_set1_epi32(x); a0_##r = _mm256_add_epi32(a0_##r, _mm256_madd_epi16(xv, w0)); a1_##r = _mm256_add_epi32(a1_##r, _mm256_madd_epi16(xv, w1)); }
    ROWS6(S) w += 32; }
#define ST(r) _mm256_storeu_si256((__m256i*)(c + r*ldc), a0_##r); _mm256_storeu_si256((__m256i*)(c + r*ldc + 8), a1_##r);
  ROWS6(ST)
}
typedef void (*tile_fn)(const uint8_t*, long, const int8_t*, int32_t*, long);
static void tiles(void) {
  long M = 1089 / 60 * 60, K = 384, N = 384;
  uint8_t *q = aligned_alloc(64, M*K); int8_t *wraw = malloc(K*N); int8_t *wp = aligned_alloc(64, K*N); int32_t *c = aligned_alloc(64, M*N*4), *ref = malloc(M*N*4);
  int16_t *q16 = aligned_alloc(64, M*K*2), *w16 = aligned_alloc(64, K*N*2);
  srand(1); for (long i = 0; i < M*K; i++) { q[i] = rand() % 128; q16[i] = q[i]; } for (long i = 0; i < K*N; i++) wraw[i] = rand() % 256 - 128;
  for (long i = 0; i < M; i++) for (long j = 0; j < N; j++) { long s = 0; for (long k = 0; k < K; k++) s += q[i*K+k] * wraw[k*N+j]; ref[i*N+j] = (int32_t)s; }
  struct { const char *name; tile_fn f; int R, V; } tiles[] = {{"3x16", t3x2, 3, 2}, {"4x8", t4x1, 4, 1}, {"6x8", t6x1, 6, 1}, {"2x16", t2x2, 2, 2}, {"5x8", t5x1, 5, 1}};
  // fp32-equivalent rate and correctness
  for (int t = 0; t < 5; t++) {
    int V = tiles[t].V, R = tiles[t].R; long PW = 8 * V;
    // pack: panels of PW channels, per k-quad [PW][4]
    for (long j0 = 0; j0 < N; j0 += PW) for (long g = 0; g < K; g += 4) for (long jj = 0; jj < PW; jj++) for (int e = 0; e < 4; e++)
      wp[j0 * K + g * PW + jj * 4 + e] = wraw[(g + e) * N + j0 + jj];
    long chunk = 256 * 1024 / (K * PW) * PW; double best = 1e9;
    for (int rep = 0; rep < 15; rep++) { double t0 = cpu();
      for (long c0 = 0; c0 < N; c0 += chunk) for (long r = 0; r + R <= M; r += R) for (long j = c0; j < c0 + chunk && j < N; j += PW) tiles[t].f(q + r*K, K, wp + j*K, c + r*N + j, N);
      double dt = cpu() - t0; if (dt < best) best = dt; }
    long bad = 0; for (long i = 0; i < M*N; i++) bad += c[i] != ref[i];
    printf("maddubs u7 %s: %.3f ms, %.1f GFLOP/s-equivalent, mismatches %ld\n", tiles[t].name, best*1e3, 2.0*M*K*N/best*1e-9, bad);
  }
  for (long j0 = 0; j0 < N; j0 += 16) for (long g = 0; g < K; g += 2) for (long jj = 0; jj < 16; jj++) for (int e = 0; e < 2; e++) w16[j0 * K + g * 16 + jj * 2 + e] = wraw[(g + e) * N + j0 + jj];
  double best = 1e9; long chunk = 256*1024/(K*32)*16;
  for (int rep = 0; rep < 15; rep++) { double t0 = cpu(); for (long c0 = 0; c0 < N; c0 += chunk) for (long r = 0; r + 6 <= M; r += 6) for (long j = c0; j < c0 + chunk && j < N; j += 16) tileB(q16 + r*K, K, w16 + j*K, c + r*N + j, N); double dt = cpu() - t0; if (dt < best) best = dt; }
  long bad = 0; for (long i = 0; i < M*N; i++) bad += c[i] != ref[i];
  printf("vpmaddwd int16 6x16: %.3f ms, %.1f GFLOP/s-equivalent, mismatches %ld\n", best*1e3, 2.0*M*K*N/best*1e-9, bad);
}

int main(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) { printf("int8 study: this CPU lacks AVX2\n"); return 0; }
    printf("cycles per ymm instruction (at %.2f GHz): FMA %.2f, vpmaddubsw %.2f, vpmaddwd %.2f, vpsrad %.2f, vpaddd %.2f, vpunpcklwd %.2f;\n"
           "  per pair: vpmaddubsw + vpsrad %.2f, vpmaddubsw + vpaddd %.2f, vpmaddubsw + vpmaddwd %.2f\n", CYCLES_PER_NS, t_fma(), t_mubs(),
           t_mwd(), t_srai(), t_add(), t_unpk(), t_mubs_srai(), t_mubs_add(), t_mubs_mwd());
    tiles();
    return 0;
}
#else
#include <stdio.h>
int main(void) { printf("int8 study: x86-64 only\n"); return 0; }
#endif
