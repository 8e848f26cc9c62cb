/*
 * Differential test of every int8 variant this machine runs against scalar references written
 * here by the interface's definitions (exact int32 sums in 64 bits, the requantization formula
 * read literally: multiply, round half to even, add the zero point, clamp). Every output byte
 * must be equal. Buffers are allocated to the byte the interface lets a kernel touch, so
 * AddressSanitizer catches any read or write past them; bytes of an output row at or past its
 * channel count must keep their sentinel.
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CNativeKernels.h"
#include "int8_check.h"

/* The references round each product and sum separately, as the interface says. */
#pragma STDC FP_CONTRACT OFF

enum { SENTINEL = 0xA5 };

static int failures = 0;
static int cases = 0;
static uint64_t state = 0x2545F4914F6CDD1Dull;

static uint32_t next_random(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(state >> 33);
}

/* A uniform integer in low...high. */
static int32_t uniform(int32_t low, int32_t high) {
  return low + (int32_t)(next_random() % (uint32_t)(high - low + 1));
}

static void *allocate(int64_t bytes) { return malloc((size_t)(bytes > 0 ? bytes : 1)); }

static void *allocate_aligned(int64_t bytes) {
  void *p = 0;
  if (posix_memalign(&p, 64, (size_t)(bytes > 0 ? bytes : 1)) != 0) abort();
  return p;
}

/* How weights are drawn: the full range, |w| <= 64, the pairs that saturate a naive
   vpmaddubsw kernel (127, 127 and -128, -128 beside activations of 255), or small weights
   in two of every three groups of 8 columns and the full range in the third (so AVX2 packs
   blocks of both forms side by side). */
typedef enum weight_kind { FULL_RANGE, SMALL, SATURATING, MIXED } weight_kind;

static int8_t random_weight(weight_kind kind, int64_t column, int64_t index) {
  switch (kind) {
  case MIXED: return random_weight(column / 8 % 3 == 1 ? FULL_RANGE : SMALL, column, index);
  case SMALL: return (int8_t)uniform(-64, 64);
  case SATURATING: {
    int64_t pair = index / 2 % 3;
    return (int8_t)(pair == 2 ? uniform(-128, 127) : pair == 1 ? -128 : 127);
  }
  default: return (int8_t)uniform(-128, 127);
  }
}

/* MARK: References */

/* requantize(sum) of the interface, literally. */
static uint8_t requantize_reference(int64_t sum, int32_t bias, float scale, int32_t zero_point,
                                    int32_t minimum, int32_t maximum) {
  float product = (float)(int32_t)(sum + bias) * scale;
  double rounded = (double)nearbyintf(product) + zero_point;
  if (rounded < minimum) rounded = minimum;
  if (rounded > maximum) rounded = maximum;
  return (uint8_t)rounded;
}

/* Compares one output row's `count` values, and that `stride - count` sentinel bytes after them
   (within the allocation) are untouched. */
static int row_matches(const char *variant, const char *what, const uint8_t *actual,
                       const uint8_t *expected, int64_t count, int64_t untouched, int64_t row) {
  for (int64_t i = 0; i < count; i++) {
    if (actual[i] != expected[i]) {
      fprintf(stderr, "FAIL %s %s: row %lld index %lld got %u expected %u\n", variant, what,
              (long long)row, (long long)i, actual[i], expected[i]);
      return 0;
    }
  }
  for (int64_t i = count; i < count + untouched; i++) {
    if (actual[i] != SENTINEL) {
      fprintf(stderr, "FAIL %s %s: row %lld byte %lld past the channels was written\n", variant,
              what, (long long)row, (long long)i);
      return 0;
    }
  }
  return 1;
}

/* Output parameters of one case: per-channel bias and scale sized so results spread over the
   clamp, a zero point and a clamp. */
typedef struct quantization {
  int32_t *bias;
  float *scale;
  cnk_requantization requantization;
} quantization;

