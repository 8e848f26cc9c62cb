/*
 * Differential test of every CNative kernel set against scalar references written here,
 * independently of the kernels: direct convolution, matrix product, im2col and mean by their
 * definitions. Built and run by Scripts/check-kernels.sh for the host (every set the CPU runs)
 * and for aarch64 under qemu (the NEON set); the int8 variants are checked by int8_check.c.
 * Exit status 0 when every case matches.
 *
 *   kernel_check [set or int8 variant ...]   (default: every set and variant this machine runs)
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CNativeKernels.h"
#include "int8_check.h"

static int failures = 0;
static int cases = 0;
static uint64_t seed = 0x9E3779B97F4A7C15ull;

static float random_float(void) {
  seed = seed * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((seed >> 40) & 0xFFFFFF) / (float)0x1000000 * 2.0f - 1.0f;
}

static float *random_array(int64_t count) {
  float *values = malloc((size_t)(count > 0 ? count : 1) * sizeof(float));
  for (int64_t i = 0; i < count; i++) values[i] = random_float();
  return values;
}

static float *filled(int64_t count, float value) {
  float *values = malloc((size_t)(count > 0 ? count : 1) * sizeof(float));
  for (int64_t i = 0; i < count; i++) values[i] = value;
  return values;
}

static float clamp(float value, float low, float high) {
  value = value < low ? low : value;
  return value > high ? high : value;
}

/* Compares `count` values; reports the first mismatch of a case. */
static void expect_close(const char *set, const char *what, const float *actual,
                         const float *expected, int64_t count, float tolerance) {
  cases++;
  for (int64_t i = 0; i < count; i++) {
    float a = actual[i], e = expected[i];
    float bound = tolerance * (1.0f + fabsf(e));
    if (isnan(e) ? !isnan(a) : !(fabsf(a - e) <= bound)) {
      fprintf(stderr, "FAIL %s %s: index %lld got %.7g expected %.7g\n", set, what,
              (long long)i, a, e);
      failures++;
      return;
    }
  }
}

/* MARK: References */

/* NCHW convolution of one image by its definition, with groups, bias and clamp. */
static void convolution_reference(const float *input, int64_t channels, int64_t height,
                                  int64_t width, const float *weights, const float *bias,
                                  int64_t outputs, int64_t groups, const cnk_window *w,
                                  int64_t output_height, int64_t output_width, float low,
                                  float high, float *output) {
  int64_t per_group = channels / groups, outputs_per_group = outputs / groups;
  for (int64_t m = 0; m < outputs; m++) {
    int64_t group = m / outputs_per_group;
    for (int64_t oy = 0; oy < output_height; oy++) {
      for (int64_t ox = 0; ox < output_width; ox++) {
        double sum = bias ? bias[m] : 0;
        for (int64_t c = 0; c < per_group; c++) {
          for (int64_t ky = 0; ky < w->kernel_height; ky++) {
            for (int64_t kx = 0; kx < w->kernel_width; kx++) {
              int64_t y = oy * w->stride_y + ky * w->dilation_y - w->pad_top;
              int64_t x = ox * w->stride_x + kx * w->dilation_x - w->pad_left;
              if (y < 0 || y >= height || x < 0 || x >= width) continue;
              float value = input[((group * per_group + c) * height + y) * width + x];
              sum += (double)value *
                     weights[((m * per_group + c) * w->kernel_height + ky) * w->kernel_width + kx];
            }
          }
        }
        output[(m * output_height + oy) * output_width + ox] = clamp((float)sum, low, high);
      }
    }
  }
}

static int64_t output_extent(int64_t size, int64_t kernel, int64_t stride, int64_t dilation,
                             int64_t pad_begin, int64_t pad_end) {
  return (size + pad_begin + pad_end - (kernel - 1) * dilation - 1) / stride + 1;
}

/* MARK: GEMM family */

static void check_gemm(const cnk_kernel_set *s, int64_t m, int64_t n, int64_t k, int in_place,
                       int accumulate, int with_residual) {
  int64_t mr = s->gemm_row_tile, nr = s->gemm_column_tile;
  if (in_place) n = (n + nr - 1) / nr * nr;
  float *a = random_array(m * k), *b = random_array(k * n), *bias = random_array(m);
  float *residual = random_array(m * n), *c = random_array(m * n);
  /* Runs with a residual also add a bias per column (a linear layer's, folded). */
  float *column_bias = random_array(n);
  float *expected = malloc((size_t)(m * n) * sizeof(float));
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++) {
      double sum = bias[i] + (accumulate ? c[i * n + j] : 0) +
                   (with_residual ? residual[i * n + j] + column_bias[j] : 0);
      for (int64_t p = 0; p < k; p++) sum += (double)a[i * k + p] * b[p * n + j];
      expected[i * n + j] = clamp((float)sum, -0.5f, 2.0f);
    }
  }
  int64_t panels = (m + mr - 1) / mr;
  float *packed_a = filled(panels * mr * k, 0);
  for (int64_t i = 0; i < m; i++)
    for (int64_t p = 0; p < k; p++) packed_a[(i / mr) * mr * k + p * mr + i % mr] = a[i * k + p];
  int64_t tiles = (n + nr - 1) / nr;
  float *packed_b = filled(tiles * nr * k, 0);
  for (int64_t p = 0; p < k; p++)
    for (int64_t j = 0; j < n; j++) packed_b[(j / nr) * nr * k + p * nr + j % nr] = b[p * n + j];
  cnk_epilogue e = {bias, accumulate, with_residual ? residual : 0, -0.5f, 2.0f,
                    with_residual ? column_bias : 0};
  s->gemm_tile(k, packed_a, 0, panels, m, in_place ? b : packed_b, in_place ? n : 0, n, c, n,
               &e);
  char what[96];
  snprintf(what, sizeof what, "gemm_tile m%lld n%lld k%lld place%d acc%d res%d", (long long)m,
           (long long)n, (long long)k, in_place, accumulate, with_residual);
  expect_close(s->name, what, c, expected, m * n, 1e-4f);
  free(a), free(b), free(bias), free(residual), free(c), free(expected), free(packed_a);
  free(packed_b), free(column_bias);
}

static void check_pointwise_tile(const cnk_kernel_set *s, int64_t channels, int64_t outputs,
                                 int64_t positions) {
  int64_t mr = s->gemm_row_tile, nr = s->gemm_column_tile;
  float *x = random_array(channels * positions), *weights = random_array(outputs * channels);
  float *bias = random_array(outputs), *output = filled(outputs * positions, NAN);
  float *expected = malloc((size_t)(outputs * positions) * sizeof(float));
  cnk_window one = {1, 1, 1, 1, 1, 1, 0, 0};
  convolution_reference(x, channels, 1, positions, weights, bias, outputs, 1, &one, 1, positions,
                        0.0f, 6.0f, expected);
  float *packed = filled((positions + mr - 1) / mr * mr * channels, 0);
  /* Packed in two calls, as the Swift side splits the work. */
  int64_t half = (positions / 2 + mr - 1) / mr * mr;
  if (half > positions) half = positions;
  s->pack_positions(x, channels, positions, 0, half, packed);
  s->pack_positions(x, channels, positions, half, positions - half, packed + half * channels);
  float *panels = filled((outputs + nr - 1) / nr * nr * channels, 0);
  for (int64_t o = 0; o < outputs; o++)
    for (int64_t p = 0; p < channels; p++)
      panels[(o / nr) * nr * channels + p * nr + o % nr] = weights[o * channels + p];
  cnk_epilogue e = {bias, 0, 0, 0.0f, 6.0f, 0};
  s->pointwise_tile(channels, packed, positions, panels, 0, outputs, output, positions, &e);
  char what[80];
  snprintf(what, sizeof what, "pack_positions+pointwise_tile c%lld m%lld p%lld",
           (long long)channels, (long long)outputs, (long long)positions);
  expect_close(s->name, what, output, expected, outputs * positions, 1e-4f);
  free(x), free(weights), free(bias), free(output), free(expected), free(packed), free(panels);
}

