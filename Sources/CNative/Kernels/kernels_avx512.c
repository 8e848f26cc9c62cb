#include "generic_kernels.h"
#include "int8_kernels.h"

/* The AVX-512 kernel set: generic_kernel_bodies.h over 16-float zmm vectors, with the register
   budget of 32 zmm (twice AVX2's). Every function is compiled with target("avx512f") and
   reached only through cnk_kernel_set_avx512(), which returns it only when the CPU and OS
   support AVX-512F. */

#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#define TARGET __attribute__((target("avx512f")))
#define INLINE static inline __attribute__((always_inline))
#define SET_NAME "avx512"
#define KERNEL(name) name##_avx512
#define INT8_KERNELS cnk_int8_for_avx512

/* GEMM tile 12 x 32: 24 accumulators, 2 B vectors and a broadcast of 32 registers. */
#define GEMM_ROWS 12
#define ACCUMULATORS 24
#define POINTWISE_MOST 16
/* With 2 x 12 accumulators the compiler spilled registers in the direct tap loop (measured 22 %
   slower on a 224 x 224 stem), so a direct tile takes at most 8 outputs. */
#define DIRECT_MOST 8
#define PAIR_MOST 8
/* 3 blocks x 7 positions: no partial tile on 7-multiple planes, measured 3.5 % faster over
   Lite0's 1x1 layers than 2 x 12 on Zen 5. */
#define POINTWISE_TILING_SEVENS {3, 7, 32768}
#define POINTWISE_TILING_OTHER {2, 12, 32768}

enum { VL = 16 };

typedef __m512 vf;

TARGET INLINE vf v_zero(void) { return _mm512_setzero_ps(); }
TARGET INLINE vf v_set1(float value) { return _mm512_set1_ps(value); }
TARGET INLINE vf v_load(const float *source) { return _mm512_loadu_ps(source); }
TARGET INLINE void v_store(float *target, vf value) { _mm512_storeu_ps(target, value); }
TARGET INLINE vf v_add(vf a, vf b) { return _mm512_add_ps(a, b); }
TARGET INLINE vf v_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
TARGET INLINE vf v_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
/* a * b + c, fused. */
TARGET INLINE vf v_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
/* min(high, max(low, value)); maxps/minps return their second operand when either is NaN, so
   a NaN value stays NaN. */
TARGET INLINE vf v_clamp(vf value, vf low, vf high) {
  return _mm512_min_ps(high, _mm512_max_ps(low, value));
}

/* The larger of a and b, NaN when either is: maxps returns its second operand when either is
   NaN, so a NaN in `a` is put back by a blend. */
TARGET INLINE vf v_max(vf a, vf b) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), _mm512_max_ps(a, b), a);
}

/* Lanes 0..<count set (count clamped to 0...VL). */
TARGET INLINE __mmask16 lane_mask(int64_t count) {
  if (count >= VL) return (__mmask16)0xFFFF;
  return count <= 0 ? (__mmask16)0 : (__mmask16)((1u << count) - 1u);
}

/* `value` with lanes at or past `count` zeroed (register operations only). */
TARGET INLINE vf v_keep(vf value, int64_t count) {
  return _mm512_maskz_mov_ps(lane_mask(count), value);
}

/* The first `count` floats at `source`, zero above; a masked load reads nothing past them. */
TARGET INLINE vf v_load_part(const float *source, int64_t count) {
  return _mm512_maskz_loadu_ps(lane_mask(count), source);
}

/* Writes the first `count` lanes of `value`; touches nothing past them. */
TARGET INLINE void v_store_part(float *target, vf value, int64_t count) {
  _mm512_mask_storeu_ps(target, lane_mask(count), value);
}

/* For the element-wise math kernels: a / b; the smaller of a and b; `yes` where a < b, else
   `no`; 2^n for integer-valued n in -126...127. */
TARGET INLINE vf v_div(vf a, vf b) { return _mm512_div_ps(a, b); }
TARGET INLINE vf v_min(vf a, vf b) { return _mm512_min_ps(a, b); }
TARGET INLINE vf v_select_less(vf a, vf b, vf yes, vf no) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), no, yes);
}
TARGET INLINE vf v_pow2i(vf n) {
  __m512i bits = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
  return _mm512_castsi512_ps(bits);
}

/* For the quantization kernels: to the nearest integer, ties to even; int32 lanes as floats;
   integral floats stored as int32 lanes. */
TARGET INLINE vf v_round_even(vf x) {
  return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
TARGET INLINE vf v_load_int32(const int32_t *source) {
  return _mm512_cvtepi32_ps(_mm512_loadu_si512(source));
}
TARGET INLINE void v_store_int32(int32_t *target, vf value) {
  _mm512_storeu_si512(target, _mm512_cvttps_epi32(value));
}

/* For the similarity kernels: 16 half floats (vcvtph2ps), stored rounded to nearest even, and 16
   int8 values, as floats. */
TARGET INLINE vf v_load_half(const uint16_t *source) {
  return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)source));
}
TARGET INLINE void v_store_half(uint16_t *target, vf value) {
  _mm256_storeu_si256((__m256i *)target,
                      _mm512_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
TARGET INLINE vf v_load_int8(const int8_t *source) {
  return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)source)));
}

#include "generic_kernel_bodies.h"
#endif
