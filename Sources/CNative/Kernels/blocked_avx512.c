#include "avx512_kernels.h"

#include <string.h>

/*
 * Kernels over the blocked channel layout (NCHW16c): an image of C channels is ceil(C / 16)
 * blocks, each a height x width plane of 16-float vectors, one lane per channel. Lanes past the
 * last channel are kept at zero by every kernel here, so a reader may use whole vectors.
 */

enum { LANES = CNK_BLOCK_LANES };

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
#define INLINE static inline __attribute__((always_inline))

/* The lanes of output block `block` that hold channels (all sixteen but in the last block). */
AVX512 INLINE __mmask16 channel_lanes(int64_t block, int64_t channels) {
  int64_t valid = channels - block * LANES;
  return valid >= LANES ? (__mmask16)0xFFFF : (__mmask16)((1u << valid) - 1u);
}

/* Clamps and zeroes the lanes past the last channel (register operations only). */
AVX512 INLINE __m512 finish(__m512 value, __m512 low, __m512 high, __mmask16 keep) {
  return _mm512_maskz_mov_ps(keep, _mm512_min_ps(high, _mm512_max_ps(low, value)));
}

/* MARK: Pointwise */

/*
 * FB output blocks x PT positions of a pointwise convolution. FB and PT are constants at every
 * call site, so the FB * PT <= 24 accumulators are registers. Each input channel is one
 * broadcast per position against FB weight vectors.
 */
AVX512 INLINE void pointwise_tile(const float *input, int64_t input_blocks, int64_t block_stride,
                                  const float *weights, int64_t weight_stride, const int FB,
                                  const int PT, const float *bias, const float *residual,
                                  __m512 low, __m512 high, int64_t first_block,
                                  int64_t channels, float *output) {
  __m512 acc[4][24];
#pragma clang loop unroll(full)
  for (int f = 0; f < FB; f++) {
    __m512 start = _mm512_loadu_ps(bias + f * LANES);
#pragma clang loop unroll(full)
    for (int j = 0; j < PT; j++) acc[f][j] = start;
  }
#pragma clang loop unroll(disable)
  for (int64_t cb = 0; cb < input_blocks; cb++) {
    const float *x = input + cb * block_stride;
    const float *w = weights + cb * LANES * LANES;
#pragma clang loop unroll(disable)
    for (int c = 0; c < LANES; c++) {
      __m512 wv[4];
#pragma clang loop unroll(full)
      for (int f = 0; f < FB; f++) wv[f] = _mm512_loadu_ps(w + f * weight_stride + c * LANES);
#pragma clang loop unroll(full)
      for (int j = 0; j < PT; j++) {
        __m512 xv = _mm512_set1_ps(x[j * LANES + c]);
#pragma clang loop unroll(full)
        for (int f = 0; f < FB; f++) acc[f][j] = _mm512_fmadd_ps(wv[f], xv, acc[f][j]);
      }
    }
  }
#pragma clang loop unroll(full)
  for (int f = 0; f < FB; f++) {
    __mmask16 keep = channel_lanes(first_block + f, channels);
#pragma clang loop unroll(full)
    for (int j = 0; j < PT; j++) {
      __m512 value = acc[f][j];
      if (residual) value = _mm512_add_ps(value, _mm512_loadu_ps(residual + j * LANES));
      _mm512_storeu_ps(output + j * LANES, finish(value, low, high, keep));
    }
    output += block_stride;
    if (residual) residual += block_stride;
  }
}

#define PT_CASE(F, P)                                                                          \
  case P:                                                                                      \
    pointwise_tile(input, input_blocks, block_stride, weights, weight_stride, F, P, bias,      \
                   residual, low, high, first_block, channels, output);                        \
    break;

#define PT_CASES_8(F)                                                                          \
  PT_CASE(F, 1) PT_CASE(F, 2) PT_CASE(F, 3) PT_CASE(F, 4) PT_CASE(F, 5) PT_CASE(F, 6)          \
  PT_CASE(F, 7) PT_CASE(F, 8)

