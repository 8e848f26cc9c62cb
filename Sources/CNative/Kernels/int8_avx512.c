#include "int8_kernels.h"

/* The AVX-512 VNNI int8 variant: int8_generic_bodies.h over 16 int32 lanes of zmm, `vpdpbusd`
   multiplying 4 unsigned activation bytes by 4 signed weight bytes per lane into an exact
   int32 sum. Compiled with per-function target attributes; kernel_sets.c hands it out only
   when the CPU has AVX-512 F, BW, VL and VNNI and the OS saves zmm state. */

#if defined(__x86_64__)
#include <immintrin.h>
#include <math.h>
#include <string.h>

#define TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define INLINE static inline __attribute__((always_inline))
#define VARIANT_NAME "avx512-vnni"
#define VARIANT(name) name##_avx512_vnni

/* Tiles of up to 6 rows x 4 vectors (64 columns): 24 accumulators, 4 weight vectors and a
   broadcast in 32 zmm registers; a k step loads 10 vectors for 24 vpdpbusd. */
enum { VL = 16, MR = 6, NV = 4, WEIGHT_BYTES = 1, ACTIVATION_BIAS = 0 };

typedef __m512i vi;
typedef __m512 vf;
typedef __m512i va;
typedef __m512i vw;
typedef struct bounds {
  vf low, high;
  vi zero_point;
} bounds;

/* Lanes 0..<count (count 0...VL). */
TARGET INLINE __mmask16 lane_mask(int64_t count) {
  return count >= VL ? (__mmask16)0xFFFF : (__mmask16)((1u << count) - 1u);
}

TARGET INLINE vi vi_zero(void) { return _mm512_setzero_si512(); }
TARGET INLINE vi vi_add(vi a, vi b) { return _mm512_add_epi32(a, b); }
/* The first `count` values at p, zero above; reads nothing past them. */
TARGET INLINE vi vi_load_part(const int32_t *p, int64_t count) {
  return _mm512_maskz_loadu_epi32(lane_mask(count), p);
}
TARGET INLINE vf vf_load_part(const float *p, int64_t count) {
  return _mm512_maskz_loadu_ps(lane_mask(count), p);
}
/* The first `count` bytes at p as floats. */
TARGET INLINE vf vf_load_u8(const uint8_t *p, int64_t count) {
  return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(lane_mask(count), p)));
}
TARGET INLINE vf vf_from_vi(vi a) { return _mm512_cvtepi32_ps(a); }
TARGET INLINE vf vf_set1(float value) { return _mm512_set1_ps(value); }
TARGET INLINE vf vf_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
TARGET INLINE vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
TARGET INLINE vf vf_div(vf a, vf b) { return _mm512_div_ps(a, b); }
/* NaN lanes become zero. */
TARGET INLINE vf vf_zero_nan(vf a) {
  return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(a, a, _CMP_ORD_Q), a);
}

TARGET INLINE bounds bounds_of(int32_t zero_point, int32_t minimum, int32_t maximum) {
  return (bounds){_mm512_set1_ps((float)(minimum - zero_point)),
                  _mm512_set1_ps((float)(maximum - zero_point)), _mm512_set1_epi32(zero_point)};
}
/* maxps/minps return their second operand when either is NaN, so NaN becomes the low limit;
   cvtps2dq rounds half to even (the default MXCSR mode). */
TARGET INLINE vi round_clamp(vf x, bounds b) {
  x = _mm512_min_ps(_mm512_max_ps(x, b.low), b.high);
  return _mm512_add_epi32(_mm512_cvtps_epi32(x), b.zero_point);
}
/* Writes the low byte of the first `count` lanes (values 0...255); nothing past them. */
TARGET INLINE void store_u8(uint8_t *p, vi values, int64_t count) {
  _mm512_mask_cvtepi32_storeu_epi8(p, lane_mask(count), values);
}

/* One row's 4 bytes of k, in every lane. */
TARGET INLINE va a_load(const uint8_t *a) {
  int32_t bytes;
  memcpy(&bytes, a, sizeof bytes);
  return _mm512_set1_epi32(bytes);
}
TARGET INLINE vw w_load(const int8_t *w, int form) {
  (void)form;
  return _mm512_loadu_si512(w);
}
TARGET INLINE vi dot4(vi acc, va a, vw w, int form) {
  (void)form;
  return _mm512_dpbusd_epi32(acc, a, w);
}
/* A group is VL columns of 4 consecutive k bytes (one int32 lane each). */
static void store_group(int8_t *group, const int8_t lanes[VL][4], int form) {
  (void)form;
  memcpy(group, lanes, VL * 4);
}

