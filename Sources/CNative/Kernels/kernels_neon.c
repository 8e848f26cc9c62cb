#include "generic_kernels.h"
#include "int8_kernels.h"

/* The NEON kernel set: generic_kernel_bodies.h over 8-float vectors held as two float32x4 registers,
   so the blocked layout and the tiles match the AVX2 set (aarch64 has 32 vector registers, AVX2
   16 of twice the width: the same register budget). NEON and fused multiply-add are baseline on
   aarch64, so no target attribute is needed. */

#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>

#define TARGET
#define INLINE static inline __attribute__((always_inline))
#define SET_NAME "neon"
#define KERNEL(name) name##_neon
#define INT8_KERNELS cnk_int8_for_neon

enum { VL = 8 };

typedef struct vf {
  float32x4_t low, high;
} vf;

INLINE vf v_zero(void) { return (vf){vdupq_n_f32(0), vdupq_n_f32(0)}; }
INLINE vf v_set1(float value) { return (vf){vdupq_n_f32(value), vdupq_n_f32(value)}; }
INLINE vf v_load(const float *source) { return (vf){vld1q_f32(source), vld1q_f32(source + 4)}; }
INLINE void v_store(float *target, vf value) {
  vst1q_f32(target, value.low);
  vst1q_f32(target + 4, value.high);
}
INLINE vf v_add(vf a, vf b) { return (vf){vaddq_f32(a.low, b.low), vaddq_f32(a.high, b.high)}; }
INLINE vf v_sub(vf a, vf b) { return (vf){vsubq_f32(a.low, b.low), vsubq_f32(a.high, b.high)}; }
INLINE vf v_mul(vf a, vf b) { return (vf){vmulq_f32(a.low, b.low), vmulq_f32(a.high, b.high)}; }
/* a * b + c, fused. */
INLINE vf v_fma(vf a, vf b, vf c) {
  return (vf){vfmaq_f32(c.low, a.low, b.low), vfmaq_f32(c.high, a.high, b.high)};
}
/* min(high, max(low, value)); NEON's fmax/fmin return NaN when either operand is NaN, so a NaN
   value stays NaN, as on x86. */
INLINE vf v_clamp(vf value, vf low, vf high) {
  return (vf){vminq_f32(high.low, vmaxq_f32(low.low, value.low)),
              vminq_f32(high.high, vmaxq_f32(low.high, value.high))};
}

/* The larger of a and b, NaN when either is (NEON's fmax propagates NaN). */
INLINE vf v_max(vf a, vf b) { return (vf){vmaxq_f32(a.low, b.low), vmaxq_f32(a.high, b.high)}; }

/* `value` with lanes at or past `count` zeroed. */
INLINE vf v_keep(vf value, int64_t count) {
  static const uint32_t iota[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  uint32_t n = count < 0 ? 0 : (count > VL ? VL : (uint32_t)count);
  uint32x4_t limit = vdupq_n_u32(n);
  uint32x4_t low = vcltq_u32(vld1q_u32(iota), limit);
  uint32x4_t high = vcltq_u32(vld1q_u32(iota + 4), limit);
  return (vf){vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(value.low), low)),
              vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(value.high), high))};
}

/* The first `count` floats at `source`, zero above; reads nothing past them. */
INLINE vf v_load_part(const float *source, int64_t count) {
  float lanes[8] = {0};
  int64_t n = count < 0 ? 0 : (count > VL ? VL : count);
  memcpy(lanes, source, (size_t)n * sizeof(float));
  return v_load(lanes);
}

/* Writes the first `count` lanes of `value`; touches nothing past them. */
INLINE void v_store_part(float *target, vf value, int64_t count) {
  float lanes[8];
  int64_t n = count < 0 ? 0 : (count > VL ? VL : count);
  v_store(lanes, value);
  memcpy(target, lanes, (size_t)n * sizeof(float));
}

/* For the element-wise math kernels: a / b; the smaller of a and b; `yes` where a < b, else
   `no`; 2^n for integer-valued n in -126...127. */
INLINE vf v_div(vf a, vf b) { return (vf){vdivq_f32(a.low, b.low), vdivq_f32(a.high, b.high)}; }
INLINE vf v_min(vf a, vf b) { return (vf){vminq_f32(a.low, b.low), vminq_f32(a.high, b.high)}; }
INLINE vf v_select_less(vf a, vf b, vf yes, vf no) {
  return (vf){vbslq_f32(vcltq_f32(a.low, b.low), yes.low, no.low),
              vbslq_f32(vcltq_f32(a.high, b.high), yes.high, no.high)};
}
INLINE float32x4_t pow2i_half(float32x4_t n) {
  int32x4_t exponent = vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127));
  return vreinterpretq_f32_s32(vshlq_n_s32(exponent, 23));
}
INLINE vf v_pow2i(vf n) { return (vf){pow2i_half(n.low), pow2i_half(n.high)}; }

/* For the quantization kernels: to the nearest integer, ties to even; int32 lanes as floats;
   integral floats stored as int32 lanes. */
INLINE vf v_round_even(vf x) { return (vf){vrndnq_f32(x.low), vrndnq_f32(x.high)}; }
INLINE vf v_load_int32(const int32_t *source) {
  return (vf){vcvtq_f32_s32(vld1q_s32(source)), vcvtq_f32_s32(vld1q_s32(source + 4))};
}
INLINE void v_store_int32(int32_t *target, vf value) {
  vst1q_s32(target, vcvtq_s32_f32(value.low));
  vst1q_s32(target + 4, vcvtq_s32_f32(value.high));
}

/* For the similarity kernels: 8 half floats (fcvtl), stored rounded to nearest even (fcvtn),
   and 8 int8 values, as floats. */
INLINE vf v_load_half(const uint16_t *source) {
  float16x8_t half = vreinterpretq_f16_u16(vld1q_u16(source));
  return (vf){vcvt_f32_f16(vget_low_f16(half)), vcvt_high_f32_f16(half)};
}
INLINE void v_store_half(uint16_t *target, vf value) {
  float16x8_t half = vcvt_high_f16_f32(vcvt_f16_f32(value.low), value.high);
  vst1q_u16(target, vreinterpretq_u16_f16(half));
}
INLINE vf v_load_int8(const int8_t *source) {
  int16x8_t wide = vmovl_s8(vld1_s8(source));
  return (vf){vcvtq_f32_s32(vmovl_s16(vget_low_s16(wide))), vcvtq_f32_s32(vmovl_high_s16(wide))};
}

#include "generic_kernel_bodies.h"
#endif
