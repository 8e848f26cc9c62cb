#include "int8_kernels.h"

/* The NEON int8 variant without dot product: int8_generic_bodies.h over int8_neon.h, weights
   stored as int16 and multiplied by widened activations with `smlal` by lane (exact int32
   products). NEON is baseline on aarch64, so no target attribute is needed. */

#if defined(__aarch64__)

#define TARGET
#define INLINE static inline __attribute__((always_inline))
#define VARIANT_NAME "neon"
#define VARIANT(name) name##_neon

/* Tiles of up to 4 rows x 4 vectors: 16 accumulators and 8 weight registers of the 32 q
   registers. */
enum { VL = 4, MR = 4, NV = 4, WEIGHT_BYTES = 2, ACTIVATION_BIAS = 0 };

#include "int8_neon.h"


/* One row's 4 activations of k as int16; one block's 4 k as int16 (k 0, 1 | k 2, 3, VL columns
   each). */
typedef int16x4_t va;
typedef int16x8x2_t vw;

TARGET INLINE va a_load(const uint8_t *a) { return vreinterpret_s16_u16(load4_u8(a, 4)); }
TARGET INLINE vw w_load(const int8_t *w, int form) {
  (void)form;
  return (vw){{vld1q_s16((const int16_t *)w), vld1q_s16((const int16_t *)w + 8)}};
}
TARGET INLINE vi dot4(vi acc, va a, vw w, int form) {
  (void)form;
  acc = vmlal_lane_s16(acc, vget_low_s16(w.val[0]), a, 0);
  acc = vmlal_lane_s16(acc, vget_high_s16(w.val[0]), a, 1);
  acc = vmlal_lane_s16(acc, vget_low_s16(w.val[1]), a, 2);
  return vmlal_lane_s16(acc, vget_high_s16(w.val[1]), a, 3);
}
/* A group is 4 rows of k (k 0...3), each VL columns of int16. */
static void store_group(int8_t *group, const int8_t lanes[VL][4], int form) {
  (void)form;
  int16_t wide[4][VL];
  for (int i = 0; i < 4; i++)
    for (int lane = 0; lane < VL; lane++) wide[i][lane] = lanes[lane][i];
  memcpy(group, wide, sizeof wide);
}

#include "int8_generic_bodies.h"
#endif