/* One tile of `blocks` (1...3) output blocks by `positions` positions (<= 24 / blocks). */
AVX512 static void pointwise_dispatch(const float *input, int64_t input_blocks,
                                      int64_t block_stride, const float *weights,
                                      int64_t weight_stride, int64_t blocks, int64_t positions,
                                      const float *bias, const float *residual, __m512 low,
                                      __m512 high, int64_t first_block, int64_t channels,
                                      float *output) {
  if (blocks == 3) {
    switch (positions) { PT_CASES_8(3) default: break; }
  } else if (blocks == 2) {
    switch (positions) {
      PT_CASES_8(2)
      PT_CASE(2, 9) PT_CASE(2, 10) PT_CASE(2, 11) PT_CASE(2, 12)
      default: break;
    }
  } else {
    switch (positions) {
      PT_CASES_8(1)
      PT_CASE(1, 9) PT_CASE(1, 10) PT_CASE(1, 11) PT_CASE(1, 12) PT_CASE(1, 13) PT_CASE(1, 14)
      PT_CASE(1, 15) PT_CASE(1, 16)
      default: break;
    }
  }
}

AVX512 void cnk_pointwise_blocked_avx512(const float *input, int64_t input_channels,
                                         int64_t positions, const float *weights,
                                         const float *bias, int64_t output_channels,
                                         int64_t first_block, int64_t block_count,
                                         int64_t start, int64_t count, const float *residual,
                                         float clamp_min, float clamp_max, float *output,
                                         const cnk_blocked_tiling *tiling) {
  int64_t input_blocks = (input_channels + LANES - 1) / LANES;
  int64_t block_stride = positions * LANES;
  int64_t weight_stride = input_blocks * LANES * LANES;
  int64_t group = tiling->blocks;
  int64_t tile = tiling->positions;
  int64_t chunk = tiling->chunk < tile ? tile : tiling->chunk / tile * tile;
  __m512 low = _mm512_set1_ps(clamp_min);
  __m512 high = _mm512_set1_ps(clamp_max);
  for (int64_t first = start; first < start + count; first += chunk) {
    int64_t end = first + chunk < start + count ? first + chunk : start + count;
    for (int64_t block = first_block; block < first_block + block_count; block += group) {
      int64_t blocks = first_block + block_count - block < group ? first_block + block_count - block
                                                                  : group;
      /* A lone last block takes twice the positions so its accumulators stay busy. */
      int64_t most = blocks == 3 ? 8 : (blocks == 2 ? 12 : 16);
      int64_t step = blocks == group ? tile : most;
      if (step > most) step = most;
      for (int64_t p = first; p < end; p += step) {
        int64_t n = end - p < step ? end - p : step;
        int64_t offset = block * block_stride + p * LANES;
        pointwise_dispatch(input + p * LANES, input_blocks, block_stride,
                           weights + block * weight_stride, weight_stride, blocks, n,
                           bias + block * LANES, residual ? residual + offset : 0, low, high,
                           block, output_channels, output + offset);
      }
    }
  }
}

/* MARK: Depthwise */

/* Taps of one padded row at constant width, stride and unit dilation: T outputs at once. */
AVX512 INLINE void depthwise_tile(const float *const *rows, int64_t kernel_height,
                                  const float *weights, const int KW, const int SX, const int T,
                                  int64_t dilation_x, __m512 bias, __m512 low, __m512 high,
                                  __mmask16 keep, float *output) {
  __m512 acc[8];
#pragma clang loop unroll(full)
  for (int j = 0; j < T; j++) acc[j] = bias;
  for (int64_t ky = 0; ky < kernel_height; ky++) {
    const float *row = rows[ky];
    if (!row) continue;
    const float *w = weights + ky * KW * LANES;
#pragma clang loop unroll(full)
    for (int kx = 0; kx < KW; kx++) {
      __m512 wv = _mm512_loadu_ps(w + kx * LANES);
      const float *x = row + kx * dilation_x * LANES;
#pragma clang loop unroll(full)
      for (int j = 0; j < T; j++) {
        acc[j] = _mm512_fmadd_ps(_mm512_loadu_ps(x + j * SX * LANES), wv, acc[j]);
      }
    }
  }
#pragma clang loop unroll(full)
  for (int j = 0; j < T; j++) _mm512_storeu_ps(output + j * LANES, finish(acc[j], low, high, keep));
}