static void check_row_times_matrix(const cnk_kernel_set *s, int64_t k, int64_t n,
                                   int accumulate) {
  float *a = random_array(k * 2), *b = random_array(k * n), *c = random_array(n);
  float *expected = malloc((size_t)n * sizeof(float));
  for (int64_t j = 0; j < n; j++) {
    double sum = accumulate ? c[j] : 0;
    for (int64_t p = 0; p < k; p++) sum += 0.5 * a[p * 2] * b[p * n + j];
    expected[j] = (float)sum;
  }
  s->row_times_matrix(k, n, 0.5f, a, 2, b, n, c, accumulate);
  char what[64];
  snprintf(what, sizeof what, "row_times_matrix k%lld n%lld acc%d", (long long)k, (long long)n,
           accumulate);
  expect_close(s->name, what, c, expected, n, 1e-4f);
  free(a), free(b), free(c), free(expected);
}

static void check_im2col(const cnk_kernel_set *s, int64_t channels, int64_t height, int64_t width,
                         cnk_window w, int64_t pad_bottom, int64_t pad_right) {
  int64_t nr = s->gemm_column_tile;
  int64_t oh = output_extent(height, w.kernel_height, w.stride_y, w.dilation_y, w.pad_top,
                             pad_bottom);
  int64_t ow = output_extent(width, w.kernel_width, w.stride_x, w.dilation_x, w.pad_left,
                             pad_right);
  int64_t taps = w.kernel_height * w.kernel_width, depth = channels * taps;
  int64_t columns = oh * ow;
  /* Columns from an offset, as a B tile of the GEMM would ask for them. */
  int64_t start = columns > 5 ? 3 : 0, count = columns - start;
  int64_t tiles = (count + nr - 1) / nr;
  float *input = random_array(channels * height * width);
  float *actual = filled(tiles * nr * depth, NAN), *expected = filled(tiles * nr * depth, 0);
  for (int64_t j = 0; j < count; j++) {
    int64_t column = start + j, oy = column / ow, ox = column % ow;
    for (int64_t p = 0; p < depth; p++) {
      int64_t c = p / taps, ky = p % taps / w.kernel_width, kx = p % w.kernel_width;
      int64_t y = oy * w.stride_y + ky * w.dilation_y - w.pad_top;
      int64_t x = ox * w.stride_x + kx * w.dilation_x - w.pad_left;
      float value = y >= 0 && y < height && x >= 0 && x < width
                        ? input[(c * height + y) * width + x] : 0.0f;
      expected[(j / nr) * nr * depth + p * nr + j % nr] = value;
    }
  }
  s->im2col_panels(input, channels, height, width, &w, ow, start, count, actual);
  char what[64];
  snprintf(what, sizeof what, "im2col_panels c%lld %lldx%lld k%lld s%lld", (long long)channels,
           (long long)height, (long long)width, (long long)w.kernel_height, (long long)w.stride_x);
  expect_close(s->name, what, actual, expected, tiles * nr * depth, 0);
  free(input), free(actual), free(expected);
}

static void check_depthwise(const cnk_kernel_set *s, int64_t planes, int64_t height,
                            int64_t width, cnk_window w, int64_t pad_bottom, int64_t pad_right) {
  int64_t oh = output_extent(height, w.kernel_height, w.stride_y, w.dilation_y, w.pad_top,
                             pad_bottom);
  int64_t ow = output_extent(width, w.kernel_width, w.stride_x, w.dilation_x, w.pad_left,
                             pad_right);
  int64_t taps = w.kernel_height * w.kernel_width;
  float *input = random_array(planes * height * width), *weights = random_array(planes * taps);
  float *bias = random_array(planes);
  /* One guard value past the output: whole-vector stores must stay inside it. */
  float *output = filled(planes * oh * ow + 1, NAN);
  float *expected = filled(planes * oh * ow + 1, NAN);
  convolution_reference(input, planes, height, width, weights, bias, planes, planes, &w, oh, ow,
                        -1.0f, 1.0f, expected);
  s->depthwise(input, planes, height, width, weights, bias, &w, output, oh, ow, -1.0f, 1.0f);
  char what[80];
  snprintf(what, sizeof what, "depthwise planes%lld %lldx%lld k%lld s%lld d%lld",
           (long long)planes, (long long)height, (long long)width, (long long)w.kernel_width,
           (long long)w.stride_x, (long long)w.dilation_x);
  expect_close(s->name, what, output, expected, planes * oh * ow + 1, 1e-5f);
  free(input), free(weights), free(bias), free(output), free(expected);
}

/* MARK: Blocked family */

static int64_t blocks_of(int64_t channels, int64_t lanes) { return (channels + lanes - 1) / lanes; }

/* Checks the blocked output (unblocked) and that lanes past the last channel are zero. */
static void expect_blocked(const cnk_kernel_set *s, const char *what, const float *blocked,
                           int64_t channels, int64_t positions, const float *expected,
                           float tolerance) {
  int64_t lanes = s->lanes;
  float *plain = filled(channels * positions, NAN);
  cnk_from_blocked(blocked, channels, positions, lanes, 0, blocks_of(channels, lanes), plain);
  expect_close(s->name, what, plain, expected, channels * positions, tolerance);
  int64_t last = blocks_of(channels, lanes) - 1;
  for (int64_t p = 0; p < positions; p++) {
    for (int64_t lane = channels - last * lanes; lane < lanes; lane++) {
      if (blocked[(last * positions + p) * lanes + lane] != 0.0f) {
        fprintf(stderr, "FAIL %s %s: padding lane %lld at position %lld is not zero\n", s->name,
                what, (long long)lane, (long long)p);
        failures++;
        free(plain);
        return;
      }
    }
  }
  free(plain);
}

static void check_pointwise_blocked(const cnk_kernel_set *s, int64_t channels, int64_t outputs,
                                    int64_t positions, int with_residual,
                                    cnk_blocked_tiling tiling) {
  int64_t lanes = s->lanes, ib = blocks_of(channels, lanes), ob = blocks_of(outputs, lanes);
  float *x = random_array(channels * positions), *weights = random_array(outputs * channels);
  float *bias = random_array(outputs), *residual = random_array(outputs * positions);
  float *expected = malloc((size_t)(outputs * positions) * sizeof(float));
  cnk_window one = {1, 1, 1, 1, 1, 1, 0, 0};
  convolution_reference(x, channels, 1, positions, weights, bias, outputs, 1, &one, 1, positions,
                        -INFINITY, INFINITY, expected);
  for (int64_t i = 0; i < outputs * positions; i++) {
    expected[i] = clamp(expected[i] + (with_residual ? residual[i] : 0), 0.0f, 6.0f);
  }
  float *blocked_x = filled(ib * lanes * positions, NAN);
  cnk_to_blocked(x, channels, positions, lanes, 0, ib, blocked_x);
  float *blocked_residual = filled(ob * lanes * positions, NAN);
  cnk_to_blocked(residual, outputs, positions, lanes, 0, ob, blocked_residual);
  float *packed = filled(ob * ib * lanes * lanes, 0), *padded_bias = filled(ob * lanes, 0);
  for (int64_t o = 0; o < outputs; o++) {
    padded_bias[o] = bias[o];
    for (int64_t c = 0; c < channels; c++)
      packed[(o / lanes) * ib * lanes * lanes + c * lanes + o % lanes] = weights[o * channels + c];
  }
  float *output = filled(ob * lanes * positions, NAN);
  /* Split as the Swift side does: two ranges of blocks times two ranges of positions. */
  int64_t block_split = ob / 2, position_split = positions / 2;
  for (int part = 0; part < 4; part++) {
    int64_t first_block = part % 2 ? block_split : 0;
    int64_t block_count = part % 2 ? ob - block_split : block_split;
    int64_t start = part / 2 ? position_split : 0;
    int64_t count = part / 2 ? positions - position_split : position_split;
    if (block_count == 0 || count == 0) continue;
    s->pointwise_blocked(blocked_x, channels, positions, packed, padded_bias, outputs, first_block,
                         block_count, start, count, with_residual ? blocked_residual : 0, 0.0f,
                         6.0f, output, &tiling);
  }
  char what[96];
  snprintf(what, sizeof what, "pointwise_blocked c%lld m%lld p%lld res%d tile%lldx%lld",
           (long long)channels, (long long)outputs, (long long)positions, with_residual,
           (long long)tiling.blocks, (long long)tiling.positions);
  expect_blocked(s, what, output, outputs, positions, expected, 1e-4f);
  free(x), free(weights), free(bias), free(residual), free(expected), free(blocked_x);
  free(blocked_residual), free(packed), free(padded_bias), free(output);
}

