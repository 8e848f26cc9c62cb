#include "int8_kernels.h"

/* The NEON dot-product int8 variant (ARMv8.2 `sdot`): int8_generic_bodies.h over int8_neon.h.
   `sdot` multiplies signed bytes, so activations enter as a - 128 (xor 0x80) and the pack
   stores 128 * sum(w) per column, added back before requantization: exact. Compiled with
   target("dotprod"); kernel_sets.c hands it out only when getauxval(AT_HWCAP) has
   HWCAP_ASIMDDP. */

#if defined(__aarch64__)

#define TARGET __attribute__((target("dotprod")))
#define INLINE static inline __attribute__((always_inline))
#define VARIANT_NAME "neon-dotprod"
#define VARIANT(name) name##_neon_dotprod

/* Tiles of up to 4 rows x 4 vectors: 16 accumulators, 4 weight vectors and a broadcast of the
   32 q registers. */
enum { VL = 4, MR = 4, NV = 4, WEIGHT_BYTES = 1, ACTIVATION_BIAS = 128 };

#include "int8_neon.h"


typedef int8x16_t va;
typedef int8x16_t vw;

/* One row's 4 bytes of k minus 128 (as signed bytes), in every lane. */
TARGET INLINE va a_load(const uint8_t *a) {
  uint32_t bytes;
  memcpy(&bytes, a, sizeof bytes);
  return vreinterpretq_s8_u32(veorq_u32(vdupq_n_u32(bytes), vdupq_n_u32(0x80808080u)));
}
TARGET INLINE vw w_load(const int8_t *w, int form) {
  (void)form;
  return vld1q_s8(w);
}
TARGET INLINE vi dot4(vi acc, va a, vw w, int form) {
  (void)form;
  return vdotq_s32(acc, w, a);
}
/* A group is VL columns of 4 consecutive k bytes (one int32 lane each). */
static void store_group(int8_t *group, const int8_t lanes[VL][4], int form) {
  (void)form;
  memcpy(group, lanes, VL * 4);
}

#include "int8_generic_bodies.h"
#endif