/* Any kernel width and stride: T outputs at once. */
AVX512 INLINE void depthwise_tile_any(const float *const *rows, int64_t kernel_height,
                                      int64_t kernel_width, const float *weights,
                                      int64_t stride_x, const int T, int64_t dilation_x,
                                      __m512 bias, __m512 low, __m512 high, __mmask16 keep,
                                      float *output) {
  __m512 acc[8];
#pragma clang loop unroll(full)
  for (int j = 0; j < T; j++) acc[j] = bias;
  for (int64_t ky = 0; ky < kernel_height; ky++) {
    const float *row = rows[ky];
    if (!row) continue;
    for (int64_t kx = 0; kx < kernel_width; kx++) {
      __m512 wv = _mm512_loadu_ps(weights + (ky * kernel_width + kx) * LANES);
      const float *x = row + kx * dilation_x * LANES;
#pragma clang loop unroll(full)
      for (int j = 0; j < T; j++) {
        acc[j] = _mm512_fmadd_ps(_mm512_loadu_ps(x + j * stride_x * LANES), wv, acc[j]);
      }
    }
  }
#pragma clang loop unroll(full)
  for (int j = 0; j < T; j++) _mm512_storeu_ps(output + j * LANES, finish(acc[j], low, high, keep));
}

#define DW_CASE(KW, SX, T)                                                                     \
  case T:                                                                                      \
    depthwise_tile(rows, kh, weights, KW, SX, T, dx, bias, low, high, keep, output);           \
    break;
#define DW_SWITCH(KW, SX)                                                                      \
  switch (count) {                                                                             \
    DW_CASE(KW, SX, 1) DW_CASE(KW, SX, 2) DW_CASE(KW, SX, 3) DW_CASE(KW, SX, 4)                \
    DW_CASE(KW, SX, 5) DW_CASE(KW, SX, 6) DW_CASE(KW, SX, 7) DW_CASE(KW, SX, 8)                \
    default: break;                                                                            \
  }
#define DW_ANY_CASE(T)                                                                         \
  case T:                                                                                      \
    depthwise_tile_any(rows, kh, kw, weights, sx, T, dx, bias, low, high, keep, output);       \
    break;

/* `count` (1...8) outputs of one row starting at padded column `column`. */
AVX512 static void depthwise_dispatch(const float *const *rows, int64_t kh, int64_t kw,
                                      int64_t sx, int64_t dx, int64_t count,
                                      const float *weights, __m512 bias, __m512 low,
                                      __m512 high, __mmask16 keep, float *output) {
  if (kw == 3 && sx == 1) {
    DW_SWITCH(3, 1)
  } else if (kw == 3 && sx == 2) {
    DW_SWITCH(3, 2)
  } else if (kw == 5 && sx == 1) {
    DW_SWITCH(5, 1)
  } else if (kw == 5 && sx == 2) {
    DW_SWITCH(5, 2)
  } else {
    switch (count) {
      DW_ANY_CASE(1) DW_ANY_CASE(2) DW_ANY_CASE(3) DW_ANY_CASE(4)
      DW_ANY_CASE(5) DW_ANY_CASE(6) DW_ANY_CASE(7) DW_ANY_CASE(8)
      default: break;
    }
  }
}

/* Two output rows at once (unit dilation): rows[0 ... kh + SY - 1] are the input rows both read;
   row r feeds the first output row with kernel row r and the second with kernel row r - SY, so
   each input vector is loaded once for up to two FMAs. */