static void check_depthwise_blocked(const cnk_kernel_set *s, int64_t channels, int64_t height,
                                    int64_t width, cnk_window w, int64_t pad_bottom,
                                    int64_t pad_right) {
  int64_t lanes = s->lanes, blocks = blocks_of(channels, lanes);
  int64_t oh = output_extent(height, w.kernel_height, w.stride_y, w.dilation_y, w.pad_top,
                             pad_bottom);
  int64_t ow = output_extent(width, w.kernel_width, w.stride_x, w.dilation_x, w.pad_left,
                             pad_right);
  int64_t taps = w.kernel_height * w.kernel_width;
  float *x = random_array(channels * height * width), *weights = random_array(channels * taps);
  float *bias = random_array(channels);
  float *expected = malloc((size_t)(channels * oh * ow) * sizeof(float));
  convolution_reference(x, channels, height, width, weights, bias, channels, channels, &w, oh, ow,
                        0.0f, 6.0f, expected);
  float *blocked_x = filled(blocks * lanes * height * width, NAN);
  cnk_to_blocked(x, channels, height * width, lanes, 0, blocks, blocked_x);
  float *packed = filled(blocks * taps * lanes, 0), *padded_bias = filled(blocks * lanes, 0);
  for (int64_t c = 0; c < channels; c++) {
    padded_bias[c] = bias[c];
    for (int64_t t = 0; t < taps; t++)
      packed[(c / lanes) * taps * lanes + t * lanes + c % lanes] = weights[c * taps + t];
  }
  float *output = filled(blocks * lanes * oh * ow, NAN);
  int64_t split = oh / 2;
  for (int64_t block = 0; block < blocks; block++) {
    for (int part = 0; part < 2; part++) {
      int64_t first = part ? split : 0, count = part ? oh - split : split;
      if (count == 0) continue;
      s->depthwise_blocked(blocked_x + block * height * width * lanes, height, width,
                           packed + block * taps * lanes, padded_bias + block * lanes, block,
                           channels, &w, output + block * oh * ow * lanes, oh, ow, first, count,
                           0.0f, 6.0f);
    }
  }
  char what[96];
  snprintf(what, sizeof what, "depthwise_blocked c%lld %lldx%lld k%lld s%lld d%lld",
           (long long)channels, (long long)height, (long long)width, (long long)w.kernel_width,
           (long long)w.stride_x, (long long)w.dilation_x);
  expect_blocked(s, what, output, channels, oh * ow, expected, 1e-5f);
  free(x), free(weights), free(bias), free(expected), free(blocked_x), free(packed);
  free(padded_bias), free(output);
}

static void check_direct_blocked(const cnk_kernel_set *s, int64_t channels, int64_t outputs,
                                 int64_t height, int64_t width, cnk_window w, int64_t pad_bottom,
                                 int64_t pad_right) {
  int64_t lanes = s->lanes, blocks = blocks_of(outputs, lanes);
  int64_t oh = output_extent(height, w.kernel_height, w.stride_y, w.dilation_y, w.pad_top,
                             pad_bottom);
  int64_t ow = output_extent(width, w.kernel_width, w.stride_x, w.dilation_x, w.pad_left,
                             pad_right);
  int64_t taps = w.kernel_height * w.kernel_width;
  float *x = random_array(channels * height * width);
  float *weights = random_array(outputs * channels * taps), *bias = random_array(outputs);
  float *expected = malloc((size_t)(outputs * oh * ow) * sizeof(float));
  convolution_reference(x, channels, height, width, weights, bias, outputs, 1, &w, oh, ow, 0.0f,
                        6.0f, expected);
  int64_t steps = channels * taps;
  float *packed = filled(blocks * steps * lanes, 0), *padded_bias = filled(blocks * lanes, 0);
  for (int64_t o = 0; o < outputs; o++) {
    padded_bias[o] = bias[o];
    for (int64_t p = 0; p < steps; p++)
      packed[(o / lanes) * steps * lanes + p * lanes + o % lanes] = weights[o * steps + p];
  }
  float *output = filled(blocks * lanes * oh * ow, NAN);
  int64_t split = oh / 3;
  s->conv_direct_blocked(x, channels, height, width, packed, padded_bias, outputs, &w, output, oh,
                         ow, 0, blocks, 0, split, 0.0f, 6.0f);
  s->conv_direct_blocked(x, channels, height, width, packed, padded_bias, outputs, &w, output, oh,
                         ow, 0, blocks, split, oh - split, 0.0f, 6.0f);
  char what[96];
  snprintf(what, sizeof what, "conv_direct_blocked c%lld m%lld %lldx%lld k%lld s%lld",
           (long long)channels, (long long)outputs, (long long)height, (long long)width,
           (long long)w.kernel_width, (long long)w.stride_x);
  expect_blocked(s, what, output, outputs, oh * ow, expected, 1e-4f);
  free(x), free(weights), free(bias), free(expected), free(packed), free(padded_bias);
  free(output);
}

/* A grouped convolution of `channels` in and out channels in groups of `width_of_group`
   (dividing the lanes, or a multiple of them), against the NCHW reference. */
static void check_grouped_blocked(const cnk_kernel_set *s, int64_t channels,
                                  int64_t width_of_group, int64_t height, int64_t width,
                                  cnk_window w, int64_t pad_bottom, int64_t pad_right) {
  int64_t lanes = s->lanes, blocks = blocks_of(channels, lanes);
  int64_t span = width_of_group > lanes ? width_of_group / lanes : 1;
  int64_t oh = output_extent(height, w.kernel_height, w.stride_y, w.dilation_y, w.pad_top,
                             pad_bottom);
  int64_t ow = output_extent(width, w.kernel_width, w.stride_x, w.dilation_x, w.pad_left,
                             pad_right);
  int64_t taps = w.kernel_height * w.kernel_width, depth = width_of_group * taps;
  float *x = random_array(channels * height * width), *weights = random_array(channels * depth);
  float *bias = random_array(channels);
  float *expected = malloc((size_t)(channels * oh * ow) * sizeof(float));
  convolution_reference(x, channels, height, width, weights, bias, channels,
                        channels / width_of_group, &w, oh, ow, 0.0f, 6.0f, expected);
  float *blocked_x = filled(blocks * lanes * height * width, NAN);
  cnk_to_blocked(x, channels, height * width, lanes, 0, blocks, blocked_x);
  int64_t per_block = span * taps * lanes * lanes;
  float *packed = filled(blocks * per_block, 0), *padded_bias = filled(blocks * lanes, 0);
  for (int64_t o = 0; o < channels; o++) {
    padded_bias[o] = bias[o];
    int64_t block = o / lanes, first_input = block / span * span, group = o / width_of_group;
    for (int64_t sb = 0; sb < span; sb++) {
      for (int64_t lane = 0; lane < lanes; lane++) {
        int64_t c = (first_input + sb) * lanes + lane - group * width_of_group;
        if (c < 0 || c >= width_of_group) continue;
        for (int64_t t = 0; t < taps; t++) {
          packed[block * per_block + ((sb * taps + t) * lanes + lane) * lanes + o % lanes] =
              weights[o * depth + c * taps + t];
        }
      }
    }
  }
  float *output = filled(blocks * lanes * oh * ow, NAN);
  int64_t split = oh / 2;
  for (int64_t block = 0; block < blocks; block++) {
    const float *source = blocked_x + block / span * span * height * width * lanes;
    for (int part = 0; part < 2; part++) {
      int64_t first = part ? split : 0, count = part ? oh - split : split;
      if (count == 0) continue;
      s->grouped_blocked(source, height, width, span, packed + block * per_block,
                         padded_bias + block * lanes, block, channels, &w,
                         output + block * oh * ow * lanes, oh, ow, first, count, 0.0f, 6.0f);
    }
  }
  char what[96];
  snprintf(what, sizeof what, "grouped_blocked c%lld g%lld %lldx%lld k%lld s%lld d%lld",
           (long long)channels, (long long)width_of_group, (long long)height, (long long)width,
           (long long)w.kernel_width, (long long)w.stride_x, (long long)w.dilation_x);
  expect_blocked(s, what, output, channels, oh * ow, expected, 1e-4f);
  free(x), free(weights), free(bias), free(expected), free(blocked_x), free(packed);
  free(padded_bias), free(output);
}