static quantization random_quantization(int64_t channels, int64_t terms, int32_t zero_point,
                                        int32_t minimum, int32_t maximum) {
  quantization q = {allocate(channels * 4), allocate(channels * 4), {0}};
  float spread = 1.0f / (64.0f * 128.0f * sqrtf((float)(terms > 0 ? terms : 1)));
  for (int64_t n = 0; n < channels; n++) {
    q.bias[n] = uniform(-40000, 40000);
    q.scale[n] = spread * (float)uniform(1, 200);
  }
  q.requantization = (cnk_requantization){q.bias, q.scale, zero_point, minimum, maximum};
  return q;
}

static void release_quantization(quantization q) {
  free(q.bias);
  free(q.scale);
}

/* MARK: qgemm */

static void check_qgemm(const cnk_int8_kernels *kernels, int64_t rows, int64_t k, int64_t columns,
                        weight_kind kind, int32_t zero_point, int32_t minimum, int32_t maximum) {
  char what[96];
  snprintf(what, sizeof what, "qgemm %lldx%lldx%lld weights %d zp %d clamp %d...%d",
           (long long)rows, (long long)k, (long long)columns, kind, zero_point, minimum, maximum);
  cases++;
  int64_t readable = (k + 3) / 4 * 4, lda = readable + uniform(0, 2) * 4;
  int64_t ldw = k + uniform(0, 3), ldc = columns + uniform(0, 5);
  int64_t a_bytes = rows > 0 ? (rows - 1) * lda + readable : 0;
  int64_t c_bytes = rows > 0 ? (rows - 1) * ldc + columns : 0;
  uint8_t *a = allocate(a_bytes), *c = allocate(c_bytes), *expected = allocate(columns);
  int8_t *w = allocate(columns * ldw);
  for (int64_t i = 0; i < a_bytes; i++) a[i] = (uint8_t)(kind == SATURATING ? 255 : uniform(0, 255));
  for (int64_t i = 0; i < columns * ldw; i++) w[i] = random_weight(kind, i / ldw, i % ldw);
  memset(c, SENTINEL, (size_t)c_bytes);
  quantization q = random_quantization(columns, k, zero_point, minimum, maximum);
  int64_t packed_bytes = kernels->qgemm_packed_bytes(columns, k);
  void *packed = allocate_aligned(packed_bytes);
  kernels->qgemm_pack(w, columns, k, ldw, packed);
  kernels->qgemm(rows, k, a, lda, packed, columns, &q.requantization, c, ldc);
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t n = 0; n < columns; n++) {
      int64_t sum = 0;
      for (int64_t p = 0; p < k; p++) sum += (int64_t)a[r * lda + p] * w[n * ldw + p];
      expected[n] = requantize_reference(sum, q.bias[n], q.scale[n], zero_point, minimum, maximum);
    }
    int64_t untouched = r + 1 < rows ? ldc - columns : 0;
    if (!row_matches(kernels->name, what, c + r * ldc, expected, columns, untouched, r)) {
      failures++;
      break;
    }
  }
  free(a);
  free(c);
  free(expected);
  free(w);
  free(packed);
  release_quantization(q);
}

/* MARK: qdepthwise */

typedef struct depthwise_case {
  int64_t channels, height, width, kernel_height, kernel_width, stride, dilation, pad;
} depthwise_case;

static int64_t extent(int64_t size, int64_t kernel, const depthwise_case *d) {
  return (size + 2 * d->pad - (kernel - 1) * d->dilation - 1) / d->stride + 1;
}

