/*
 * The vector API of int8_generic_bodies.h over 8 int32 lanes of ymm, shared by the AVX2 and
 * AVX-VNNI variants (int8_avx2.c, int8_avx_vnni.c); the including file defines TARGET, INLINE,
 * VL, pair_dot (int16 pairs into int32 lanes) and the k-step operations (va, vw, a_load,
 * w_load, dot4, store_group, block_form). Included once per translation unit on purpose: no
 * include guard.
 */

#include <immintrin.h>
#include <math.h>
#include <string.h>

typedef __m256i vi;
typedef __m256 vf;
typedef struct bounds {
  vf low, high;
  vi zero_point;
} bounds;

/* All ones in lanes 0..<count (count 0...8). */
TARGET INLINE vi lane_mask(int64_t count) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)count),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

TARGET INLINE vi vi_zero(void) { return _mm256_setzero_si256(); }
TARGET INLINE vi vi_add(vi a, vi b) { return _mm256_add_epi32(a, b); }
/* The first `count` values at p, zero above; reads nothing past them. */
TARGET INLINE vi vi_load_part(const int32_t *p, int64_t count) {
  if (count >= 8) return _mm256_loadu_si256((const __m256i *)p);
  return _mm256_maskload_epi32((const int *)p, lane_mask(count));
}
TARGET INLINE vf vf_load_part(const float *p, int64_t count) {
  if (count >= 8) return _mm256_loadu_ps(p);
  return _mm256_maskload_ps(p, lane_mask(count));
}
/* The first `count` bytes at p as floats (a short tail goes through a copy: AVX2 has no byte
   masks). */
TARGET INLINE vf vf_load_u8(const uint8_t *p, int64_t count) {
  int64_t bytes = 0;
  if (count >= 8) {
    memcpy(&bytes, p, 8);
  } else {
    memcpy(&bytes, p, (size_t)count);
  }
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(bytes)));
}
TARGET INLINE vf vf_from_vi(vi a) { return _mm256_cvtepi32_ps(a); }
TARGET INLINE vf vf_set1(float value) { return _mm256_set1_ps(value); }
TARGET INLINE vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
TARGET INLINE vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
TARGET INLINE vf vf_div(vf a, vf b) { return _mm256_div_ps(a, b); }
/* NaN lanes become zero. */
TARGET INLINE vf vf_zero_nan(vf a) { return _mm256_and_ps(a, _mm256_cmp_ps(a, a, _CMP_ORD_Q)); }

TARGET INLINE bounds bounds_of(int32_t zero_point, int32_t minimum, int32_t maximum) {
  return (bounds){_mm256_set1_ps((float)(minimum - zero_point)),
                  _mm256_set1_ps((float)(maximum - zero_point)), _mm256_set1_epi32(zero_point)};
}
/* maxps/minps return their second operand when either is NaN, so NaN becomes the low limit;
   cvtps2dq rounds half to even (the default MXCSR mode). */
TARGET INLINE vi round_clamp(vf x, bounds b) {
  x = _mm256_min_ps(_mm256_max_ps(x, b.low), b.high);
  return _mm256_add_epi32(_mm256_cvtps_epi32(x), b.zero_point);
}
/* Writes the low byte of the first `count` lanes (values 0...255); nothing past them. */
TARGET INLINE void store_u8(uint8_t *p, vi values, int64_t count) {
  __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(values),
                                  _mm256_extracti128_si256(values, 1));
  __m128i bytes = _mm_packus_epi16(words, words);
  if (count >= 8) {
    _mm_storel_epi64((__m128i *)p, bytes);
  } else {
    int64_t low = _mm_cvtsi128_si64(bytes);
    memcpy(p, &low, (size_t)count);
  }
}

/* The bytes the variant's vector lookup did: none (AVX2 has no byte permute across lanes). */
TARGET INLINE int64_t lookup_vectors(const uint8_t *x, int64_t count, const uint8_t *table,
                                     uint8_t *y) {
  (void)x, (void)count, (void)table, (void)y;
  return 0;
}

/* One row's 4 bytes of k, in every lane. */
TARGET INLINE __m256i broadcast4(const uint8_t *a) {
  int32_t bytes;
  memcpy(&bytes, a, sizeof bytes);
  return _mm256_set1_epi32(bytes);
}

/* Depthwise blocks of 16 channels: two taps' bytes are widened to int16 (`vpmovzxbw`) and
   interleaved in place (`vpunpck{l,h}wd`), so each int32 lane holds one channel's (tap 2i,
   tap 2i + 1) pair and pair_dot (the including file's `vpmaddwd` or `vpdpwssd`) adds both
   products exactly. In place means 128-bit lane L of the low accumulator holds channels
   8L...8L+3 and of the high one 8L+4...8L+7; dw_slot packs the weights that way and dw_sums
   puts the halves back. */
enum { DW = 16 };
typedef struct vd {
  __m256i low, high;
} vd;
typedef vd vacc;

static int64_t dw_slot(int64_t channel) {
  return ((channel >> 2) & 1) * VL + (channel >> 3) * 4 + (channel & 3);
}
TARGET INLINE vd dw_weights(const int16_t *w) {
  return (vd){_mm256_loadu_si256((const __m256i *)w),
              _mm256_loadu_si256((const __m256i *)(w + 16))};
}
TARGET INLINE vacc dw_zero(void) { return (vacc){vi_zero(), vi_zero()}; }
/* The first `count` channels (at most 16) of one tap, widened; reads nothing past them (a
   short tail goes through a copy: AVX2 has no byte masks). */
TARGET INLINE __m256i dw_load(const uint8_t *p, int64_t count) {
  if (count >= DW) return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
  uint8_t bytes[DW] = {0};
  memcpy(bytes, p, (size_t)count);
  return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)bytes));
}
/* Two taps' channels as int16 pairs, in slot order (a vcol has a vd's shape). */
typedef vd vcol;
TARGET INLINE vcol dw_column(const uint8_t *p0, const uint8_t *p1, int64_t count) {
  __m256i first = dw_load(p0, count), second = dw_load(p1, count);
  return (vcol){_mm256_unpacklo_epi16(first, second), _mm256_unpackhi_epi16(first, second)};
}
TARGET INLINE vacc dw_madd(vacc acc, vcol taps, vd w) {
  return (vacc){pair_dot(acc.low, taps.low, w.low), pair_dot(acc.high, taps.high, w.high)};
}
/* The block's sums in channel order: channels 0...7, then 8...15. */
TARGET INLINE void dw_sums(vacc acc, vi sums[2]) {
  sums[0] = _mm256_permute2x128_si256(acc.low, acc.high, 0x20);
  sums[1] = _mm256_permute2x128_si256(acc.low, acc.high, 0x31);
}