/* Max pooling by its definition: taps outside are skipped, NaN wins, an empty window is -inf. */
static void check_max_pool_blocked(const cnk_kernel_set *s, int64_t channels, int64_t height,
                                   int64_t width, cnk_window w, int64_t pad_bottom,
                                   int64_t pad_right) {
  int64_t lanes = s->lanes, blocks = blocks_of(channels, lanes);
  int64_t oh = output_extent(height, w.kernel_height, w.stride_y, w.dilation_y, w.pad_top,
                             pad_bottom);
  int64_t ow = output_extent(width, w.kernel_width, w.stride_x, w.dilation_x, w.pad_left,
                             pad_right);
  float *x = random_array(channels * height * width);
  x[height * width / 2] = NAN;
  float *expected = malloc((size_t)(channels * oh * ow) * sizeof(float));
  for (int64_t c = 0; c < channels; c++) {
    for (int64_t oy = 0; oy < oh; oy++) {
      for (int64_t ox = 0; ox < ow; ox++) {
        float best = -INFINITY;
        for (int64_t ky = 0; ky < w.kernel_height; ky++) {
          for (int64_t kx = 0; kx < w.kernel_width; kx++) {
            int64_t y = oy * w.stride_y + ky * w.dilation_y - w.pad_top;
            int64_t xx = ox * w.stride_x + kx * w.dilation_x - w.pad_left;
            if (y < 0 || y >= height || xx < 0 || xx >= width) continue;
            float value = x[(c * height + y) * width + xx];
            if (isnan(value) || value > best) best = isnan(best) ? best : value;
          }
        }
        expected[(c * oh + oy) * ow + ox] = best;
      }
    }
  }
  float *blocked_x = filled(blocks * lanes * height * width, 0);
  cnk_to_blocked(x, channels, height * width, lanes, 0, blocks, blocked_x);
  float *output = filled(blocks * lanes * oh * ow, NAN);
  int64_t split = oh / 2;
  for (int64_t b = 0; b < blocks; b++) {
    const float *plane = blocked_x + b * height * width * lanes;
    float *target = output + b * oh * ow * lanes;
    int64_t valid = channels - b * lanes;
    s->max_pool_blocked(plane, height, width, &w, target, ow, 0, split, valid);
    s->max_pool_blocked(plane, height, width, &w, target, ow, split, oh - split, valid);
  }
  char what[96];
  snprintf(what, sizeof what, "max_pool_blocked c%lld %lldx%lld k%lld s%lld d%lld p%lld",
           (long long)channels, (long long)height, (long long)width, (long long)w.kernel_width,
           (long long)w.stride_x, (long long)w.dilation_x, (long long)w.pad_top);
  expect_blocked(s, what, output, channels, oh * ow, expected, 0);
  free(x), free(expected), free(blocked_x), free(output);
}