/* One output position of the reference: taps outside the image read the zero point. */
static int64_t depthwise_sum(const uint8_t *input, const int8_t *w, const depthwise_case *d,
                             int64_t input_stride, int32_t input_zero_point, int64_t oy,
                             int64_t ox, int64_t c) {
  int64_t sum = 0, taps = d->kernel_height * d->kernel_width;
  for (int64_t ky = 0; ky < d->kernel_height; ky++) {
    for (int64_t kx = 0; kx < d->kernel_width; kx++) {
      int64_t y = oy * d->stride + ky * d->dilation - d->pad;
      int64_t x = ox * d->stride + kx * d->dilation - d->pad;
      int inside = y >= 0 && y < d->height && x >= 0 && x < d->width;
      int32_t value = inside ? input[(y * d->width + x) * input_stride + c] : input_zero_point;
      sum += (int64_t)value * w[c * taps + ky * d->kernel_width + kx];
    }
  }
  return sum;
}

static void check_qdepthwise(const cnk_int8_kernels *kernels, depthwise_case d) {
  char what[112];
  snprintf(what, sizeof what, "qdepthwise c%lld %lldx%lld k%lldx%lld s%lld d%lld p%lld",
           (long long)d.channels, (long long)d.height, (long long)d.width,
           (long long)d.kernel_height, (long long)d.kernel_width, (long long)d.stride,
           (long long)d.dilation, (long long)d.pad);
  cases++;
  int64_t taps = d.kernel_height * d.kernel_width, positions = d.height * d.width;
  int64_t input_stride = (d.channels + 3) / 4 * 4 + uniform(0, 1) * 16;
  int64_t oh = extent(d.height, d.kernel_height, &d), ow = extent(d.width, d.kernel_width, &d);
  int64_t output_stride = d.channels + uniform(0, 3);
  int64_t in_bytes = (positions - 1) * input_stride + d.channels;
  int64_t out_bytes = (oh * ow - 1) * output_stride + d.channels;
  uint8_t *input = allocate(in_bytes), *output = allocate(out_bytes);
  uint8_t *expected = allocate(d.channels);
  int8_t *w = allocate(d.channels * taps);
  for (int64_t i = 0; i < in_bytes; i++) input[i] = (uint8_t)uniform(0, 255);
  for (int64_t i = 0; i < d.channels * taps; i++) w[i] = random_weight(FULL_RANGE, 0, i);
  memset(output, SENTINEL, (size_t)out_bytes);
  int32_t input_zero_point = uniform(0, 255), zero_point = uniform(0, 255);
  int32_t minimum = uniform(0, 60), maximum = uniform(190, 255);
  quantization q = random_quantization(d.channels, taps, zero_point, minimum, maximum);
  void *packed = allocate_aligned(kernels->qdepthwise_packed_bytes(d.channels, taps));
  kernels->qdepthwise_pack(w, d.channels, taps, packed);
  cnk_window window = {d.kernel_height, d.kernel_width, d.stride, d.stride,
                       d.dilation,      d.dilation,     d.pad,    d.pad};
  /* Two calls, as threads would split the rows. */
  int64_t split = oh / 2;
  kernels->qdepthwise(input, d.height, d.width, d.channels, input_stride, packed,
                      input_zero_point, &window, &q.requantization, output, oh, ow,
                      output_stride, 0, split);
  kernels->qdepthwise(input, d.height, d.width, d.channels, input_stride, packed,
                      input_zero_point, &window, &q.requantization, output, oh, ow,
                      output_stride, split, oh - split);
  for (int64_t position = 0; position < oh * ow; position++) {
    for (int64_t c = 0; c < d.channels; c++) {
      int64_t sum = depthwise_sum(input, w, &d, input_stride, input_zero_point,
                                  position / ow, position % ow, c);
      expected[c] =
          requantize_reference(sum, q.bias[c], q.scale[c], zero_point, minimum, maximum);
    }
    int64_t untouched = position + 1 < oh * ow ? output_stride - d.channels : 0;
    if (!row_matches(kernels->name, what, output + position * output_stride, expected,
                     d.channels, untouched, position)) {
      failures++;
      break;
    }
  }
  free(input);
  free(output);
  free(expected);
  free(w);
  free(packed);
  release_quantization(q);
}

