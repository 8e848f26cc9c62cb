#include "int8_kernels.h"

/* The AVX2 int8 variant (no VNNI): int8_generic_bodies.h over int8_ymm.h. `vpmaddubsw` adds two
   unsigned-by-signed byte products into a SATURATING int16, which is exact only while
   255 * (|w0| + |w1|) <= 32767, so the pack picks a form per block of 8 columns:
     form 0 (bytes), when every adjacent weight pair of the block has |w0| + |w1| <= 128:
       `vpmaddubsw` then `vpmaddwd` by ones (4 products per int32 lane, at most 255 * 128 per
       int16 pair, never saturated);
     form 1 (wide), otherwise: weights stored as int16 pairs, activations widened to int16
       pairs, two `vpmaddwd` per 4 k (exact for any weights, about half the speed).
   So results are exact for any weights, and weights quantized to 7 bits (or per-channel
   weights with no large adjacent pair) take the fast form. Compiled with target("avx2,fma");
   kernel_sets.c hands it out only when the CPU has AVX2 and FMA and the OS saves ymm state. */

#if defined(__x86_64__)

#define TARGET __attribute__((target("avx2,fma")))
#define INLINE static inline __attribute__((always_inline))
#define VARIANT_NAME "avx2"
#define VARIANT(name) name##_avx2
#define TWO_FORMS

#include <immintrin.h>

/* Tiles of up to 4 rows x 2 vectors: 8 accumulators, 2 weight vectors, the broadcasts, the
   ones and two temporaries in 16 ymm registers. */
enum { VL = 8, MR = 4, NV = 2, WEIGHT_BYTES = 2, ACTIVATION_BIAS = 0 };

/* acc + the int16 pair products of a and b (`vpmaddwd`, exact). */
TARGET INLINE __m256i pair_dot(__m256i acc, __m256i a, __m256i b) {
  return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
}

#include "int8_ymm.h"

#include <stdlib.h>

enum { FORM_BYTES = 0, FORM_WIDE = 1 };

/* One row's 4 bytes of k: as bytes in every lane, and as int16 pairs (k 0, 1) and (k 2, 3). */
typedef struct va {
  __m256i bytes, low_pair, high_pair;
} va;
/* One block's 4 k: 32 bytes (form 0), or two vectors of int16 pairs (form 1). */
typedef struct vw {
  __m256i first, second;
} vw;

/* Only the members a form uses survive inlining. */
TARGET INLINE va a_load(const uint8_t *a) {
  __m256i bytes = broadcast4(a);
  __m128i words = _mm_cvtepu8_epi16(_mm256_castsi256_si128(bytes));
  return (va){bytes, _mm256_broadcastd_epi32(words),
              _mm256_broadcastd_epi32(_mm_srli_si128(words, 4))};
}
TARGET INLINE vw w_load(const int8_t *w, int form) {
  __m256i first = _mm256_loadu_si256((const __m256i *)w);
  if (form == FORM_BYTES) return (vw){first, first};
  return (vw){first, _mm256_loadu_si256((const __m256i *)(w + 32))};
}
TARGET INLINE vi dot4(vi acc, va a, vw w, int form) {
  if (form == FORM_BYTES) {
    __m256i pairs = _mm256_maddubs_epi16(a.bytes, w.first);
    return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
  }
  acc = _mm256_add_epi32(acc, _mm256_madd_epi16(a.low_pair, w.first));
  return _mm256_add_epi32(acc, _mm256_madd_epi16(a.high_pair, w.second));
}

/* Form 0: VL columns of 4 k bytes. Form 1: VL columns of int16 (k 0, k 1), then VL columns of
   int16 (k 2, k 3). */
static void store_group(int8_t *group, const int8_t lanes[VL][4], int form) {
  if (form == FORM_BYTES) {
    memcpy(group, lanes, VL * 4);
    return;
  }
  int16_t wide[2][VL][2];
  for (int half = 0; half < 2; half++)
    for (int lane = 0; lane < VL; lane++)
      for (int i = 0; i < 2; i++) wide[half][lane][i] = lanes[lane][2 * half + i];
  memcpy(group, wide, sizeof wide);
}

/* FORM_BYTES when no adjacent pair (k 2i, 2i + 1) of the block's `count` columns can saturate
   `vpmaddubsw`, else FORM_WIDE. */
static int block_form(const int8_t *w, int64_t count, int64_t k, int64_t ldw) {
  for (int64_t n = 0; n < count; n++) {
    for (int64_t p = 0; p < k; p += 2) {
      int first = w[n * ldw + p], second = p + 1 < k ? w[n * ldw + p + 1] : 0;
      if (abs(first) + abs(second) > 128) return FORM_WIDE;
    }
  }
  return FORM_BYTES;
}

#include "int8_generic_bodies.h"
#endif