AVX512 INLINE void depthwise_tile2(const float *const *rows, int64_t kernel_height,
                                   const float *weights, const int KW, const int SX, const int SY,
                                   const int T, __m512 bias, __m512 low, __m512 high,
                                   __mmask16 keep, float *output, float *second) {
  __m512 acc[8], acc2[8];
#pragma clang loop unroll(full)
  for (int j = 0; j < T; j++) acc[j] = acc2[j] = bias;
  for (int64_t r = 0; r < kernel_height + SY; r++) {
    const float *row = rows[r];
    if (!row) continue;
    int first = r < kernel_height, other = r >= SY;
    const float *w = weights + r * KW * LANES;
    const float *w2 = other ? weights + (r - SY) * KW * LANES : weights;
#pragma clang loop unroll(full)
    for (int kx = 0; kx < KW; kx++) {
      __m512 x[8];
#pragma clang loop unroll(full)
      for (int j = 0; j < T; j++) x[j] = _mm512_loadu_ps(row + (kx + j * SX) * LANES);
      if (first) {
        __m512 wv = _mm512_loadu_ps(w + kx * LANES);
#pragma clang loop unroll(full)
        for (int j = 0; j < T; j++) acc[j] = _mm512_fmadd_ps(x[j], wv, acc[j]);
      }
      if (other) {
        __m512 wv = _mm512_loadu_ps(w2 + kx * LANES);
#pragma clang loop unroll(full)
        for (int j = 0; j < T; j++) acc2[j] = _mm512_fmadd_ps(x[j], wv, acc2[j]);
      }
    }
  }
#pragma clang loop unroll(full)
  for (int j = 0; j < T; j++) {
    _mm512_storeu_ps(output + j * LANES, finish(acc[j], low, high, keep));
    _mm512_storeu_ps(second + j * LANES, finish(acc2[j], low, high, keep));
  }
}

#define DW2_CASE(KW, SX, SY, T)                                                                \
  case T:                                                                                      \
    depthwise_tile2(rows, kh, weights, KW, SX, SY, T, bias, low, high, keep, output, second);  \
    return 1;
#define DW2_SWITCH(KW, SX, SY)                                                                 \
  switch (count) {                                                                             \
    DW2_CASE(KW, SX, SY, 1) DW2_CASE(KW, SX, SY, 2) DW2_CASE(KW, SX, SY, 3)                    \
    DW2_CASE(KW, SX, SY, 4) DW2_CASE(KW, SX, SY, 5) DW2_CASE(KW, SX, SY, 6)                    \
    DW2_CASE(KW, SX, SY, 7) DW2_CASE(KW, SX, SY, 8)                                            \
    default: return 0;                                                                         \
  }

/* `count` (1...8) outputs of two rows for the common windows; returns 0 (writing nothing) for
   any other, which then runs one row at a time. */
AVX512 static int depthwise_dispatch2(const float *const *rows, int64_t kh, int64_t kw,
                                      int64_t sx, int64_t sy, int64_t count,
                                      const float *weights, __m512 bias, __m512 low,
                                      __m512 high, __mmask16 keep, float *output,
                                      float *second) {
  if (kw == 3 && sx == 1 && sy == 1) DW2_SWITCH(3, 1, 1)
  if (kw == 3 && sx == 2 && sy == 2) DW2_SWITCH(3, 2, 2)
  if (kw == 5 && sx == 1 && sy == 1) DW2_SWITCH(5, 1, 1)
  if (kw == 5 && sx == 2 && sy == 2) DW2_SWITCH(5, 2, 2)
  return 0;
}

/* The most kernel rows the ring of padded rows holds; taller windows take the checked path. */
enum { MAX_RING = 64 };

/* Any window without scratch: one output vector at a time, taps outside the plane skipped. */
AVX512 static void depthwise_checked(const float *input, int64_t height, int64_t width,
                                     const float *weights, __m512 bias, const cnk_window *w,
                                     float *output, int64_t output_width, int64_t first_row,
                                     int64_t row_count, __m512 low, __m512 high,
                                     __mmask16 keep) {
  for (int64_t oy = first_row; oy < first_row + row_count; oy++) {
    for (int64_t ox = 0; ox < output_width; ox++) {
      __m512 sum = bias;
      for (int64_t ky = 0; ky < w->kernel_height; ky++) {
        int64_t y = oy * w->stride_y + ky * w->dilation_y - w->pad_top;
        if (y < 0 || y >= height) continue;
        for (int64_t kx = 0; kx < w->kernel_width; kx++) {
          int64_t x = ox * w->stride_x + kx * w->dilation_x - w->pad_left;
          if (x < 0 || x >= width) continue;
          sum = _mm512_fmadd_ps(_mm512_loadu_ps(input + (y * width + x) * LANES),
                                _mm512_loadu_ps(weights + (ky * w->kernel_width + kx) * LANES),
                                sum);
        }
      }
      _mm512_storeu_ps(output + (oy * output_width + ox) * LANES, finish(sum, low, high, keep));
    }
  }
}