/* MARK: Element-wise */

static uint8_t round_and_clamp(float value, int32_t minimum, int32_t maximum) {
  double rounded = nearbyintf(value);
  if (!(rounded >= minimum)) rounded = minimum;
  if (rounded > maximum) rounded = maximum;
  return (uint8_t)rounded;
}

static void check_qadd(const cnk_int8_kernels *kernels, int64_t count) {
  char what[64];
  snprintf(what, sizeof what, "qadd %lld", (long long)count);
  cases++;
  uint8_t *a = allocate(count), *b = allocate(count), *y = allocate(count);
  uint8_t *expected = allocate(count);
  for (int64_t i = 0; i < count; i++) {
    a[i] = (uint8_t)uniform(0, 255);
    b[i] = (uint8_t)uniform(0, 255);
  }
  float a_scale = (float)uniform(1, 2000) / 1024.0f, b_scale = (float)uniform(1, 2000) / 1000.0f;
  float offset = (float)uniform(-300, 100) + 0.5f;
  int32_t minimum = uniform(0, 30), maximum = uniform(200, 255);
  for (int64_t i = 0; i < count; i++) {
    float sum = (float)a[i] * a_scale + (float)b[i] * b_scale;
    expected[i] = round_and_clamp(sum + offset, minimum, maximum);
  }
  kernels->qadd(a, b, count, a_scale, b_scale, offset, minimum, maximum, y);
  if (!row_matches(kernels->name, what, y, expected, count, 0, 0)) failures++;
  free(a);
  free(b);
  free(y);
  free(expected);
}

static void check_quantize(const cnk_int8_kernels *kernels, int64_t count, int32_t zero_point,
                           int32_t minimum, int32_t maximum) {
  char what[64];
  snprintf(what, sizeof what, "quantize %lld zp %d", (long long)count, zero_point);
  cases++;
  float *x = allocate(count * 4);
  uint8_t *y = allocate(count), *expected = allocate(count);
  float specials[] = {NAN, INFINITY, -INFINITY, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 1e30f, -1e30f};
  /* Scale 1 keeps the specials' ties; others divide inexactly. */
  float scale = uniform(0, 1) ? 1.0f : (float)uniform(1, 3000) / 1000.0f;
  for (int64_t i = 0; i < count; i++) {
    x[i] = i % 7 == 3 ? specials[uniform(0, 9)] : (float)uniform(-3000, 3000) / 8.0f;
  }
  for (int64_t i = 0; i < count; i++) {
    float scaled = isnan(x[i]) ? 0.0f : x[i] / scale;
    double shifted = (double)nearbyintf(scaled) + zero_point;
    if (shifted < minimum) shifted = minimum;
    if (shifted > maximum) shifted = maximum;
    expected[i] = (uint8_t)shifted;
  }
  kernels->quantize(x, count, scale, zero_point, minimum, maximum, y);
  if (!row_matches(kernels->name, what, y, expected, count, 0, 0)) failures++;
  free(x);
  free(y);
  free(expected);
}

static void check_lookup(const cnk_int8_kernels *kernels, int64_t count) {
  char what[64];
  snprintf(what, sizeof what, "lookup %lld", (long long)count);
  cases++;
  uint8_t table[256];
  for (int i = 0; i < 256; i++) table[i] = (uint8_t)uniform(0, 255);
  uint8_t *x = allocate(count), *y = allocate(count), *expected = allocate(count);
  for (int64_t i = 0; i < count; i++) {
    x[i] = (uint8_t)uniform(0, 255);
    expected[i] = table[x[i]];
  }
  kernels->lookup(x, count, table, y);
  if (!row_matches(kernels->name, what, y, expected, count, 0, 0)) failures++;
  /* In place. */
  kernels->lookup(x, count, table, x);
  if (!row_matches(kernels->name, what, x, expected, count, 0, 0)) failures++;
  free(x);
  free(y);
  free(expected);
}

