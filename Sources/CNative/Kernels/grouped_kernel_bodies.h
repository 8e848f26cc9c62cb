/*
 * The blocked grouped convolution of every generic set, included by generic_kernel_bodies.h
 * after its layout helpers (finish) and before the descriptor: one source over the set's
 * vector API. No include guard on purpose.
 *
 * Each output block reads the `span` input blocks of its groups: for each tap and each input
 * lane, one weight vector (one lane per output channel, zero outside that channel's group)
 * against a broadcast input value per position, so PT consecutive outputs of a row take PT
 * accumulators. With groups narrower than a block, part of each weight vector is zero: the
 * kernel does lanes / group-width times the real multiplications, which still runs several
 * times faster than a GEMM of 8 rows per group.
 */

/* The most consecutive outputs a grouped tile takes: PT accumulators, a weight vector and a
   broadcast stay in registers. */
enum { GROUPED_MOST = ACC >= 24 ? 14 : 8 };

/* PT consecutive outputs of row oy starting at ox, every column tap inside the input. */
TARGET INLINE void grouped_tile(const float *input, int64_t plane, int64_t span, int64_t height,
                                int64_t width, const float *weights, const cnk_window *w,
                                int64_t oy, int64_t ox, const int PT, vf bias, vf low, vf high,
                                int64_t block, int64_t channels, float *output) {
  vf acc[GROUPED_MOST];
#pragma clang loop unroll(full)
  for (int j = 0; j < PT; j++) acc[j] = bias;
  int64_t kh = w->kernel_height, kw = w->kernel_width, step = w->stride_x * LANES;
  for (int64_t s = 0; s < span; s++) {
    for (int64_t ky = 0; ky < kh; ky++) {
      int64_t y = oy * w->stride_y + ky * w->dilation_y - w->pad_top;
      if (y < 0 || y >= height) continue;
      const float *row = input + s * plane + (y * width + ox * w->stride_x - w->pad_left) * LANES;
      const float *taps = weights + ((s * kh + ky) * kw) * LANES * LANES;
      for (int64_t kx = 0; kx < kw; kx++) {
        const float *x = row + kx * w->dilation_x * LANES;
        const float *tap = taps + kx * LANES * LANES;
#pragma clang loop unroll(full)
        for (int c = 0; c < LANES; c++) {
          vf wv = v_load(tap + c * LANES);
#pragma clang loop unroll(full)
          for (int j = 0; j < PT; j++) acc[j] = v_fma(v_set1(x[j * step + c]), wv, acc[j]);
        }
      }
    }
  }
#pragma clang loop unroll(full)
  for (int j = 0; j < PT; j++) {
    v_store(output + j * LANES, finish(acc[j], low, high, block, channels));
  }
}

/* One output with every tap checked against the input's bounds (the edge columns). */
TARGET static void grouped_checked(const float *input, int64_t plane, int64_t span,
                                   int64_t height, int64_t width, const float *weights,
                                   const cnk_window *w, int64_t oy, int64_t ox, vf bias, vf low,
                                   vf high, int64_t block, int64_t channels, float *output) {
  vf sum = bias;
  int64_t kh = w->kernel_height, kw = w->kernel_width;
  for (int64_t s = 0; s < span; s++) {
    for (int64_t ky = 0; ky < kh; ky++) {
      int64_t y = oy * w->stride_y + ky * w->dilation_y - w->pad_top;
      if (y < 0 || y >= height) continue;
      for (int64_t kx = 0; kx < kw; kx++) {
        int64_t x = ox * w->stride_x + kx * w->dilation_x - w->pad_left;
        if (x < 0 || x >= width) continue;
        const float *value = input + s * plane + (y * width + x) * LANES;
        const float *tap = weights + ((s * kh + ky) * kw + kx) * LANES * LANES;
        for (int c = 0; c < LANES; c++) sum = v_fma(v_set1(value[c]), v_load(tap + c * LANES), sum);
      }
    }
  }
  v_store(output, finish(sum, low, high, block, channels));
}

#define GROUPED_CASE(P)                                                                        \
  case P:                                                                                      \
    grouped_tile(input, plane, span, height, width, weights, w, oy, ox, P, bias, low, high,    \
                 block, channels, output);                                                     \
    break;

/* `count` (1...GROUPED_MOST) outputs of one row. */
TARGET static void grouped_dispatch(const float *input, int64_t plane, int64_t span,
                                    int64_t height, int64_t width, const float *weights,
                                    const cnk_window *w, int64_t oy, int64_t ox, int64_t count,
                                    vf bias, vf low, vf high, int64_t block, int64_t channels,
                                    float *output) {
  switch (count) {
    GROUPED_CASE(1) GROUPED_CASE(2) GROUPED_CASE(3) GROUPED_CASE(4) GROUPED_CASE(5)
    GROUPED_CASE(6) GROUPED_CASE(7) GROUPED_CASE(8)
#if ACCUMULATORS >= 24
    GROUPED_CASE(14)
#endif
    default: break;
  }
}

/* The tile for a run of `inner` outputs: one that divides it when there is one. */
static inline int64_t grouped_tile_size(int64_t inner) {
  if (GROUPED_MOST >= 14 && inner % 14 == 0) return 14;
  if (inner % 8 != 0 && inner % 7 == 0) return 7;
  return 8;
}

TARGET static void grouped_blocked(const float *input, int64_t height, int64_t width,
                                   int64_t span, const float *weights, const float *bias,
                                   int64_t block, int64_t channels, const cnk_window *w,
                                   float *output, int64_t output_height, int64_t output_width,
                                   int64_t first_row, int64_t row_count, float clamp_min,
                                   float clamp_max) {
  (void)output_height;
  vf low = v_set1(clamp_min), high = v_set1(clamp_max), start = v_load(bias);
  int64_t plane = height * width * LANES;
  int64_t inner_start, inner_end;
  inner_columns(w, width, output_width, &inner_start, &inner_end);
  int64_t tile = grouped_tile_size(inner_end - inner_start);
  for (int64_t oy = first_row; oy < first_row + row_count; oy++) {
    float *target = output + oy * output_width * LANES;
    for (int64_t ox = 0; ox < inner_start; ox++) {
      grouped_checked(input, plane, span, height, width, weights, w, oy, ox, start, low, high,
                      block, channels, target + ox * LANES);
    }
    for (int64_t ox = inner_start; ox < inner_end;) {
      int64_t count = inner_end - ox < tile ? inner_end - ox : tile;
      if (count != tile && count > 8) count = 8;
      grouped_dispatch(input, plane, span, height, width, weights, w, oy, ox, count, start, low,
                       high, block, channels, target + ox * LANES);
      ox += count;
    }
    for (int64_t ox = inner_end; ox < output_width; ox++) {
      grouped_checked(input, plane, span, height, width, weights, w, oy, ox, start, low, high,
                      block, channels, target + ox * LANES);
    }
  }
}
