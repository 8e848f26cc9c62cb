/*
 * Micro-benchmark of the int8 variants on EfficientNet-Lite0's convolutions (224 x 224 input,
 * batch 1, one thread): GMAC/s per layer shape and the summed time of every convolution of one
 * image. Built by hand, not run by CI (from the package root; kernels = every .c file in
 * Sources/CNative/Kernels):
 *
 *   clang -std=gnu11 -O2 -ISources/CNative/include -ISources/CNative/Kernels \
 *     -o .build/int8_bench Tests/CKernelCheck/int8_bench.c <kernels> -lm -lpthread
 *   .build/int8_bench [variant ...]   (default: every variant this machine runs)
 *
 * Weights span -128...127; with INT8_BENCH_WEIGHTS=7bit they span -64...63, the weights every
 * block of the AVX2 variant multiplies with `vpmaddubsw` (ONNX Runtime's reduce_range).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "CNativeKernels.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *filled(int64_t bytes, int seed) {
  uint8_t *p = aligned_alloc(64, (size_t)(bytes + 63) / 64 * 64);
  for (int64_t i = 0; i < bytes; i++) p[i] = (uint8_t)((i * 2654435761u + (unsigned)seed) >> 13);
  return p;
}

/* Weights as the benchmark is asked for (see the top). */
static int8_t *weights(int64_t count, int seed) {
  int8_t *w = filled(count, seed);
  const char *range = getenv("INT8_BENCH_WEIGHTS");
  if (range && strcmp(range, "7bit") == 0) {
    for (int64_t i = 0; i < count; i++) w[i] = (int8_t)(w[i] / 2);
  }
  return w;
}

/* Per-channel requantization that keeps outputs inside 0...255 most of the time. */
static cnk_requantization requantization(int64_t channels, int64_t terms) {
  int32_t *bias = calloc((size_t)channels, sizeof(int32_t));
  float *scale = malloc((size_t)channels * sizeof(float));
  for (int64_t n = 0; n < channels; n++) scale[n] = 1.0f / (256.0f * (float)terms);
  return (cnk_requantization){bias, scale, 128, 0, 255};
}

/* The best seconds of one call, over repetitions filling about 0.2 s. */
typedef void (*call_fn)(const void *context);
static double best_seconds(call_fn call, const void *context) {
  double best = 1e30, spent = 0;
  for (int i = 0; i < 1000 && (spent < 0.2 || i < 5); i++) {
    double start = now();
    call(context);
    double seconds = now() - start;
    best = seconds < best ? seconds : best;
    spent += seconds;
  }
  return best;
}

typedef struct gemm_context {
  const cnk_int8_kernels *kernels;
  int64_t rows, k, columns, lda, ldc;
  const uint8_t *a;
  const void *packed;
  cnk_requantization q;
  uint8_t *c;
} gemm_context;

static void run_gemm(const void *context) {
  const gemm_context *g = context;
  g->kernels->qgemm(g->rows, g->k, g->a, g->lda, g->packed, g->columns, &g->q, g->c, g->ldc);
}

/* Seconds of one pointwise layer; prints its GMAC/s. */
static double bench_gemm(const cnk_int8_kernels *kernels, int64_t rows, int64_t k,
                         int64_t columns, int count) {
  gemm_context g = {kernels, rows, k, columns, (k + 15) / 16 * 16, (columns + 15) / 16 * 16,
                    0, 0, requantization(columns, k), 0};
  int8_t *w = weights(columns * k, 7);
  g.a = filled(rows * g.lda, 3);
  g.c = filled(rows * g.ldc, 1);
  void *packed = filled(kernels->qgemm_packed_bytes(columns, k), 0);
  kernels->qgemm_pack(w, columns, k, k, packed);
  g.packed = packed;
  double seconds = best_seconds(run_gemm, &g);
  printf("  qgemm %5lld x %4lld x %4lld (x%d): %7.1f GMAC/s %8.1f us\n", (long long)rows,
         (long long)k, (long long)columns, count, (double)(rows * k * columns) / seconds * 1e-9,
         seconds * 1e6);
  free(w);
  free((void *)g.a);
  free(g.c);
  free(packed);
  free((void *)g.q.bias);
  free((void *)g.q.scale);
  return seconds * count;
}

typedef struct depthwise_context {
  const cnk_int8_kernels *kernels;
  int64_t size, channels, stride, out;
  cnk_window window;
  const uint8_t *input;
  const void *packed;
  cnk_requantization q;
  uint8_t *output;
} depthwise_context;