/* Rows of `channels` bytes `stride` apart; the bytes between rows keep their sentinel. */
static void check_qscale_channels(const cnk_int8_kernels *kernels, int64_t positions,
                                  int64_t channels, int64_t stride) {
  char what[64];
  snprintf(what, sizeof what, "qscale_channels %lld x %lld", (long long)positions,
           (long long)channels);
  cases++;
  int64_t bytes = positions > 0 ? (positions - 1) * stride + channels : 0;
  uint8_t *x = allocate(bytes), *y = allocate(bytes), *expected = allocate(channels);
  float *scale = allocate(channels * 4), *offset = allocate(channels * 4);
  for (int64_t i = 0; i < bytes; i++) x[i] = (uint8_t)uniform(0, 255);
  memset(y, SENTINEL, (size_t)bytes);
  for (int64_t c = 0; c < channels; c++) {
    scale[c] = (float)uniform(-2000, 2000) / 1024.0f;
    offset[c] = (float)uniform(-200, 300) + (c % 2 ? 0.5f : 0.25f);
  }
  int32_t minimum = uniform(0, 30), maximum = uniform(200, 255);
  kernels->qscale_channels(x, positions, channels, stride, scale, offset, minimum, maximum, y);
  for (int64_t p = 0; p < positions; p++) {
    for (int64_t c = 0; c < channels; c++) {
      float product = (float)x[p * stride + c] * scale[c];
      expected[c] = round_and_clamp(product + offset[c], minimum, maximum);
    }
    int64_t untouched = p + 1 < positions ? stride - channels : 0;
    if (!row_matches(kernels->name, what, y + p * stride, expected, channels, untouched, p)) {
      failures++;
      break;
    }
  }
  free(x);
  free(y);
  free(expected);
  free(scale);
  free(offset);
}

/* Channel sums of rows `stride` apart, the bytes between rows set to 255 (never summed). */
static void check_channel_sums(const cnk_int8_kernels *kernels, int64_t positions,
                               int64_t channels, int64_t stride) {
  char what[64];
  snprintf(what, sizeof what, "channel_sums %lld x %lld", (long long)positions,
           (long long)channels);
  cases++;
  int64_t bytes = positions > 0 ? (positions - 1) * stride + channels : 0;
  uint8_t *x = allocate(bytes);
  int32_t *sums = allocate((channels + 1) * 4);
  memset(x, 255, (size_t)bytes);
  for (int64_t p = 0; p < positions; p++) {
    for (int64_t c = 0; c < channels; c++) x[p * stride + c] = (uint8_t)uniform(0, 255);
  }
  sums[channels] = -7; /* past the end: untouched */
  kernels->channel_sums(x, positions, channels, stride, sums);
  for (int64_t c = 0; c <= channels; c++) {
    int64_t expected = c < channels ? 0 : -7;
    for (int64_t p = 0; c < channels && p < positions; p++) expected += x[p * stride + c];
    if (sums[c] != expected) {
      fprintf(stderr, "FAIL %s %s: channel %lld sums %d, expected %lld\n", kernels->name, what,
              (long long)c, sums[c], (long long)expected);
      failures++;
      break;
    }
  }
  free(x);
  free(sums);
}

/* A blocked image of `channels` channels (`lanes` a block) quantized to channels-last bytes
   for positions first..<first + count; bytes past each position's channels keep the
   sentinel. */
