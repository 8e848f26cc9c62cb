/*
 * The vector API of int8_generic_bodies.h over 4 int32 lanes of NEON q registers, shared by
 * the NEON variants with and without dot product (int8_neon_dotprod.c, int8_neon.c); the
 * including file defines TARGET, INLINE, VL (4) and the k-step operations (va, vw, a_load, w_load,
 * dot4, store_group). Included once per translation unit on purpose: no include guard.
 */

#include <arm_neon.h>
#include <math.h>
#include <string.h>

typedef int32x4_t vi;
typedef float32x4_t vf;
typedef struct bounds {
  vf low, high;
  vi zero_point;
} bounds;

TARGET INLINE vi vi_zero(void) { return vdupq_n_s32(0); }
TARGET INLINE vi vi_add(vi a, vi b) { return vaddq_s32(a, b); }
/* The first `count` values at p, zero above; reads nothing past them. */
TARGET INLINE vi vi_load_part(const int32_t *p, int64_t count) {
  if (count >= 4) return vld1q_s32(p);
  int32_t lanes[4] = {0};
  memcpy(lanes, p, (size_t)count * sizeof(int32_t));
  return vld1q_s32(lanes);
}
TARGET INLINE vf vf_load_part(const float *p, int64_t count) {
  if (count >= 4) return vld1q_f32(p);
  float lanes[4] = {0};
  memcpy(lanes, p, (size_t)count * sizeof(float));
  return vld1q_f32(lanes);
}
/* The first `count` bytes at p, zero above, widened to int16 (low 4 lanes). */
TARGET INLINE uint16x4_t load4_u8(const uint8_t *p, int64_t count) {
  uint32_t bytes = 0;
  if (count >= 4) {
    memcpy(&bytes, p, 4);
  } else {
    memcpy(&bytes, p, (size_t)count);
  }
  return vget_low_u16(vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(bytes))));
}
TARGET INLINE vf vf_load_u8(const uint8_t *p, int64_t count) {
  return vcvtq_f32_u32(vmovl_u16(load4_u8(p, count)));
}
TARGET INLINE vf vf_from_vi(vi a) { return vcvtq_f32_s32(a); }
TARGET INLINE vf vf_set1(float value) { return vdupq_n_f32(value); }
TARGET INLINE vf vf_mul(vf a, vf b) { return vmulq_f32(a, b); }
TARGET INLINE vf vf_add(vf a, vf b) { return vaddq_f32(a, b); }
TARGET INLINE vf vf_div(vf a, vf b) { return vdivq_f32(a, b); }
/* NaN lanes become zero. */
TARGET INLINE vf vf_zero_nan(vf a) { return vbslq_f32(vceqq_f32(a, a), a, vdupq_n_f32(0)); }

TARGET INLINE bounds bounds_of(int32_t zero_point, int32_t minimum, int32_t maximum) {
  return (bounds){vdupq_n_f32((float)(minimum - zero_point)),
                  vdupq_n_f32((float)(maximum - zero_point)), vdupq_n_s32(zero_point)};
}
/* x86's maxps/minps by compare and select (NEON's fmax would keep a NaN), so NaN becomes the
   low limit as on every variant; fcvtns rounds half to even. */
TARGET INLINE vi round_clamp(vf x, bounds b) {
  x = vbslq_f32(vcgtq_f32(x, b.low), x, b.low);
  x = vbslq_f32(vcltq_f32(x, b.high), x, b.high);
  return vaddq_s32(vcvtnq_s32_f32(x), b.zero_point);
}
/* Writes the low byte of the first `count` lanes (values 0...255); nothing past them. */
TARGET INLINE void store_u8(uint8_t *p, vi values, int64_t count) {
  int16x4_t words = vmovn_s32(values);
  uint8x8_t bytes = vqmovun_s16(vcombine_s16(words, words));
  uint32_t low = vget_lane_u32(vreinterpret_u32_u8(bytes), 0);
  if (count >= 4) {
    memcpy(p, &low, 4);
  } else {
    memcpy(p, &low, (size_t)count);
  }
}

/* Table lookup, 16 bytes at a time: tbl over each 64-entry quarter of the table by the index
   less the quarter's start (out of range, and so 0, for the other quarters), ORed. */
TARGET INLINE int64_t lookup_vectors(const uint8_t *x, int64_t count, const uint8_t *table,
                                     uint8_t *y) {
  uint8x16x4_t quarters[4];
  for (int q = 0; q < 4; q++) quarters[q] = vld1q_u8_x4(table + 64 * q);
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    uint8x16_t index = vld1q_u8(x + i), value = vdupq_n_u8(0);
    for (int q = 0; q < 4; q++) {
      uint8x16_t local = vsubq_u8(index, vdupq_n_u8((uint8_t)(64 * q)));
      value = vorrq_u8(value, vqtbl4q_u8(quarters[q], local));
    }
    vst1q_u8(y + i, value);
  }
  return i;
}

/* Depthwise blocks of 4 channels in order: two taps' bytes widened, multiplied by their int16
   weights (de-interleaved by vld2) with `smlal`, exact. */
enum { DW = VL };
typedef int16x4x2_t vd;
typedef vi vacc;

static int64_t dw_slot(int64_t channel) { return channel; }
TARGET INLINE vd dw_weights(const int16_t *w) { return vld2_s16(w); }
TARGET INLINE vacc dw_zero(void) { return vi_zero(); }
/* Two taps' first `count` channels (at most 4), widened; reads nothing past them. */
typedef int16x4x2_t vcol;
TARGET INLINE vcol dw_column(const uint8_t *p0, const uint8_t *p1, int64_t count) {
  return (vcol){{vreinterpret_s16_u16(load4_u8(p0, count)),
                 vreinterpret_s16_u16(load4_u8(p1, count))}};
}
TARGET INLINE vacc dw_madd(vacc acc, vcol taps, vd w) {
  return vmlal_s16(vmlal_s16(acc, taps.val[0], w.val[0]), taps.val[1], w.val[1]);
}
TARGET INLINE void dw_sums(vacc acc, vi sums[1]) { sums[0] = acc; }
