#include "generic_kernels.h"
#include "int8_kernels.h"

/* The portable kernel set: generic_kernel_bodies.h over 4-float vectors of the compiler's vector
   extension, compiled with no target attribute, so it runs on any CPU of the architecture
   (SSE2 on x86-64, NEON on aarch64) and exists on every architecture. */

#include <math.h>
#include <string.h>

/* The baseline x86-64 has no fused multiply-add, so v_fma is a multiply then an add; with
   contraction off the compiler fuses nothing on aarch64 either, and the set rounds alike on both. */
#pragma STDC FP_CONTRACT OFF

#define TARGET
#define INLINE static inline __attribute__((always_inline))
#define SET_NAME "portable"
#define KERNEL(name) name##_portable
#define INT8_KERNELS cnk_int8_for_portable

/* 4 lanes: NR = 8 columns and 12 accumulators fit the 16 xmm registers of baseline x86-64. */
enum { VL = 4 };

typedef float vf __attribute__((vector_size(16)));
typedef int32_t vmask __attribute__((vector_size(16)));

/* `yes` where `mask` is all ones, `no` where it is zero. */
INLINE vf v_select(vmask mask, vf yes, vf no) {
  return (vf)(((vmask)yes & mask) | ((vmask)no & ~mask));
}

INLINE vf v_zero(void) { return (vf){0, 0, 0, 0}; }
INLINE vf v_set1(float value) { return (vf){value, value, value, value}; }
INLINE vf v_load(const float *source) {
  vf value;
  memcpy(&value, source, sizeof value);
  return value;
}
INLINE void v_store(float *target, vf value) { memcpy(target, &value, sizeof value); }
INLINE vf v_add(vf a, vf b) { return a + b; }
INLINE vf v_sub(vf a, vf b) { return a - b; }
INLINE vf v_mul(vf a, vf b) { return a * b; }
/* a * b + c, rounded twice (not fused: see FP_CONTRACT above). */
INLINE vf v_fma(vf a, vf b, vf c) { return a * b + c; }

/* min(high, max(low, value)); a comparison with NaN is false, so a NaN value passes through
   both selects and stays NaN, as on x86. */
INLINE vf v_clamp(vf value, vf low, vf high) {
  vf raised = v_select(low > value, low, value);
  return v_select(high < raised, high, raised);
}

/* The larger of a and b, NaN when either is: a NaN `a` is kept by the unordered test, a NaN
   `b` wins because `a > b` is false. */
INLINE vf v_max(vf a, vf b) { return v_select((a > b) | (a != a), a, b); }

/* `value` with lanes at or past `count` zeroed. */
INLINE vf v_keep(vf value, int64_t count) {
  int32_t n = count < 0 ? 0 : (count > VL ? VL : (int32_t)count);
  vmask lane = {0, 1, 2, 3};
  return v_select(lane < n, value, v_zero());
}

/* The first `count` floats at `source`, zero above; reads nothing past them. */
INLINE vf v_load_part(const float *source, int64_t count) {
  float lanes[VL] = {0};
  int64_t n = count < 0 ? 0 : (count > VL ? VL : count);
  memcpy(lanes, source, (size_t)n * sizeof(float));
  return v_load(lanes);
}

/* Writes the first `count` lanes of `value`; touches nothing past them. */
INLINE void v_store_part(float *target, vf value, int64_t count) {
  float lanes[VL];
  int64_t n = count < 0 ? 0 : (count > VL ? VL : count);
  v_store(lanes, value);
  memcpy(target, lanes, (size_t)n * sizeof(float));
}

/* For the element-wise math kernels: a / b; the smaller of a and b; `yes` where a < b, else
   `no`; 2^n for integer-valued n in -126...127. */
INLINE vf v_div(vf a, vf b) { return a / b; }
INLINE vf v_min(vf a, vf b) { return v_select(b < a, b, a); }
INLINE vf v_select_less(vf a, vf b, vf yes, vf no) { return v_select(a < b, yes, no); }
INLINE vf v_pow2i(vf n) {
  vmask exponent = __builtin_convertvector(n, vmask) + 127;
  return (vf)(exponent << 23);
}

/* For the quantization kernels: to the nearest integer, ties to even (the default rounding
   mode); int32 lanes as floats; integral floats stored as int32 lanes. */
INLINE vf v_round_even(vf x) {
  vf rounded;
  for (int lane = 0; lane < VL; lane++) rounded[lane] = rintf(x[lane]);
  return rounded;
}
INLINE vf v_load_int32(const int32_t *source) {
  vmask value;
  memcpy(&value, source, sizeof value);
  return __builtin_convertvector(value, vf);
}
INLINE void v_store_int32(int32_t *target, vf value) {
  vmask integers = __builtin_convertvector(value, vmask);
  memcpy(target, &integers, sizeof integers);
}

/* For the similarity kernels: 4 half floats, stored rounded to nearest even (half_float.h's exact
   conversions, lane by lane), and 4 int8 values, as floats. */
#include "half_float.h"
INLINE vf v_load_half(const uint16_t *source) {
  return (vf){cnk_half_to_float(source[0]), cnk_half_to_float(source[1]),
              cnk_half_to_float(source[2]), cnk_half_to_float(source[3])};
}
INLINE void v_store_half(uint16_t *target, vf value) {
  for (int lane = 0; lane < VL; lane++) target[lane] = cnk_float_to_half(value[lane]);
}
INLINE vf v_load_int8(const int8_t *source) {
  typedef int8_t bytes4 __attribute__((vector_size(4)));
  bytes4 value;
  memcpy(&value, source, sizeof value);
  return __builtin_convertvector(value, vf);
}

#include "generic_kernel_bodies.h"