AVX512 void cnk_depthwise_blocked_avx512(const float *input, int64_t height, int64_t width,
                                         const float *weights, const float *bias,
                                         int64_t block, int64_t channels, const cnk_window *w,
                                         float *output, int64_t output_height,
                                         int64_t output_width, int64_t first_row,
                                         int64_t row_count, float clamp_min,
                                         float clamp_max) {
  (void)output_height;
  __m512 low = _mm512_set1_ps(clamp_min);
  __m512 high = _mm512_set1_ps(clamp_max);
  __m512 start = _mm512_loadu_ps(bias);
  __mmask16 keep = channel_lanes(block, channels);
  int64_t kh = w->kernel_height, kw = w->kernel_width, sy = w->stride_y;
  int64_t extent = (kh - 1) * w->dilation_y + 1;
  /* Two output rows at a time read extent + stride rows; the ring holds that many. */
  int64_t slots = extent + sy;
  /* Padded rows: the pad columns are zero, so every tap reads valid memory without checks. */
  int64_t reach = (output_width - 1) * w->stride_x + (kw - 1) * w->dilation_x + 1;
  int64_t padded = w->pad_left + width > reach ? w->pad_left + width : reach;
  float *ring = slots <= MAX_RING && kh + sy <= MAX_RING
                    ? cnk_thread_scratch((size_t)(slots * padded * LANES) * sizeof(float))
                    : 0;
  if (!ring) {
    depthwise_checked(input, height, width, weights, start, w, output, output_width, first_row,
                      row_count, low, high, keep);
    return;
  }
  int64_t ring_rows[MAX_RING];
  for (int64_t slot = 0; slot < slots; slot++) {
    ring_rows[slot] = -1;
    float *row = ring + slot * padded * LANES;
    memset(row, 0, (size_t)(w->pad_left * LANES) * sizeof(float));
    memset(row + (w->pad_left + width) * LANES, 0,
           (size_t)((padded - w->pad_left - width) * LANES) * sizeof(float));
  }
  const float *rows[MAX_RING];
  int64_t tile = output_width % 8 != 0 && output_width % 7 == 0 ? 7 : 8;
  int64_t end = first_row + row_count;
  for (int64_t oy = first_row; oy < end;) {
    /* Input rows oy * sy - pad_top + r for r < kh (one output row) or r < kh + sy (two). */
    int pair = oy + 1 < end && w->dilation_y == 1;
    int64_t needed = pair ? kh + sy : kh;
    for (int64_t r = 0; r < needed; r++) {
      int64_t y = oy * sy + r * w->dilation_y - w->pad_top;
      if (y < 0 || y >= height) {
        rows[r] = 0;
        continue;
      }
      int64_t slot = y % slots;
      float *row = ring + slot * padded * LANES;
      if (ring_rows[slot] != y) {
        memcpy(row + w->pad_left * LANES, input + y * width * LANES,
               (size_t)(width * LANES) * sizeof(float));
        ring_rows[slot] = y;
      }
      rows[r] = row;
    }
    float *target = output + oy * output_width * LANES;
    float *second = target + output_width * LANES;
    for (int64_t ox = 0; ox < output_width; ox += tile) {
      int64_t count = output_width - ox < tile ? output_width - ox : tile;
      const float *shifted[MAX_RING];
      for (int64_t r = 0; r < needed; r++) {
        shifted[r] = rows[r] ? rows[r] + ox * w->stride_x * LANES : 0;
      }
      if (pair && depthwise_dispatch2(shifted, kh, kw, w->stride_x, sy, count, weights, start,
                                      low, high, keep, target + ox * LANES,
                                      second + ox * LANES)) {
        continue;
      }
      depthwise_dispatch(shifted, kh, kw, w->stride_x, w->dilation_x, count, weights, start, low,
                         high, keep, target + ox * LANES);
      if (pair) {
        depthwise_dispatch(shifted + sy, kh, kw, w->stride_x, w->dilation_x, count, weights,
                           start, low, high, keep, second + ox * LANES);
      }
    }
    oy += pair ? 2 : 1;
  }
}

/* MARK: Direct convolution from NCHW */

/* FB output blocks x PT consecutive outputs of one row, every tap inside the input. PT is at most
   8: with 2 x 12 accumulators the compiler spilled registers in the tap loop (measured 22 %
   slower on a 224 x 224 stem). */
