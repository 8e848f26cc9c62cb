/* Similarity search over stored vectors (feature-print indexes), part of
   generic_kernel_bodies.h: the same source for every set over its vector API, plus three
   per-set primitives: v_load_half (LANES half floats), v_store_half (round to nearest even) and
   v_load_int8 (LANES int8 values as floats). Tails past the last whole vector use the scalar
   conversions of half_float.h. */

#include <math.h>

#include "half_float.h"

/* The sum over d < dimensions of query[d] * half(row[d]): vector partial sums, then the lanes,
   then the tail. */
TARGET INLINE float dot_half_row(const float *query, const uint16_t *row, int64_t dimensions) {
  vf sum = v_zero();
  int64_t d = 0;
  for (; d + LANES <= dimensions; d += LANES) {
    sum = v_fma(v_load(query + d), v_load_half(row + d), sum);
  }
  float total = lane_total(sum);
  for (; d < dimensions; d++) total += query[d] * cnk_half_to_float(row[d]);
  return total;
}

/* Four rows at a time share each query vector: the scan is bound by reading the rows. */
TARGET static void dot_half(const float *query, const uint16_t *rows, int64_t count,
                            int64_t dimensions, int64_t stride, float *scores) {
  int64_t whole = dimensions / LANES * LANES, i = 0;
  for (; i + 4 <= count; i += 4) {
    const uint16_t *r0 = rows + i * stride, *r1 = r0 + stride;
    const uint16_t *r2 = r1 + stride, *r3 = r2 + stride;
    vf s0 = v_zero(), s1 = v_zero(), s2 = v_zero(), s3 = v_zero();
    for (int64_t d = 0; d < whole; d += LANES) {
      vf q = v_load(query + d);
      s0 = v_fma(q, v_load_half(r0 + d), s0);
      s1 = v_fma(q, v_load_half(r1 + d), s1);
      s2 = v_fma(q, v_load_half(r2 + d), s2);
      s3 = v_fma(q, v_load_half(r3 + d), s3);
    }
    float t0 = lane_total(s0), t1 = lane_total(s1), t2 = lane_total(s2), t3 = lane_total(s3);
    for (int64_t d = whole; d < dimensions; d++) {
      t0 += query[d] * cnk_half_to_float(r0[d]);
      t1 += query[d] * cnk_half_to_float(r1[d]);
      t2 += query[d] * cnk_half_to_float(r2[d]);
      t3 += query[d] * cnk_half_to_float(r3[d]);
    }
    scores[i] = t0;
    scores[i + 1] = t1;
    scores[i + 2] = t2;
    scores[i + 3] = t3;
  }
  for (; i < count; i++) scores[i] = dot_half_row(query, rows + i * stride, dimensions);
}

TARGET INLINE float dot_int8_row(const float *query, const int8_t *row, int64_t dimensions) {
  vf sum = v_zero();
  int64_t d = 0;
  for (; d + LANES <= dimensions; d += LANES) {
    sum = v_fma(v_load(query + d), v_load_int8(row + d), sum);
  }
  float total = lane_total(sum);
  for (; d < dimensions; d++) total += query[d] * (float)row[d];
  return total;
}

TARGET static void dot_int8(const float *query, const int8_t *rows, int64_t count,
                            int64_t dimensions, int64_t stride, const float *scales,
                            float *scores) {
  int64_t whole = dimensions / LANES * LANES, i = 0;
  for (; i + 4 <= count; i += 4) {
    const int8_t *r0 = rows + i * stride, *r1 = r0 + stride;
    const int8_t *r2 = r1 + stride, *r3 = r2 + stride;
    vf s0 = v_zero(), s1 = v_zero(), s2 = v_zero(), s3 = v_zero();
    for (int64_t d = 0; d < whole; d += LANES) {
      vf q = v_load(query + d);
      s0 = v_fma(q, v_load_int8(r0 + d), s0);
      s1 = v_fma(q, v_load_int8(r1 + d), s1);
      s2 = v_fma(q, v_load_int8(r2 + d), s2);
      s3 = v_fma(q, v_load_int8(r3 + d), s3);
    }
    float t0 = lane_total(s0), t1 = lane_total(s1), t2 = lane_total(s2), t3 = lane_total(s3);
    for (int64_t d = whole; d < dimensions; d++) {
      t0 += query[d] * (float)r0[d];
      t1 += query[d] * (float)r1[d];
      t2 += query[d] * (float)r2[d];
      t3 += query[d] * (float)r3[d];
    }
    scores[i] = t0 * scales[i];
    scores[i + 1] = t1 * scales[i + 1];
    scores[i + 2] = t2 * scales[i + 2];
    scores[i + 3] = t3 * scales[i + 3];
  }
  for (; i < count; i++) {
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
