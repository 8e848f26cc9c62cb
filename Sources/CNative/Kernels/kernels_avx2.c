#include "generic_kernels.h"
#include "int8_kernels.h"

/* The AVX2 + FMA kernel set: generic_kernel_bodies.h over 8-float ymm vectors. Every function is
   compiled with target("avx2,fma,f16c") and reached only through cnk_kernel_set_avx2(), which
   returns it only when the CPU and OS support all three (every AVX2 CPU has F16C). */

#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#define TARGET __attribute__((target("avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline))
#define SET_NAME "avx2"
#define KERNEL(name) name##_avx2
#define INT8_KERNELS cnk_int8_for_avx2

enum { VL = 8 };

typedef __m256 vf;

TARGET INLINE vf v_zero(void) { return _mm256_setzero_ps(); }
TARGET INLINE vf v_set1(float value) { return _mm256_set1_ps(value); }
TARGET INLINE vf v_load(const float *source) { return _mm256_loadu_ps(source); }
TARGET INLINE void v_store(float *target, vf value) { _mm256_storeu_ps(target, value); }
TARGET INLINE vf v_add(vf a, vf b) { return _mm256_add_ps(a, b); }
TARGET INLINE vf v_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
TARGET INLINE vf v_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
/* a * b + c, fused. */
TARGET INLINE vf v_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
/* min(high, max(low, value)); maxps/minps return their second operand when either is NaN, so
   a NaN value stays NaN. */
TARGET INLINE vf v_clamp(vf value, vf low, vf high) {
  return _mm256_min_ps(high, _mm256_max_ps(low, value));
}

/* The larger of a and b, NaN when either is: maxps returns its second operand when either is
   NaN, so a NaN in `a` is put back by a blend. */
TARGET INLINE vf v_max(vf a, vf b) {
  return _mm256_blendv_ps(_mm256_max_ps(a, b), a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}

/* All ones in lanes 0..<count (count clamped to 0...VL), zero above. */
TARGET INLINE __m256i lane_mask(int64_t count) {
  int32_t n = count < 0 ? 0 : (count > VL ? VL : (int32_t)count);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* `value` with lanes at or past `count` zeroed (register operations only). */
TARGET INLINE vf v_keep(vf value, int64_t count) {
  return _mm256_and_ps(value, _mm256_castsi256_ps(lane_mask(count)));
}

/* The first `count` floats at `source`, zero above; reads nothing past them. */
TARGET INLINE vf v_load_part(const float *source, int64_t count) {
  return _mm256_maskload_ps(source, lane_mask(count));
}

/* Writes the first `count` lanes of `value`; touches nothing past them. */
TARGET INLINE void v_store_part(float *target, vf value, int64_t count) {
  _mm256_maskstore_ps(target, lane_mask(count), value);
}

/* For the element-wise math kernels: a / b; the smaller of a and b; `yes` where a < b, else
   `no`; 2^n for integer-valued n in -126...127. */
TARGET INLINE vf v_div(vf a, vf b) { return _mm256_div_ps(a, b); }
TARGET INLINE vf v_min(vf a, vf b) { return _mm256_min_ps(a, b); }
TARGET INLINE vf v_select_less(vf a, vf b, vf yes, vf no) {
  return _mm256_blendv_ps(no, yes, _mm256_cmp_ps(a, b, _CMP_LT_OQ));
}
TARGET INLINE vf v_pow2i(vf n) {
  __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_castsi256_ps(bits);
}

/* For the quantization kernels: to the nearest integer, ties to even; int32 lanes as floats;
   integral floats stored as int32 lanes. */
TARGET INLINE vf v_round_even(vf x) {
  return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
TARGET INLINE vf v_load_int32(const int32_t *source) {
  return _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)source));
}
TARGET INLINE void v_store_int32(int32_t *target, vf value) {
  _mm256_storeu_si256((__m256i *)target, _mm256_cvttps_epi32(value));
}

/* For the similarity kernels: 8 half floats (F16C), stored rounded to nearest even, and 8 int8
   values, as floats. */
TARGET INLINE vf v_load_half(const uint16_t *source) {
  return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)source));
}
TARGET INLINE void v_store_half(uint16_t *target, vf value) {
  _mm_storeu_si128((__m128i *)target,
                   _mm256_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
TARGET INLINE vf v_load_int8(const int8_t *source) {
  return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)source)));
}

#include "generic_kernel_bodies.h"
#endif