/* G g G^T for one 3x3 kernel g: the 6x6 transformed weights of F(4x4, 3x3), in double. */
static void winograd_weights_reference(const float *g, double u[36]) {
  static const double G[6][3] = {{1.0 / 4, 0, 0},
                                 {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                 {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                 {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                 {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                 {0, 0, 1}};
  double half[6][3];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 3; j++) {
      half[i][j] = 0;
      for (int k = 0; k < 3; k++) half[i][j] += G[i][k] * g[k * 3 + j];
    }
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      u[i * 6 + j] = 0;
      for (int k = 0; k < 3; k++) u[i * 6 + j] += half[i][k] * G[j][k];
    }
}

/* A 3x3, stride-1 convolution through the Winograd transforms and the blocked pointwise kernel
   (the products), against the direct definition. Tiles split in two calls each. */
static void check_winograd(const cnk_kernel_set *s, int64_t channels, int64_t outputs,
                           int64_t height, int64_t width, int64_t pad, int with_residual) {
  int64_t lanes = s->lanes, ib = blocks_of(channels, lanes), ob = blocks_of(outputs, lanes);
  cnk_window w = {3, 3, 1, 1, 1, 1, pad, pad};
  int64_t oh = output_extent(height, 3, 1, 1, pad, pad), ow = output_extent(width, 3, 1, 1, pad, pad);
  int64_t tiles_x = (ow + 3) / 4, tiles = ((oh + 3) / 4) * tiles_x;
  float *x = random_array(channels * height * width);
  float *weights = random_array(outputs * channels * 9), *bias = random_array(outputs);
  float *residual = random_array(outputs * oh * ow);
  float *expected = malloc((size_t)(outputs * oh * ow) * sizeof(float));
  convolution_reference(x, channels, height, width, weights, bias, outputs, 1, &w, oh, ow,
                        -INFINITY, INFINITY, expected);
  for (int64_t i = 0; i < outputs * oh * ow; i++)
    expected[i] = clamp(expected[i] + (with_residual ? residual[i] : 0), 0.0f, 6.0f);
  /* [point][output block][input channel, padded][lanes], as the pointwise kernel takes them. */
  int64_t per_point = ob * ib * lanes * lanes;
  float *packed = filled(36 * per_point, 0), *padded_bias = filled(ob * lanes, 0);
  float *zero_bias = filled(ob * lanes, 0);
  for (int64_t o = 0; o < outputs; o++) {
    padded_bias[o] = bias[o];
    for (int64_t c = 0; c < channels; c++) {
      double u[36];
      winograd_weights_reference(weights + (o * channels + c) * 9, u);
      for (int xi = 0; xi < 36; xi++)
        packed[xi * per_point + ((o / lanes) * ib * lanes + c) * lanes + o % lanes] = (float)u[xi];
    }
  }
  float *blocked_x = filled(ib * lanes * height * width, 0);
  cnk_to_blocked(x, channels, height * width, lanes, 0, ib, blocked_x);
  float *blocked_residual = filled(ob * lanes * oh * ow, 0);
  cnk_to_blocked(residual, outputs, oh * ow, lanes, 0, ob, blocked_residual);
  float *transformed = filled(36 * ib * lanes * tiles, NAN);
  float *products = filled(36 * ob * lanes * tiles, NAN);
  float *output = filled(ob * lanes * oh * ow, NAN);
  int64_t split = tiles / 2;
  s->winograd_input(blocked_x, channels, height, width, pad, pad, tiles_x, tiles, 0, split,
                    transformed);
  s->winograd_input(blocked_x, channels, height, width, pad, pad, tiles_x, tiles, split,
                    tiles - split, transformed);
  cnk_blocked_tiling tiling = s->pointwise_tiling_other;
  for (int xi = 0; xi < 36; xi++) {
    s->pointwise_blocked(transformed + xi * ib * lanes * tiles, channels, tiles,
                         packed + xi * per_point, zero_bias, outputs, 0, ob, 0, tiles, 0,
                         -INFINITY, INFINITY, products + xi * ob * lanes * tiles, &tiling);
  }
  const float *extra = with_residual ? blocked_residual : 0;
  s->winograd_output(products, outputs, tiles_x, tiles, padded_bias, extra, 0.0f, 6.0f, output,
                     oh, ow, 0, split);
  s->winograd_output(products, outputs, tiles_x, tiles, padded_bias, extra, 0.0f, 6.0f, output,
                     oh, ow, split, tiles - split);
  char what[96];
  snprintf(what, sizeof what, "winograd c%lld m%lld %lldx%lld p%lld r%d", (long long)channels,
           (long long)outputs, (long long)height, (long long)width, (long long)pad,
           with_residual);
  /* F(4x4, 3x3) rounds its transforms of sums of 9 x channels terms: its error grows with their
     size (here about sqrt(9 x channels) / 3), not with the clamped output's. */
  expect_blocked(s, what, output, outputs, oh * ow, expected, 4e-5f * sqrtf((float)channels));
  free(x), free(weights), free(bias), free(residual), free(expected), free(packed);
  free(padded_bias), free(zero_bias), free(blocked_x), free(blocked_residual);
  free(transformed), free(products), free(output);
}

static void check_global_average(const cnk_kernel_set *s, int64_t channels, int64_t positions) {
  int64_t lanes = s->lanes, blocks = blocks_of(channels, lanes);
  float *x = random_array(channels * positions);
  float *blocked = filled(blocks * lanes * positions, 0);
  cnk_to_blocked(x, channels, positions, lanes, 0, blocks, blocked);
  float *expected = malloc((size_t)(channels + 1) * sizeof(float));
  float *actual = filled(channels + 1, NAN);
  for (int64_t c = 0; c < channels; c++) {
    double sum = 0;
    for (int64_t p = 0; p < positions; p++) sum += x[c * positions + p];
    expected[c] = (float)(sum / (double)positions);
  }
  /* The value past the last channel must stay untouched. */
  expected[channels] = NAN;
  s->global_average_blocked(blocked, channels, positions, actual);
  char what[64];
  snprintf(what, sizeof what, "global_average_blocked c%lld p%lld", (long long)channels,
           (long long)positions);
  expect_close(s->name, what, actual, expected, channels + 1, 1e-5f);
  free(x), free(blocked), free(expected), free(actual);
}

static void check_layout(const cnk_kernel_set *s, int64_t channels, int64_t positions) {
  int64_t lanes = s->lanes, blocks = blocks_of(channels, lanes);
  float *x = random_array(channels * positions);
  float *blocked = filled(blocks * lanes * positions, NAN);
  cnk_to_blocked(x, channels, positions, lanes, 0, blocks, blocked);
  float *expected = filled(blocks * lanes * positions, 0);
  for (int64_t c = 0; c < channels; c++)
    for (int64_t p = 0; p < positions; p++)
      expected[((c / lanes) * positions + p) * lanes + c % lanes] = x[c * positions + p];
  char what[64];
  snprintf(what, sizeof what, "to_blocked c%lld p%lld", (long long)channels, (long long)positions);
  expect_close(s->name, what, blocked, expected, blocks * lanes * positions, 0);
  float *back = filled(channels * positions, NAN);
  cnk_from_blocked(blocked, channels, positions, lanes, 0, blocks, back);
  snprintf(what, sizeof what, "from_blocked c%lld p%lld", (long long)channels,
           (long long)positions);
  expect_close(s->name, what, back, x, channels * positions, 0);
  free(x), free(blocked), free(expected), free(back);
}

/* MARK: Cases */

/* MARK: Element-wise math */

static double activation_reference(const cnk_activation *f, double x) {
  if (isnan(x)) return x;
  switch (f->kind) {
  case CNK_ACTIVATION_CLAMP: return clamp((float)x, f->low, f->high);
  case CNK_ACTIVATION_SIGMOID: return 1.0 / (1.0 + exp(-x));
  case CNK_ACTIVATION_SILU: return x / (1.0 + exp(-x));
  case CNK_ACTIVATION_HARD_SIGMOID: return fmax(0.0, fmin(1.0, f->alpha * x + f->beta));
  case CNK_ACTIVATION_HARD_SWISH: return x * fmax(0.0, fmin(1.0, x / 6.0 + 0.5));
  case CNK_ACTIVATION_TANH: return tanh(x);
  case CNK_ACTIVATION_ERF: return erf(x);
  case CNK_ACTIVATION_GELU: return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
  case CNK_ACTIVATION_GELU_TANH:
    return 0.5 * x * (1.0 + tanh(sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  case CNK_ACTIVATION_MISH: return x * tanh(x > 30 ? x : log1p(exp(x)));
  case CNK_ACTIVATION_EXP: return exp(x);
  default: return x;
  }
}

/* Every function against libm in double: within 2e-6 * (1 + |expected|) over -30...30 (exp up
   to 88), and within 1e-5 relative near zero, where ONNX's tests compare relatively; then the
   blocked form, whose padding lanes must come out zero. */
static void check_activation(const cnk_kernel_set *s, cnk_activation f, const char *name) {
  enum { COUNT = 1037 };
  float x[COUNT], y[COUNT], expected[COUNT];
  float top = f.kind == CNK_ACTIVATION_EXP ? 88.0f : 30.0f;
  for (int i = 0; i < COUNT; i++) {
    x[i] = i < 6 ? (float[]){0.0f, -0.0f, 1e-8f, -3e-5f, 7e-3f, NAN}[i] : random_float() * top;
    expected[i] = (float)activation_reference(&f, x[i]);
  }
  s->activate(&f, x, y, COUNT);
  char what[64];
  snprintf(what, sizeof what, "activate %s", name);
  expect_close(s->name, what, y, expected, COUNT, 2e-6f);
  for (int i = 0; i < COUNT; i++) x[i] = random_float() * 1e-2f;
  for (int i = 0; i < COUNT; i++) expected[i] = (float)activation_reference(&f, x[i]);
  s->activate(&f, x, x, COUNT);
  cases++;
  for (int i = 0; i < COUNT; i++) {
    double e = expected[i];
    if (f.kind != CNK_ACTIVATION_CLAMP && fabs(x[i] - e) > 1e-5 * fabs(e) + 1e-12) {
      fprintf(stderr, "FAIL %s %s near zero: index %d got %.9g expected %.9g\n", s->name, what,
              i, x[i], e);
      failures++;
      break;
    }
  }
  int64_t lanes = s->lanes, positions = 7, valid = lanes - 3;
  float *blocked = random_array(positions * lanes);
  float *wanted = malloc((size_t)(positions * lanes) * sizeof(float));
  for (int64_t i = 0; i < positions * lanes; i++)
    wanted[i] = i % lanes < valid ? (float)activation_reference(&f, blocked[i]) : 0.0f;
  s->activate_blocked(&f, blocked, positions, valid);
  snprintf(what, sizeof what, "activate_blocked %s", name);
  expect_close(s->name, what, blocked, wanted, positions * lanes, 2e-6f);
  free(blocked);
  free(wanted);
}

/* Softmax over lines of several lengths (whole vectors and tails) against exp in double. */
static void check_softmax(const cnk_kernel_set *s, int64_t rows, int64_t length) {
  float *x = random_array(rows * length), *y = filled(rows * length, NAN);
  float *expected = malloc((size_t)(rows * length) * sizeof(float));
  for (int64_t i = 0; i < rows * length; i++) x[i] *= 20.0f;
  for (int64_t r = 0; r < rows; r++) {
    double top = -INFINITY, total = 0;
    for (int64_t i = 0; i < length; i++) top = fmax(top, x[r * length + i]);
    for (int64_t i = 0; i < length; i++) total += exp(x[r * length + i] - top);
    for (int64_t i = 0; i < length; i++)
      expected[r * length + i] = (float)(exp(x[r * length + i] - top) / total);
  }
  s->softmax(x, y, rows, length);
  expect_close(s->name, "softmax", y, expected, rows * length, 2e-6f);
  free(x);
  free(y);
  free(expected);
}

/* One block plane times one factor per lane, by definition. */
static void check_scale_blocked(const cnk_kernel_set *s, int64_t positions) {
  int64_t lanes = s->lanes, count = positions * lanes;
  float *x = random_array(count), *scales = random_array(lanes), *y = filled(count, NAN);
  float *expected = malloc((size_t)count * sizeof(float));
  for (int64_t i = 0; i < count; i++) expected[i] = x[i] * scales[i % lanes];
  s->scale_blocked(x, scales, positions, y);
  expect_close(s->name, "scale_blocked", y, expected, count, 0.0f);
  free(x);
  free(scales);
  free(y);
  free(expected);
}

/* Layer normalization (centered or RMS, with and without scale and bias) against a two-pass
   reference in double. */
static void check_layer_norm(const cnk_kernel_set *s, int64_t rows, int64_t length,
                             int centering, int affine) {
  int64_t count = rows * length;
  float *x = random_array(count), *y = filled(count, NAN);
  float *scale = random_array(length), *bias = random_array(length);
  float *expected = malloc((size_t)count * sizeof(float));
  float *mean = filled(rows, NAN), *inverse = filled(rows, NAN);
  float *expected_mean = malloc((size_t)rows * sizeof(float));
  float *expected_inverse = malloc((size_t)rows * sizeof(float));
  for (int64_t i = 0; i < count; i++) x[i] = x[i] * 3.0f + 0.5f;
  for (int64_t r = 0; r < rows; r++) {
    double sum = 0, squares = 0;
    for (int64_t i = 0; i < length; i++) sum += x[r * length + i];
    double average = centering ? sum / (double)length : 0;
    for (int64_t i = 0; i < length; i++) {
      double d = x[r * length + i] - average;
      squares += d * d;
    }
    double inv = 1.0 / sqrt(squares / (double)length + 1e-5);
    for (int64_t i = 0; i < length; i++) {
      double v = (x[r * length + i] - average) * inv;
      expected[r * length + i] = (float)(affine ? v * scale[i] + bias[i] : v);
    }
    expected_mean[r] = (float)average;
    expected_inverse[r] = (float)inv;
  }
  s->layer_norm(x, rows, length, 1e-5f, affine ? scale : NULL, affine ? bias : NULL, y, mean,
                inverse, centering);
  expect_close(s->name, "layer_norm", y, expected, count, 1e-5f);
  expect_close(s->name, "layer_norm mean", mean, expected_mean, rows, 1e-5f);
  expect_close(s->name, "layer_norm inverse deviation", inverse, expected_inverse, rows, 1e-5f);
  free(x);
  free(y);
  free(scale);
  free(bias);
  free(expected);
  free(mean);
  free(inverse);
  free(expected_mean);
  free(expected_inverse);
}

/* Row-major rows packed as GEMM A panels, by the layout's definition. */
/* QuantizeLinear and DequantizeLinear against ONNX's definitions: ties to even (x / scale
   lands on .5 exactly for the first values), NaN to the zero point, infinities and large
   values saturated; 37 values reach every vector width's tail. */
static void check_quantization(const cnk_kernel_set *s) {
  enum { N = 37 };
  float x[N];
  for (int i = 0; i < N; i++) x[i] = random_float() * 300.0f;
  float ties[] = {0.25f, 0.75f, -0.25f, -0.75f, 1.25f, NAN, INFINITY, -INFINITY, 1e30f};
  for (int i = 0; i < 9; i++) x[i * 4] = ties[i];
  int32_t q[N], expected_q[N];
  float scale = 0.5f, zero = -3.0f;
  s->quantize_linear(x, N, scale, zero, -128.0f, 127.0f, q);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    double r = x[i] != x[i] ? zero : nearbyint((double)(x[i] / scale)) + zero;
    r = r < -128 ? -128 : (r > 127 ? 127 : r);
    expected_q[i] = (int32_t)r;
    if (q[i] != expected_q[i] && !bad++) {
      printf("FAIL %s quantize_linear: x %g gives %d, expected %d\n", s->name, (double)x[i], q[i],
             expected_q[i]);
    }
  }
  /* Requantization multiplies: 0.25 * 2 and 0.75 * 2 are ties too. */
  s->requantize_linear(x, N, 2.0f, zero, -128.0f, 127.0f, q);
  for (int i = 0; i < N; i++) {
    double r = x[i] != x[i] ? zero : nearbyint((double)(x[i] * 2.0f)) + zero;
    r = r < -128 ? -128 : (r > 127 ? 127 : r);
    if (q[i] != (int32_t)r && !bad++) {
      printf("FAIL %s requantize_linear: x %g gives %d, expected %d\n", s->name, (double)x[i],
             q[i], (int32_t)r);
    }
  }
  float y[N];
  s->dequantize_linear(expected_q, N, zero, scale, y);
  for (int i = 0; i < N; i++) {
    float want = ((float)expected_q[i] - zero) * scale;
    if (y[i] != want && !bad++) {
      printf("FAIL %s dequantize_linear: %d gives %g, expected %g\n", s->name, expected_q[i],
             (double)y[i], (double)want);
    }
  }
  cases++;
  if (bad) failures++;
}

/* The reference of one cnk_binary_fn element, its definition read literally. */
static float binary_reference(int32_t operation, float a, float b) {
  switch (operation) {
  case CNK_BINARY_ADD: return a + b;
  case CNK_BINARY_SUBTRACT: return a - b;
  case CNK_BINARY_MULTIPLY: return a * b;
  case CNK_BINARY_DIVIDE: return a / b;
  case CNK_BINARY_PRELU: return a >= 0 || a != a ? a : a * b;
  case CNK_BINARY_POWER: return powf(a, b);
  case CNK_BINARY_REMAINDER: return fmodf(a, b);
  case CNK_BINARY_MODULO: {
    float r = fmodf(a, b);
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
  }
  case CNK_BINARY_MAXIMUM: return b != b ? b : (b > a ? b : a);
  case CNK_BINARY_MINIMUM: return b != b ? b : (b < a ? b : a);
  case CNK_BINARY_EQUAL: return a == b;
  case CNK_BINARY_LESS: return a < b;
  case CNK_BINARY_GREATER: return a > b;
  case CNK_BINARY_LESS_OR_EQUAL: return a <= b;
  case CNK_BINARY_GREATER_OR_EQUAL: return a >= b;
  case CNK_BINARY_AND: return a != 0 && b != 0;
  case CNK_BINARY_OR: return a != 0 || b != 0;
  default: return (a != 0) != (b != 0);
  }
}

/* Every operation at strides 1/1, 1/0, 0/1, 2/1 and 0/0, on counts that end in a partial
   vector, with NaN, infinities, zeros of both signs and equal pairs among the values; outputs
   must be bit-equal (NaN matching NaN). */
static void check_binary(const cnk_kernel_set *s) {
  enum { N = 45 };
  float a[2 * N], b[2 * N], y[N];
  float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -2.5f, 3.0f};
  for (int i = 0; i < 2 * N; i++) {
    a[i] = i % 5 == 1 ? specials[i % 8] : random_float() * 8.0f;
    b[i] = i % 7 == 2 ? specials[(i / 7) % 8] : (i % 6 == 0 ? a[i] : random_float() * 4.0f);
  }
  int64_t strides[][2] = {{1, 1}, {1, 0}, {0, 1}, {2, 1}, {0, 0}};
  int bad = 0;
  for (int32_t op = CNK_BINARY_ADD; op <= CNK_BINARY_XOR; op++) {
    for (int k = 0; k < 5; k++) {
      s->binary(op, a, strides[k][0], b, strides[k][1], y, N);
      for (int i = 0; i < N; i++) {
        float want = binary_reference(op, a[i * strides[k][0]], b[i * strides[k][1]]);
        int same = (want != want && y[i] != y[i]) || memcmp(&want, &y[i], sizeof want) == 0;
        if (!same && !bad++) {
          printf("FAIL %s binary %d strides %lld/%lld: %g op %g gives %g, expected %g\n", s->name,
                 op, (long long)strides[k][0], (long long)strides[k][1],
                 (double)a[i * strides[k][0]], (double)b[i * strides[k][1]], (double)y[i],
                 (double)want);
        }
      }
    }
  }
  cases++;
  if (bad) failures++;
}

/* Means of planes of every length up to past two vectors, and of an empty plane. */
static void check_plane_means(const cnk_kernel_set *s) {
  for (int64_t count = 0; count <= 2 * s->lanes + 3; count++) {
    float *x = random_array(3 * count + 1), y[3], expected[3];
    for (int plane = 0; plane < 3; plane++) {
      double sum = 0;
      for (int64_t i = 0; i < count; i++) sum += x[plane * count + i];
      expected[plane] = count > 0 ? (float)(sum / (double)count) : 0.0f;
    }
    s->plane_means(x, 3, count, y);
    expect_close(s->name, "plane_means", y, expected, 3, 1e-5f);
    free(x);
  }
}

static void check_pack_rows(const cnk_kernel_set *s, int64_t rows, int64_t k, int64_t lda) {
  int64_t tile = s->gemm_row_tile, panels = (rows + tile - 1) / tile;
  float *a = random_array(rows * lda), *packed = filled(panels * tile * k, NAN);
  float *expected = malloc((size_t)(panels * tile * k) * sizeof(float));
  for (int64_t row = 0; row < panels * tile; row++) {
    for (int64_t p = 0; p < k; p++) {
      expected[(row / tile) * tile * k + p * tile + row % tile] =
          row < rows ? a[row * lda + p] * 0.5f : 0.0f;
    }
  }
  s->pack_rows(a, rows, k, lda, 0.5f, packed);
  expect_close(s->name, "pack_rows", packed, expected, panels * tile * k, 0.0f);
  free(a);
  free(packed);
  free(expected);
}

static void check_activations(const cnk_kernel_set *s) {
  check_pack_rows(s, 197, 37, 40);
  check_pack_rows(s, 5, 3, 3);
  check_layer_norm(s, 3, 768, 1, 1);
  check_layer_norm(s, 5, 21, 0, 1);
  check_layer_norm(s, 2, 3, 1, 0);
  check_scale_blocked(s, 49);
  check_scale_blocked(s, 3);
  check_softmax(s, 3, 197);
  check_softmax(s, 5, 16);
  check_softmax(s, 2, 3);
  struct {
    int32_t kind;
    const char *name;
  } kinds[] = {{CNK_ACTIVATION_SIGMOID, "sigmoid"},   {CNK_ACTIVATION_SILU, "silu"},
               {CNK_ACTIVATION_HARD_SWISH, "hard-swish"}, {CNK_ACTIVATION_TANH, "tanh"},
               {CNK_ACTIVATION_ERF, "erf"},           {CNK_ACTIVATION_GELU, "gelu"},
               {CNK_ACTIVATION_GELU_TANH, "gelu-tanh"}, {CNK_ACTIVATION_MISH, "mish"},
               {CNK_ACTIVATION_EXP, "exp"},           {CNK_ACTIVATION_IDENTITY, "identity"}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    check_activation(s, (cnk_activation){kinds[i].kind, 0, 0, 0, 0}, kinds[i].name);
  }
  check_activation(s, (cnk_activation){CNK_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f, 0, 0},
                   "hard-sigmoid");
  check_activation(s, (cnk_activation){CNK_ACTIVATION_CLAMP, 0, 0, 0.0f, 6.0f}, "relu6");
}

/* A half float's value by its definition (sign, exponent, fraction), for the similarity checks. */
static double half_value(uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 0x1F, fraction = h & 0x3FF;
  double magnitude;
  if (exponent == 0x1F) magnitude = fraction ? NAN : INFINITY;
  else if (exponent == 0) magnitude = ldexp(fraction, -24);
  else magnitude = ldexp(1024 + fraction, exponent - 25);
  return sign ? -magnitude : magnitude;
}

static void check_similarity(const cnk_kernel_set *s, int64_t count, int64_t dimensions,
                             int64_t stride) {
  cases++;
  float *query = random_array(dimensions), *values = random_array(count * stride);
  uint16_t *halves = malloc((size_t)(count * stride) * sizeof(uint16_t));
  int8_t *bytes = malloc((size_t)(count * stride));
  float *scales = malloc((size_t)count * sizeof(float)), *scores = filled(count, NAN);
  float *expected = malloc((size_t)count * sizeof(float));
  s->to_half(values, count * stride, halves);
  /* Each half is the nearest to its float, ties to the even fraction. */
  for (int64_t i = 0; i < count * stride; i++) {
    double x = values[i], here = fabs(half_value(halves[i]) - x);
    double below = fabs(half_value((uint16_t)(halves[i] - 1)) - x);
    double above = fabs(half_value((uint16_t)(halves[i] + 1)) - x);
    if (here > below || here > above || (here == below && (halves[i] & 1)) ||
        (here == above && (halves[i] & 1))) {
      printf("FAIL %s to_half: %.9g gave %#06x\n", s->name, x, halves[i]);
      failures++;
      break;
    }
  }
  for (int64_t r = 0; r < count; r++) {
    double sum = 0;
    for (int64_t d = 0; d < dimensions; d++) {
      sum += (double)query[d] * half_value(halves[r * stride + d]);
    }
    expected[r] = (float)sum;
  }
  s->dot_half(query, halves, count, dimensions, stride, scores);
  expect_close(s->name, "dot_half", scores, expected, count, 1e-5f);
  for (int64_t r = 0; r < count; r++) {
    scales[r] = 0.5f + 0.01f * (float)r;
    s->to_int8(values + r * stride, stride, 1.0f / scales[r], bytes + r * stride);
    double sum = 0;
    for (int64_t d = 0; d < stride; d++) {
      double scaled = fmin(127, fmax(-127, (double)values[r * stride + d] / scales[r]));
      if ((double)bytes[r * stride + d] != rint((float)scaled) &&
          fabs((double)bytes[r * stride + d] - scaled) > 0.5 + 1e-6) {
        printf("FAIL %s to_int8: %.9g / %.9g gave %d\n", s->name, values[r * stride + d],
               scales[r], bytes[r * stride + d]);
        failures++;
        break;
      }
      if (d < dimensions) sum += (double)query[d] * bytes[r * stride + d];
    }
    expected[r] = (float)(sum * scales[r]);
  }
  s->dot_int8(query, bytes, count, dimensions, stride, scales, scores);
  expect_close(s->name, "dot_int8", scores, expected, count, 1e-5f);
  free(query);
  free(values);
  free(halves);
  free(bytes);
  free(scales);
  free(scores);
  free(expected);
}

/* cnk_top_k against a selection written here: repeatedly the best remaining score (ties: the
   lower index), over scores with many ties, a NaN and a mask. */
static void check_top_k(void) {
  enum { count = 3000 };
  static float scores[count];
  static uint8_t allowed[count];
  for (int64_t i = 0; i < count; i++) {
    scores[i] = (float)(int)(random_float() * 40) / 4;
    allowed[i] = (uint8_t)(i % 7 != 3);
  }
  scores[11] = NAN;
  int64_t ks[] = {1, 5, 64, 2999, 4000};
  for (size_t c = 0; c < sizeof ks / sizeof ks[0]; c++) {
    for (int masked = 0; masked < 2; masked++) {
      cases++;
      int64_t k = ks[c];
      int64_t *indices = malloc((size_t)k * sizeof(int64_t));
      float *values = malloc((size_t)k * sizeof(float));
      int64_t kept = cnk_top_k(scores, count, masked ? allowed : NULL, k, indices, values);
      static uint8_t taken[count];
      memset(taken, 0, sizeof taken);
      int64_t expected = 0;
      for (int64_t rank = 0; rank < k; rank++) {
        int64_t best = -1;
        for (int64_t i = 0; i < count; i++) {
          if (taken[i] || scores[i] != scores[i] || (masked && !allowed[i])) continue;
          if (best < 0 || scores[i] > scores[best]) best = i;
        }
        if (best < 0) break;
        taken[best] = 1;
        expected++;
        if (rank >= kept || indices[rank] != best || values[rank] != scores[best]) {
          printf("FAIL top_k k %lld masked %d: rank %lld\n", (long long)k, masked, (long long)rank);
          failures++;
          break;
        }
      }
      if (kept != expected) {
        printf("FAIL top_k k %lld: kept %lld, expected %lld\n", (long long)k, (long long)kept,
               (long long)expected);
        failures++;
      }
      free(indices);
      free(values);
    }
  }
}

static cnk_window window(int64_t kernel, int64_t stride, int64_t dilation, int64_t pad) {
  cnk_window w = {kernel, kernel, stride, stride, dilation, dilation, pad, pad};
  return w;
}

static void check_set(const cnk_kernel_set *s) {
  printf("kernel set %s: %lld lanes, GEMM tile %lldx%lld\n", s->name, (long long)s->lanes,
         (long long)s->gemm_row_tile, (long long)s->gemm_column_tile);
  /* Row counts up to 13 reach every partial GEMM tile of a 6- and a 12-row set. */
  int64_t sizes[][3] = {{1, 1, 1},   {5, 7, 3},  {13, 37, 19}, {24, 64, 96},
                        {7, 100, 1}, {11, 50, 9}, {9, 33, 5},  {10, 17, 2}};
  for (int i = 0; i < 8; i++) {
    for (int variant = 0; variant < 4; variant++) {
      check_gemm(s, sizes[i][0], sizes[i][1], sizes[i][2], variant & 1, variant >> 1 & 1,
                 variant == 3);
    }
  }
  check_pointwise_tile(s, 16, 40, 49);
  check_pointwise_tile(s, 3, 17, 5);
  check_pointwise_tile(s, 64, 64, 196);
  int64_t rows[][2] = {{1, 1}, {3, 7}, {1280, 1000}, {5, 17}, {64, 9}};
  for (int i = 0; i < 5; i++) {
    check_row_times_matrix(s, rows[i][0], rows[i][1], 0);
    check_row_times_matrix(s, rows[i][0], rows[i][1], 1);
  }
  check_im2col(s, 3, 17, 23, window(3, 1, 1, 1), 1, 1);
  check_im2col(s, 2, 40, 40, window(3, 2, 1, 1), 0, 0);
  check_im2col(s, 4, 9, 11, window(5, 1, 2, 2), 2, 2);
  check_im2col(s, 1, 64, 64, window(1, 1, 1, 0), 0, 0);
  check_im2col(s, 3, 29, 29, window(7, 2, 1, 3), 3, 3);
  int64_t planes[][5] = {{3, 1, 1, 1, 1}, {5, 14, 14, 3, 1}, {4, 15, 17, 3, 2},
                         {2, 28, 28, 5, 1}, {3, 9, 30, 5, 2}, {2, 12, 12, 3, 3}};
  for (int i = 0; i < 6; i++) {
    int64_t k = planes[i][3], stride = planes[i][4];
    check_depthwise(s, planes[i][0], planes[i][1], planes[i][2], window(k, stride, 1, k / 2),
                    k / 2, k / 2);
  }
  check_depthwise(s, 3, 16, 16, window(3, 1, 2, 2), 2, 2);
  check_depthwise(s, 2, 7, 7, window(3, 2, 1, 0), 0, 0);
  /* The largest tiles any set has (a set clamps them to its own register budget). */
  cnk_blocked_tiling tilings[] = {s->pointwise_tiling_sevens, s->pointwise_tiling_other,
                                  {1, 1, 12},
                                  {2, 5, 40},
                                  {3, 3, 7},
                                  {3, 8, 48},
                                  {2, 12, 36},
                                  {1, 16, 64}};
  for (int t = 0; t < 8; t++) {
    check_pointwise_blocked(s, 24, 40, 49, t % 2, tilings[t]);
    check_pointwise_blocked(s, 5, 3, 13, 1, tilings[t]);
    check_pointwise_blocked(s, 96, 17, 200, 0, tilings[t]);
  }
  int64_t blocked_planes[][5] = {{16, 14, 14, 3, 1}, {20, 15, 13, 3, 2}, {9, 28, 28, 5, 1},
                                 {32, 7, 7, 5, 2},   {8, 1, 1, 3, 1},   {11, 10, 12, 3, 3},
                                 {40, 56, 56, 3, 1}};
  for (int i = 0; i < 7; i++) {
    int64_t k = blocked_planes[i][3], stride = blocked_planes[i][4];
    check_depthwise_blocked(s, blocked_planes[i][0], blocked_planes[i][1], blocked_planes[i][2],
                            window(k, stride, 1, k / 2), k / 2, k / 2);
  }
  check_depthwise_blocked(s, 12, 9, 9, window(3, 1, 2, 2), 2, 2);
  check_depthwise_blocked(s, 12, 9, 9, window(3, 2, 1, 0), 1, 1);
  check_direct_blocked(s, 3, 32, 32, 32, window(3, 2, 1, 1), 0, 0);
  check_direct_blocked(s, 3, 20, 19, 23, window(3, 1, 1, 1), 1, 1);
  check_direct_blocked(s, 1, 8, 9, 9, window(5, 2, 1, 2), 2, 2);
  check_direct_blocked(s, 4, 40, 12, 30, window(3, 2, 1, 0), 1, 1);
  check_quantization(s);
  check_binary(s);
  check_plane_means(s);
  check_grouped_blocked(s, 48, 8, 56, 56, window(3, 2, 1, 1), 0, 0);
  check_grouped_blocked(s, 104, 8, 28, 28, window(3, 1, 1, 1), 1, 1);
  check_grouped_blocked(s, 40, 8, 9, 11, window(3, 1, 2, 2), 2, 2);
  check_grouped_blocked(s, 64, 32, 14, 14, window(3, 1, 1, 1), 1, 1);
  check_grouped_blocked(s, 24, 2, 7, 30, window(5, 2, 1, 2), 2, 2);
  check_grouped_blocked(s, 44, 4, 3, 3, window(3, 1, 1, 1), 1, 1);
  check_max_pool_blocked(s, 64, 112, 112, window(3, 2, 1, 1), 1, 1);
  check_max_pool_blocked(s, 21, 9, 11, window(3, 1, 1, 1), 1, 1);
  check_max_pool_blocked(s, 5, 8, 8, window(2, 2, 1, 0), 0, 0);
  check_max_pool_blocked(s, 17, 10, 10, window(3, 2, 2, 2), 3, 3);
  check_winograd(s, 64, 64, 56, 56, 1, 0);
  check_winograd(s, 21, 35, 13, 17, 1, 1);
  check_winograd(s, 3, 9, 6, 6, 0, 0);
  check_winograd(s, 40, 24, 7, 7, 1, 1);
  check_winograd(s, 16, 16, 3, 5, 2, 0);
  check_global_average(s, 1280, 49);
  check_global_average(s, 3, 5);
  check_global_average(s, 21, 1);
  check_layout(s, 21, 13);
  check_layout(s, 8, 4);
  check_activations(s);
  check_similarity(s, 37, 1280, 1280);
  check_similarity(s, 6, 33, 40);
  check_similarity(s, 5, 7, 7);
}

int main(int argc, char **argv) {
  const cnk_kernel_set *sets[] = {cnk_kernel_set_avx512(), cnk_kernel_set_avx2(),
                                  cnk_kernel_set_neon(), cnk_kernel_set_portable()};
  const char *names[] = {"avx512", "avx2", "neon", "portable"};
  int checked = 0;
  for (int i = 0; i < 4; i++) {
    int wanted = argc == 1;
    for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], names[i]) == 0;
    if (!wanted) continue;
    if (!sets[i]) {
      if (argc > 1) {
        fprintf(stderr, "FAIL kernel set %s was asked for but this CPU does not run it\n",
                names[i]);
        failures++;
      } else {
        printf("kernel set %s: not on this CPU\n", names[i]);
      }
      continue;
    }
    check_set(sets[i]);
    checked++;
  }
  check_top_k();
  int int8_cases = 0;
  failures += check_int8(argc, argv, &int8_cases);
  cases += int8_cases;
  printf("%d cases, %d failures, %d kernel sets\n", cases, failures, checked);
  return failures == 0 && checked > 0 ? 0 : 1;
}
