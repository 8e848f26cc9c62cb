#include "int8_kernels.h"

/* The AVX-VNNI int8 variant: int8_generic_bodies.h over int8_ymm.h with the VEX-encoded
   `vpdpbusd` (4 unsigned-by-signed byte products per int32 lane, exact). Compiled with
   target("avx2,fma,avxvnni"); kernel_sets.c hands it out only when the CPU has AVX-VNNI
   (CPUID.(7,1):EAX bit 4), AVX2 and FMA and the OS saves ymm state. */

#if defined(__x86_64__)

#define TARGET __attribute__((target("avx2,fma,avxvnni")))
#define INLINE static inline __attribute__((always_inline))
#define VARIANT_NAME "avx-vnni"
#define VARIANT(name) name##_avx_vnni

#include <immintrin.h>

/* Tiles of up to 6 rows x 2 vectors: 12 accumulators, 2 weight vectors and a broadcast in 16
   ymm registers. */
enum { VL = 8, MR = 6, NV = 2, WEIGHT_BYTES = 1, ACTIVATION_BIAS = 0 };

/* acc + the int16 pair products of a and b (`vpdpwssd`, exact). */
TARGET INLINE __m256i pair_dot(__m256i acc, __m256i a, __m256i b) {
  return _mm256_dpwssd_avx_epi32(acc, a, b);
}

#include "int8_ymm.h"


typedef __m256i va;
typedef __m256i vw;

TARGET INLINE va a_load(const uint8_t *a) { return broadcast4(a); }
TARGET INLINE vw w_load(const int8_t *w, int form) {
  (void)form;
  return _mm256_loadu_si256((const __m256i *)w);
}
TARGET INLINE vi dot4(vi acc, va a, vw w, int form) {
  (void)form;
  return _mm256_dpbusd_avx_epi32(acc, a, w);
}
/* A group is VL columns of 4 consecutive k bytes (one int32 lane each). */
static void store_group(int8_t *group, const int8_t lanes[VL][4], int form) {
  (void)form;
  memcpy(group, lanes, VL * 4);
}

#include "int8_generic_bodies.h"
#endif