/* Depthwise blocks of 32 channels: two taps' bytes are widened to int16 (`vpmovzxbw`) and
   interleaved in place (`vpunpck{l,h}wd`), so each int32 lane holds one channel's (tap 2i,
   tap 2i + 1) pair and `vpdpwssd` adds both products exactly. In place means 128-bit lane L of
   the low accumulator holds channels 8L...8L+3 and of the high one 8L+4...8L+7; dw_slot packs
   the weights that way and dw_sums permutes the sums back. */
enum { DW = 32 };

/* Output rows of 3x3 and 5x5 kernels slide: 4 outputs share each input column's widened pairs
   (8 spilled registers and measured 30 % slower on Lite0's depthwise layers). */
#define DW_SLIDE_GROUP 4
typedef struct vd {
  __m512i low, high;
} vd;
typedef vd vacc;

static int64_t dw_slot(int64_t channel) {
  return ((channel >> 2) & 1) * VL + (channel >> 3) * 4 + (channel & 3);
}
TARGET INLINE vd dw_weights(const int16_t *w) {
  return (vd){_mm512_loadu_si512(w), _mm512_loadu_si512(w + 32)};
}
TARGET INLINE vacc dw_zero(void) { return (vacc){vi_zero(), vi_zero()}; }
/* The first `count` channels (at most 32) of one tap, widened; reads nothing past them. */
TARGET INLINE __m512i dw_load(const uint8_t *p, int64_t count) {
  __m256i bytes = count >= DW ? _mm256_loadu_si256((const __m256i *)p)
                              : _mm256_maskz_loadu_epi8((__mmask32)((1ull << count) - 1), p);
  return _mm512_cvtepu8_epi16(bytes);
}
/* Two taps' channels as int16 pairs, in slot order (a vcol has a vd's shape). */
typedef vd vcol;
TARGET INLINE vcol dw_column(const uint8_t *p0, const uint8_t *p1, int64_t count) {
  __m512i first = dw_load(p0, count), second = dw_load(p1, count);
  return (vcol){_mm512_unpacklo_epi16(first, second), _mm512_unpackhi_epi16(first, second)};
}
TARGET INLINE vacc dw_madd(vacc acc, vcol taps, vd w) {
  return (vacc){_mm512_dpwssd_epi32(acc.low, taps.low, w.low),
                _mm512_dpwssd_epi32(acc.high, taps.high, w.high)};
}
/* The block's sums in channel order: channels 0...15, then 16...31. */
TARGET INLINE void dw_sums(vacc acc, vi sums[2]) {
  const __m512i low = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i high = _mm512_add_epi32(low, _mm512_set1_epi32(8));
  sums[0] = _mm512_permutex2var_epi32(acc.low, low, acc.high);
  sums[1] = _mm512_permutex2var_epi32(acc.low, high, acc.high);
}

/* Table lookup, 64 bytes at a time, where the CPU has AVX-512 VBMI (Ice Lake, Zen 4): each
   vpermi2b looks up 128 of the table's entries by an index's low 7 bits, and the index's top
   bit picks which half. */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static int64_t
lookup_vbmi(const uint8_t *x, int64_t count, const uint8_t *table, uint8_t *y) {
  __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  for (int64_t i = 0; i < count; i += 64) {
    __mmask64 lanes = count - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (count - i)) - 1);
    __m512i index = _mm512_maskz_loadu_epi8(lanes, x + i);
    __m512i low = _mm512_permutex2var_epi8(t0, index, t1);
    __m512i high = _mm512_permutex2var_epi8(t2, index, t3);
    __m512i value = _mm512_mask_blend_epi8(_mm512_movepi8_mask(index), low, high);
    _mm512_mask_storeu_epi8(y + i, lanes, value);
  }
  return count;
}
/* The bytes the variant's vector lookup did: all of them with VBMI, else none. */
TARGET INLINE int64_t lookup_vectors(const uint8_t *x, int64_t count, const uint8_t *table,
                                     uint8_t *y) {
  return __builtin_cpu_supports("avx512vbmi") ? lookup_vbmi(x, count, table, y) : 0;
}

#include "int8_generic_bodies.h"
#endif