static void check_quantize_blocked(const cnk_int8_kernels *kernels, int64_t lanes,
                                   int64_t channels, int64_t positions, int64_t first,
                                   int64_t count) {
  char what[64];
  snprintf(what, sizeof what, "quantize_blocked %lld lanes %lld channels", (long long)lanes,
           (long long)channels);
  cases++;
  int64_t blocks = (channels + lanes - 1) / lanes, stride = (channels + 15) / 16 * 16;
  float *x = allocate(blocks * positions * lanes * 4);
  uint8_t *y = allocate(positions * stride), *expected = allocate(channels);
  float specials[] = {NAN, INFINITY, -INFINITY, 0.5f, 1.5f, 2.5f, -0.5f};
  for (int64_t i = 0; i < blocks * positions * lanes; i++) {
    x[i] = i % 9 == 4 ? specials[uniform(0, 6)] : (float)uniform(-3000, 3000) / 16.0f;
  }
  memset(y, SENTINEL, (size_t)(positions * stride));
  float scale = uniform(0, 1) ? 1.0f : (float)uniform(1, 3000) / 1000.0f;
  int32_t zero_point = uniform(0, 255), minimum = uniform(0, 20), maximum = uniform(230, 255);
  kernels->quantize_blocked(x, lanes, channels, positions, first, count, scale, zero_point,
                            minimum, maximum, y, stride);
  for (int64_t p = first; p < first + count; p++) {
    for (int64_t c = 0; c < channels; c++) {
      float value = x[((c / lanes) * positions + p) * lanes + c % lanes];
      float scaled = isnan(value) ? 0.0f : value / scale;
      double shifted = (double)nearbyintf(scaled) + zero_point;
      if (shifted < minimum) shifted = minimum;
      if (shifted > maximum) shifted = maximum;
      expected[c] = (uint8_t)shifted;
    }
    if (!row_matches(kernels->name, what, y + p * stride, expected, channels, stride - channels,
                     p)) {
      failures++;
      break;
    }
  }
  free(x);
  free(y);
  free(expected);
}

/* MARK: Driver */

static void check_variant(const cnk_int8_kernels *kernels) {
  printf("int8 variant %s\n", kernels->name);
  /* Lite0's shapes (rows cut down), odd k and columns, and row counts past every tile. */
  int64_t shapes[][3] = {{0, 8, 16},   {1, 1, 1},     {3, 3, 5},     {7, 5, 17},
                         {13, 27, 32}, {50, 32, 16},  {25, 96, 24},  {9, 24, 144},
                         {11, 144, 40}, {6, 240, 80}, {5, 480, 112}, {4, 672, 192},
                         {3, 1152, 320}, {1, 1280, 1000}, {8, 17, 65}, {19, 6, 33}};
  int32_t zero_points[] = {0, 128, 255};
  for (int i = 0; i < 16; i++) {
    for (int kind = FULL_RANGE; kind <= MIXED; kind++) {
      int32_t zero_point = zero_points[(i + kind) % 3];
      check_qgemm(kernels, shapes[i][0], shapes[i][1], shapes[i][2], kind, zero_point, 0, 255);
    }
    check_qgemm(kernels, shapes[i][0], shapes[i][1], shapes[i][2], FULL_RANGE, uniform(0, 255),
                uniform(0, 100), uniform(150, 255));
  }
  for (int i = 0; i < 12; i++) {
    check_qgemm(kernels, uniform(0, 30), uniform(1, 70), uniform(1, 90), uniform(0, 3),
                uniform(0, 255), uniform(0, 40), uniform(200, 255));
  }
  /* Lite0's kernels at small sizes, odd channel counts (partial blocks), images narrower than
     a slide, dilation, stride 3, and kernels of 9 and 25 taps that are not square. */
  depthwise_case depthwise[] = {
      {32, 12, 12, 3, 3, 1, 1, 1}, {16, 9, 11, 3, 3, 2, 1, 1},  {40, 7, 7, 5, 5, 1, 1, 2},
      {144, 8, 8, 5, 5, 2, 1, 2},  {3, 5, 6, 3, 3, 1, 1, 1},    {21, 6, 5, 3, 3, 2, 1, 0},
      {17, 9, 9, 3, 3, 1, 2, 2},   {1, 4, 4, 5, 5, 1, 1, 2},    {672, 4, 4, 5, 5, 2, 1, 2},
      {24, 3, 3, 1, 1, 1, 1, 0},   {35, 10, 10, 7, 7, 1, 1, 3}, {49, 2, 3, 3, 3, 1, 1, 1},
      {20, 11, 11, 3, 3, 3, 1, 1}, {33, 13, 6, 9, 1, 1, 1, 4},  {18, 6, 12, 1, 9, 2, 1, 4},
      {40, 14, 9, 5, 5, 2, 2, 4},  {30, 9, 14, 5, 5, 1, 1, 2}};
  for (int i = 0; i < 17; i++) check_qdepthwise(kernels, depthwise[i]);
  int64_t counts[] = {0, 1, 3, 4, 15, 16, 17, 33, 1000};
  for (int i = 0; i < 9; i++) {
    check_qadd(kernels, counts[i]);
    check_quantize(kernels, counts[i], zero_points[i % 3], 0, 255);
    check_quantize(kernels, counts[i], uniform(0, 255), uniform(0, 50), uniform(200, 255));
    check_lookup(kernels, counts[i]);
  }
  int64_t rows[][3] = {{0, 16, 16}, {1, 1, 16}, {3, 17, 32}, {49, 96, 96}, {5, 672, 672},
                       {7, 40, 48}, {2, 15, 16}};
  for (int i = 0; i < 7; i++) check_qscale_channels(kernels, rows[i][0], rows[i][1], rows[i][2]);
  int64_t pools[][3] = {{0, 16, 16}, {1, 1, 16}, {49, 1152, 1152}, {12544, 96, 96}, {3, 17, 32},
                        {196, 40, 48}, {7, 15, 16}};
  for (int i = 0; i < 7; i++) check_channel_sums(kernels, pools[i][0], pools[i][1], pools[i][2]);
  int64_t blocked[][5] = {{16, 32, 9, 0, 9}, {8, 20, 7, 2, 4}, {4, 3, 5, 0, 5}, {16, 40, 3, 1, 1}, {16, 32, 12544, 0, 12544}};
  for (int i = 0; i < 5; i++) {
    check_quantize_blocked(kernels, blocked[i][0], blocked[i][1], blocked[i][2], blocked[i][3],
                           blocked[i][4]);
  }
}

