#include "avx512_kernels.h"

/* The AVX-512 instance of window_kernel_bodies.h (max pooling, Winograd transforms) over
   16-float zmm vectors. Reached only through the AVX-512 descriptor (kernel_sets.c), which
   exists only when the CPU and OS support AVX-512F. */

#if defined(__x86_64__)
#include <immintrin.h>

#define TARGET __attribute__((target("avx512f")))
#define INLINE static inline __attribute__((always_inline))
#define WINDOW_KERNEL(name) cnk_##name##_avx512
#define WINDOW_LINKAGE

enum { VL = CNK_BLOCK_LANES };

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
/* The larger of a and b, NaN when either is (maxps alone returns b when either is NaN). */
TARGET INLINE vf v_max(vf a, vf b) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), _mm512_max_ps(a, b), a);
}
/* min(high, max(low, value)); a NaN value stays NaN. */
TARGET INLINE vf v_clamp(vf value, vf low, vf high) {
  return _mm512_min_ps(high, _mm512_max_ps(low, value));
}
/* `value` with lanes at or past `count` zeroed. */
TARGET INLINE vf v_keep(vf value, int64_t count) {
  __mmask16 keep = count >= VL ? (__mmask16)0xFFFF
                   : count <= 0 ? (__mmask16)0
                                : (__mmask16)((1u << count) - 1u);
  return _mm512_maskz_mov_ps(keep, value);
}

#include "window_kernel_bodies.h"
#endif
