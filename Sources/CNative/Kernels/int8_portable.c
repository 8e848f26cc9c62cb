#include "int8_kernels.h"

/* The portable int8 variant: int8_generic_bodies.h over 4-lane vectors of the compiler's
   vector extension (SSE2 on x86-64, NEON on aarch64), with no target attribute, on every
   architecture. Its float steps are the vector variants' operations, the rounding one lane at
   a time, so it rounds exactly alike. Products and sums are int32 and cannot overflow
   (255 * 128 * k for any k below 65 000). */

#include <math.h>
#include <string.h>

/* No fused multiply-add: every variant rounds the product, then the sum. */
#pragma STDC FP_CONTRACT OFF

#define TARGET
#define INLINE static inline __attribute__((always_inline))
#define VARIANT_NAME "portable"
#define VARIANT(name) name##_portable

/* Tiles of up to 4 rows x 2 vectors: 8 accumulators, 8 weight vectors and 4 broadcasts of
   the 16 xmm registers of baseline x86-64 or 32 of aarch64. */
enum { VL = 4, MR = 4, NV = 2, WEIGHT_BYTES = 4, ACTIVATION_BIAS = 0 };

typedef int32_t vi __attribute__((vector_size(16)));
typedef uint32_t vu __attribute__((vector_size(16)));
typedef float vf __attribute__((vector_size(16)));
/* One row's 4 activations of k, each in every lane; one block's 4 k as int32 (k rows of VL
   columns). */
typedef struct va {
  vi k[4];
} va;
typedef struct vw {
  vi k[4];
} vw;
typedef struct bounds {
  int32_t zero_point, minimum, maximum;
} bounds;

INLINE vi vi_zero(void) { return (vi){0, 0, 0, 0}; }
/* Wraps like vector addition on every other variant. */
INLINE vi vi_add(vi a, vi b) { return (vi)((vu)a + (vu)b); }
/* The first `count` values at p, zero above; reads nothing past them. */
INLINE vi vi_load_part(const int32_t *p, int64_t count) {
  vi a = vi_zero();
  memcpy(&a, p, (size_t)(count < VL ? count : VL) * sizeof(int32_t));
  return a;
}
INLINE vf vf_load_part(const float *p, int64_t count) {
  vf a = {0, 0, 0, 0};
  memcpy(&a, p, (size_t)(count < VL ? count : VL) * sizeof(float));
  return a;
}
INLINE vf vf_load_u8(const uint8_t *p, int64_t count) {
  vf a = {0, 0, 0, 0};
  for (int64_t i = 0; i < VL && i < count; i++) a[i] = (float)p[i];
  return a;
}
INLINE vf vf_from_vi(vi a) { return __builtin_convertvector(a, vf); }
INLINE vf vf_set1(float value) { return (vf){value, value, value, value}; }
INLINE vf vf_mul(vf a, vf b) { return a * b; }
INLINE vf vf_add(vf a, vf b) { return a + b; }
INLINE vf vf_div(vf a, vf b) { return a / b; }
/* NaN lanes (unequal to themselves) become zero. */
INLINE vf vf_zero_nan(vf a) { return (vf)((vi)a & (a == a)); }

INLINE bounds bounds_of(int32_t zero_point, int32_t minimum, int32_t maximum) {
  return (bounds){zero_point, minimum, maximum};
}
INLINE vi round_clamp(vf x, bounds b) {
  vi y;
  for (int i = 0; i < VL; i++) y[i] = round_clamp_scalar(x[i], b.zero_point, b.minimum, b.maximum);
  return y;
}
INLINE void store_u8(uint8_t *p, vi values, int64_t count) {
  for (int64_t i = 0; i < VL && i < count; i++) p[i] = (uint8_t)values[i];
}

INLINE va a_load(const uint8_t *a) {
  va x;
  for (int i = 0; i < 4; i++) x.k[i] = (vi){a[i], a[i], a[i], a[i]};
  return x;
}
INLINE vw w_load(const int8_t *w, int form) {
  (void)form;
  vw weights;
  memcpy(weights.k, w, sizeof weights.k);
  return weights;
}
INLINE vi dot4(vi acc, va a, vw w, int form) {
  (void)form;
  for (int i = 0; i < 4; i++) acc += a.k[i] * w.k[i];
  return acc;
}
/* A group is 4 rows of k, each VL columns of int32. */
static void store_group(int8_t *group, const int8_t lanes[VL][4], int form) {
  (void)form;
  int32_t wide[4][VL];
  for (int i = 0; i < 4; i++)
    for (int lane = 0; lane < VL; lane++) wide[i][lane] = lanes[lane][i];
  memcpy(group, wide, sizeof wide);
}

/* Depthwise blocks of 4 channels in order, weights as int16 pairs (tap 2i, tap 2i + 1)
   widened to one vector per tap. */
enum { DW = VL };
typedef struct vd {
  vi first, second;
} vd;
typedef vi vacc;

static int64_t dw_slot(int64_t channel) { return channel; }
INLINE vd dw_weights(const int16_t *w) {
  vd weights;
  for (int i = 0; i < VL; i++) {
    weights.first[i] = w[2 * i];
    weights.second[i] = w[2 * i + 1];
  }
  return weights;
}
INLINE vacc dw_zero(void) { return vi_zero(); }
/* The first `count` channels (at most 4) of one tap, zero above; reads nothing past them. */
INLINE vi dw_load(const uint8_t *p, int64_t count) {
  vi a = vi_zero();
  for (int64_t i = 0; i < VL && i < count; i++) a[i] = p[i];
  return a;
}
/* Two taps' channels (a vcol has a vd's shape). */
typedef vd vcol;
INLINE vcol dw_column(const uint8_t *p0, const uint8_t *p1, int64_t count) {
  return (vcol){dw_load(p0, count), dw_load(p1, count)};
}
INLINE vacc dw_madd(vacc acc, vcol taps, vd w) {
  return acc + taps.first * w.first + taps.second * w.second;
}
INLINE void dw_sums(vacc acc, vi sums[1]) { sums[0] = acc; }

/* The bytes the variant's vector lookup did: none. */
INLINE int64_t lookup_vectors(const uint8_t *x, int64_t count, const uint8_t *table,
                              uint8_t *y) {
  (void)x, (void)count, (void)table, (void)y;
  return 0;
}

#include "int8_generic_bodies.h"
