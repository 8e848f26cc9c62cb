#ifndef CNATIVE_INT8_KERNELS_H
#define CNATIVE_INT8_KERNELS_H

/* The int8 variants, each compiled from int8_generic_bodies.h for one instruction-set family
   (int8_avx512.c, int8_avx_vnni.c, int8_avx2.c, int8_neon_dotprod.c, int8_neon.c,
   int8_portable.c), only on its architecture. A variant may use instructions the CPU lacks:
   kernel_sets.c hands one out only after asking the CPU (cnk_int8_kernels_variant, and each
   set's int8 entry). */

#include "CNativeKernels.h"

#include <math.h>

extern const cnk_int8_kernels cnk_int8_portable;
#if defined(__x86_64__)
extern const cnk_int8_kernels cnk_int8_avx512_vnni;
extern const cnk_int8_kernels cnk_int8_avx_vnni;
extern const cnk_int8_kernels cnk_int8_avx2;
#endif
#if defined(__aarch64__)
extern const cnk_int8_kernels cnk_int8_neon_dotprod;
extern const cnk_int8_kernels cnk_int8_neon;
#endif

/* The int8 entry of each set's descriptor (kernel_sets.c): the best variant of that set on
   this CPU. */
const cnk_int8_kernels *cnk_int8_for_portable(void);
#if defined(__x86_64__)
const cnk_int8_kernels *cnk_int8_for_avx512(void);
const cnk_int8_kernels *cnk_int8_for_avx2(void);
#endif
#if defined(__aarch64__)
const cnk_int8_kernels *cnk_int8_for_neon(void);
#endif

/* The vector steps' float operations one lane at a time (tails, the portable variant): x86
   maxps/minps semantics (a NaN becomes the lower limit), then round half to even. */

static inline float limit_low(float x, float low) { return x > low ? x : low; }
static inline float limit_high(float x, float high) { return x < high ? x : high; }

static inline uint8_t round_clamp_scalar(float x, int32_t zero_point, int32_t minimum,
                                         int32_t maximum) {
  x = limit_high(limit_low(x, (float)(minimum - zero_point)), (float)(maximum - zero_point));
  return (uint8_t)((int32_t)lrintf(x) + zero_point);
}

/* The requantization of one int32 sum of channel n (int32 addition wraps, as in vectors). */
static inline uint8_t requantize_scalar(int32_t sum, const cnk_requantization *q, int64_t n) {
  int32_t biased = (int32_t)((uint32_t)sum + (uint32_t)q->bias[n]);
  return round_clamp_scalar((float)biased * q->scale[n], q->zero_point, q->minimum, q->maximum);
}

#endif