static const char *const variant_names[] = {"avx512-vnni", "avx-vnni", "avx2",
                                            "neon-dotprod", "neon",    "portable"};

/* Every set this machine runs hands out a variant it runs. */
static void check_sets(void) {
  const cnk_kernel_set *sets[] = {cnk_kernel_set_avx512(), cnk_kernel_set_avx2(),
                                  cnk_kernel_set_neon(), cnk_kernel_set_portable()};
  for (int i = 0; i < 4; i++) {
    if (!sets[i]) continue;
    cases++;
    const cnk_int8_kernels *chosen = sets[i]->int8();
    if (!chosen || cnk_int8_kernels_variant(chosen->name) != chosen) {
      fprintf(stderr, "FAIL kernel set %s: its int8 variant is not one this CPU runs\n",
              sets[i]->name);
      failures++;
    } else {
      printf("kernel set %s: int8 variant %s\n", sets[i]->name, chosen->name);
    }
  }
}

int check_int8(int argc, char **argv, int *case_count) {
  check_sets();
  for (size_t i = 0; i < sizeof variant_names / sizeof variant_names[0]; i++) {
    int wanted = argc == 1;
    for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], variant_names[i]) == 0;
    if (!wanted) continue;
    const cnk_int8_kernels *kernels = cnk_int8_kernels_variant(variant_names[i]);
    if (kernels) {
      check_variant(kernels);
    } else if (argc > 1) {
      fprintf(stderr, "FAIL int8 variant %s was asked for but this CPU does not run it\n",
              variant_names[i]);
      failures++;
    } else {
      printf("int8 variant %s: not on this CPU\n", variant_names[i]);
    }
  }
  *case_count = cases;
  return failures;
}