AVX512 INLINE void direct_tile(const float *input, int64_t channels, int64_t height,
                               int64_t width, const float *weights, int64_t weight_stride,
                               const cnk_window *w, int64_t oy, int64_t ox, const int FB,
                               const int PT, const float *bias, __m512 low, __m512 high,
                               int64_t first_block, int64_t output_channels,
                               int64_t block_stride, float *output) {
  __m512 acc[2][8];
#pragma clang loop unroll(full)
  for (int f = 0; f < FB; f++) {
    __m512 start = _mm512_loadu_ps(bias + f * LANES);
#pragma clang loop unroll(full)
    for (int j = 0; j < PT; j++) acc[f][j] = start;
  }
  int64_t kh = w->kernel_height, kw = w->kernel_width, sx = w->stride_x;
  for (int64_t c = 0; c < channels; c++) {
    for (int64_t ky = 0; ky < kh; ky++) {
      int64_t y = oy * w->stride_y + ky * w->dilation_y - w->pad_top;
      if (y < 0 || y >= height) continue;
      const float *row = input + (c * height + y) * width + ox * sx - w->pad_left;
      const float *tap = weights + ((c * kh + ky) * kw) * LANES;
      for (int64_t kx = 0; kx < kw; kx++) {
        const float *x = row + kx * w->dilation_x;
        __m512 wv[2];
#pragma clang loop unroll(full)
        for (int f = 0; f < FB; f++) wv[f] = _mm512_loadu_ps(tap + f * weight_stride + kx * LANES);
#pragma clang loop unroll(full)
        for (int j = 0; j < PT; j++) {
          __m512 xv = _mm512_set1_ps(x[j * sx]);
#pragma clang loop unroll(full)
          for (int f = 0; f < FB; f++) acc[f][j] = _mm512_fmadd_ps(wv[f], xv, acc[f][j]);
        }
      }
    }
  }
#pragma clang loop unroll(full)
  for (int f = 0; f < FB; f++) {
    __mmask16 keep = channel_lanes(first_block + f, output_channels);
#pragma clang loop unroll(full)
    for (int j = 0; j < PT; j++) {
      _mm512_storeu_ps(output + f * block_stride + j * LANES, finish(acc[f][j], low, high, keep));
    }
  }
}

/* One output of FB (1 or 2) blocks with every tap checked against the input's bounds. */
AVX512 static void direct_checked(const float *input, int64_t channels, int64_t height,
                                  int64_t width, const float *weights, int64_t weight_stride,
                                  const cnk_window *w, int64_t oy, int64_t ox, int64_t blocks,
                                  const float *bias, __m512 low, __m512 high,
                                  int64_t first_block, int64_t output_channels,
                                  int64_t block_stride, float *output) {
  for (int64_t f = 0; f < blocks; f++) {
    __m512 sum = _mm512_loadu_ps(bias + f * LANES);
    const float *filter = weights + f * weight_stride;
    for (int64_t c = 0; c < channels; c++) {
      for (int64_t ky = 0; ky < w->kernel_height; ky++) {
        int64_t y = oy * w->stride_y + ky * w->dilation_y - w->pad_top;
        if (y < 0 || y >= height) continue;
        for (int64_t kx = 0; kx < w->kernel_width; kx++) {
          int64_t x = ox * w->stride_x + kx * w->dilation_x - w->pad_left;
          if (x < 0 || x >= width) continue;
          int64_t tap = (c * w->kernel_height + ky) * w->kernel_width + kx;
          sum = _mm512_fmadd_ps(_mm512_loadu_ps(filter + tap * LANES),
                                _mm512_set1_ps(input[(c * height + y) * width + x]), sum);
        }
      }
    }
    __mmask16 keep = channel_lanes(first_block + f, output_channels);
    _mm512_storeu_ps(output + f * block_stride, finish(sum, low, high, keep));
  }
}

#define DIRECT_CASE(F, P)                                                                      \
  case P:                                                                                      \
    direct_tile(input, channels, height, width, weights, weight_stride, w, oy, ox, F, P, bias, \
                low, high, first_block, output_channels, block_stride, output);                \
    break;