static void run_depthwise(const void *context) {
  const depthwise_context *d = context;
  d->kernels->qdepthwise(d->input, d->size, d->size, d->channels, d->stride, d->packed, 128,
                         &d->window, &d->q, d->output, d->out, d->out, d->stride, 0, d->out);
}

/* Seconds of one depthwise layer (square, "same" padding); prints its GMAC/s. */
static double bench_depthwise(const cnk_int8_kernels *kernels, int64_t size, int64_t channels,
                              int64_t kernel, int64_t stride, int count) {
  int64_t pad = kernel / 2, out = (size + 2 * pad - kernel) / stride + 1;
  depthwise_context d = {kernels, size, channels, (channels + 15) / 16 * 16, out,
                         {kernel, kernel, stride, stride, 1, 1, pad, pad},
                         0, 0, requantization(channels, kernel * kernel), 0};
  int8_t *w = weights(channels * kernel * kernel, 5);
  d.input = filled(size * size * d.stride, 2);
  d.output = filled(out * out * d.stride, 1);
  void *packed = filled(kernels->qdepthwise_packed_bytes(channels, kernel * kernel), 0);
  kernels->qdepthwise_pack(w, channels, kernel * kernel, packed);
  d.packed = packed;
  double seconds = best_seconds(run_depthwise, &d);
  double macs = (double)(out * out * channels * kernel * kernel);
  printf("  qdepthwise %3lld^2 x %4lld k%lld s%lld (x%d): %7.1f GMAC/s %8.1f us\n",
         (long long)size, (long long)channels, (long long)kernel, (long long)stride, count,
         macs / seconds * 1e-9, seconds * 1e6);
  free(w);
  free((void *)d.input);
  free(d.output);
  free(packed);
  free((void *)d.q.bias);
  free((void *)d.q.scale);
  return seconds * count;
}

/* Lite0's convolutions: rows x k x columns (with how often each occurs), and depthwise input
   size x channels, kernel, stride. The stem is its im2col product. */
static const int64_t pointwise[][4] = {
    {12544, 27, 32, 1},  {12544, 32, 16, 1}, {12544, 16, 96, 1}, {3136, 96, 24, 1},
    {3136, 24, 144, 2},  {3136, 144, 24, 1}, {784, 144, 40, 1},  {784, 40, 240, 2},
    {784, 240, 40, 1},   {196, 240, 80, 1},  {196, 80, 480, 3},  {196, 480, 80, 2},
    {196, 480, 112, 1},  {196, 112, 672, 3}, {196, 672, 112, 2}, {49, 672, 192, 1},
    {49, 192, 1152, 4},  {49, 1152, 192, 3}, {49, 1152, 320, 1}, {49, 320, 1280, 1},
    {1, 1280, 1000, 1}};
static const int64_t depthwise[][5] = {
    {112, 32, 3, 1, 1}, {112, 96, 3, 2, 1},  {56, 144, 3, 1, 1},  {56, 144, 5, 2, 1},
    {28, 240, 5, 1, 1}, {28, 240, 3, 2, 1},  {14, 480, 3, 1, 2},  {14, 480, 5, 1, 1},
    {14, 672, 5, 1, 2}, {14, 672, 5, 2, 1},  {7, 1152, 5, 1, 3},  {7, 1152, 3, 1, 1}};

static void bench_variant(const cnk_int8_kernels *kernels) {
  printf("int8 variant %s\n", kernels->name);
  double gemm = 0, dw = 0;
  for (size_t i = 0; i < sizeof pointwise / sizeof pointwise[0]; i++) {
    gemm += bench_gemm(kernels, pointwise[i][0], pointwise[i][1], pointwise[i][2],
                       (int)pointwise[i][3]);
  }
  for (size_t i = 0; i < sizeof depthwise / sizeof depthwise[0]; i++) {
    dw += bench_depthwise(kernels, depthwise[i][0], depthwise[i][1], depthwise[i][2],
                          depthwise[i][3], (int)depthwise[i][4]);
  }
  printf("  Lite0 convolutions per image: pointwise + stem %.3f ms, depthwise %.3f ms, "
         "total %.3f ms\n", gemm * 1e3, dw * 1e3, (gemm + dw) * 1e3);
}

int main(int argc, char **argv) {
  const char *names[] = {"avx512-vnni", "avx-vnni", "avx2", "neon-dotprod", "neon", "portable"};
  for (int i = 0; i < 6; i++) {
    int wanted = argc == 1;
    for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], names[i]) == 0;
    const cnk_int8_kernels *kernels = cnk_int8_kernels_variant(names[i]);
    if (wanted && kernels) bench_variant(kernels);
  }
  return 0;
}
