/* Similarity search over stored vectors (feature-print indexes), part of
   generic_kernel_bodies.h: the same source for every set over its vector API, plus three
   per-set primitives: v_load_half (LANES half floats), v_store_half (round to nearest even) and
   v_load_int8 (LANES int8 values as floats). Tails past the last whole vector use the scalar
   conversions of half_float.h. */

#include <math.h>

#include "half_float.h"

/* One stored row's dot product with the query: four vector partial sums (independent FMA
   chains), then the lanes, then the tail in scalar. Rows are scanned one after the other, so
   the reads form one sequential stream the hardware prefetcher follows; interleaving four rows
   halved the speed of a scan larger than the caches. */
#define SIMILARITY_DOT_ROW(NAME, ELEMENT, LOAD, SCALAR)                                      \
  TARGET INLINE float NAME(const float *query, const ELEMENT *row, int64_t dimensions) {     \
    vf s0 = v_zero(), s1 = v_zero(), s2 = v_zero(), s3 = v_zero();                           \
    int64_t d = 0;                                                                           \
    for (; d + 4 * LANES <= dimensions; d += 4 * LANES) {                                    \
      s0 = v_fma(v_load(query + d), LOAD(row + d), s0);                                      \
      s1 = v_fma(v_load(query + d + LANES), LOAD(row + d + LANES), s1);                      \
      s2 = v_fma(v_load(query + d + 2 * LANES), LOAD(row + d + 2 * LANES), s2);              \
      s3 = v_fma(v_load(query + d + 3 * LANES), LOAD(row + d + 3 * LANES), s3);              \
    }                                                                                        \
    for (; d + LANES <= dimensions; d += LANES) {                                            \
      s0 = v_fma(v_load(query + d), LOAD(row + d), s0);                                      \
    }                                                                                        \
    float total = lane_total(v_add(v_add(s0, s1), v_add(s2, s3)));                           \
    for (; d < dimensions; d++) total += query[d] * SCALAR(row[d]);                          \
    return total;                                                                            \
  }

#define SIMILARITY_INT8_TO_FLOAT(value) ((float)(value))

SIMILARITY_DOT_ROW(dot_half_row, uint16_t, v_load_half, cnk_half_to_float)
SIMILARITY_DOT_ROW(dot_int8_row, int8_t, v_load_int8, SIMILARITY_INT8_TO_FLOAT)

TARGET static void dot_half(const float *query, const uint16_t *rows, int64_t count,
                            int64_t dimensions, int64_t stride, float *scores) {
  for (int64_t i = 0; i < count; i++) scores[i] = dot_half_row(query, rows + i * stride, dimensions);
}

TARGET static void dot_int8(const float *query, const int8_t *rows, int64_t count,
                            int64_t dimensions, int64_t stride, const float *scales,
                            float *scores) {
  for (int64_t i = 0; i < count; i++) {
    scores[i] = dot_int8_row(query, rows + i * stride, dimensions) * scales[i];
  }
}

TARGET static void to_half(const float *x, int64_t count, uint16_t *y) {
  int64_t i = 0;
  for (; i + LANES <= count; i += LANES) v_store_half(y + i, v_load(x + i));
  for (; i < count; i++) y[i] = cnk_float_to_half(x[i]);
}

TARGET static void to_int8(const float *x, int64_t count, float multiplier, int8_t *y) {
  for (int64_t i = 0; i < count; i++) {
    float value = x[i] * multiplier;
    if (value != value) {
      y[i] = 0;
      continue;
    }
    value = value < -127.0f ? -127.0f : (value > 127.0f ? 127.0f : value);
    y[i] = (int8_t)rintf(value);
  }
}