#define DIRECT_SWITCH(F)                                                                       \
  switch (count) {                                                                             \
    DIRECT_CASE(F, 1) DIRECT_CASE(F, 2) DIRECT_CASE(F, 3) DIRECT_CASE(F, 4) DIRECT_CASE(F, 5)  \
    DIRECT_CASE(F, 6) DIRECT_CASE(F, 7) DIRECT_CASE(F, 8)                                      \
    default: break;                                                                            \
  }

AVX512 static void direct_dispatch(const float *input, int64_t channels, int64_t height,
                                   int64_t width, const float *weights, int64_t weight_stride,
                                   const cnk_window *w, int64_t oy, int64_t ox, int64_t blocks,
                                   int64_t count, const float *bias, __m512 low, __m512 high,
                                   int64_t first_block, int64_t output_channels,
                                   int64_t block_stride, float *output) {
  if (blocks == 2) {
    DIRECT_SWITCH(2)
  } else {
    DIRECT_SWITCH(1)
  }
}

AVX512 void cnk_conv_direct_blocked_avx512(const float *input, int64_t channels, int64_t height,
                                           int64_t width, const float *weights,
                                           const float *bias, int64_t output_channels,
                                           const cnk_window *w, float *output,
                                           int64_t output_height, int64_t output_width,
                                           int64_t first_block, int64_t block_count,
                                           int64_t first_row, int64_t row_count,
                                           float clamp_min, float clamp_max) {
  __m512 low = _mm512_set1_ps(clamp_min);
  __m512 high = _mm512_set1_ps(clamp_max);
  int64_t weight_stride = channels * w->kernel_height * w->kernel_width * LANES;
  int64_t block_stride = output_height * output_width * LANES;
  /* Outputs [inner_start, inner_end) read only columns inside the input. */
  int64_t sx = w->stride_x;
  int64_t inner_start = (w->pad_left + sx - 1) / sx;
  int64_t last = width - 1 + w->pad_left - (w->kernel_width - 1) * w->dilation_x;
  int64_t inner_end = last < 0 ? 0 : last / sx + 1;
  if (inner_end > output_width) inner_end = output_width;
  if (inner_start > inner_end) inner_start = inner_end;
  for (int64_t oy = first_row; oy < first_row + row_count; oy++) {
    for (int64_t block = first_block; block < first_block + block_count; block += 2) {
      int64_t blocks = first_block + block_count - block < 2 ? 1 : 2;
      const float *filters = weights + block * weight_stride;
      const float *shift = bias + block * LANES;
      float *target = output + block * block_stride + oy * output_width * LANES;
      for (int64_t ox = 0; ox < output_width; ox++) {
        if (ox >= inner_start && ox < inner_end) {
          int64_t count = inner_end - ox < 8 ? inner_end - ox : 8;
          direct_dispatch(input, channels, height, width, filters, weight_stride, w, oy, ox,
                          blocks, count, shift, low, high, block, output_channels,
                          block_stride, target + ox * LANES);
          ox += count - 1;
        } else {
          direct_checked(input, channels, height, width, filters, weight_stride, w, oy, ox,
                         blocks, shift, low, high, block, output_channels, block_stride,
                         target + ox * LANES);
        }
      }
    }
  }
}

/* MARK: Pooling */

AVX512 void cnk_global_average_blocked_avx512(const float *input, int64_t channels,
                                              int64_t positions, float *output) {
  int64_t blocks = (channels + LANES - 1) / LANES;
  float scale = positions > 0 ? 1.0f / (float)positions : 0.0f;
  for (int64_t block = 0; block < blocks; block++) {
    const float *source = input + block * positions * LANES;
    __m512 sums[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                      _mm512_setzero_ps()};
    int64_t p = 0;
    for (; p + 4 <= positions; p += 4) {
      for (int i = 0; i < 4; i++) {
        sums[i] = _mm512_add_ps(sums[i], _mm512_loadu_ps(source + (p + i) * LANES));
      }
    }
    for (; p < positions; p++) sums[0] = _mm512_add_ps(sums[0], _mm512_loadu_ps(source + p * LANES));
    __m512 total = _mm512_add_ps(_mm512_add_ps(sums[0], sums[1]), _mm512_add_ps(sums[2], sums[3]));
    _mm512_mask_storeu_ps(output + block * LANES, channel_lanes(block, channels),
                          _mm512_mul_ps(total, _mm512_set1_ps(scale)));
  }
}

#endif
