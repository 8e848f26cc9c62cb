#include "avx512_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))

/* Four rows of B per pass over c, so c is loaded and stored a quarter as often. */
AVX512 void cnk_row_times_matrix_avx512(int64_t k, int64_t n, float alpha, const float *a,
                                        int64_t a_stride, const float *b, int64_t ldb, float *c,
                                        int accumulate) {
  /* Whole vectors, then one masked tail: masked loads cost far more than whole ones. */
  int64_t vectors = n / 16;
  __mmask16 tail = (__mmask16)((1u << (n % 16)) - 1u);
  if (!accumulate) {
    for (int64_t j = 0; j < n; j++) c[j] = 0;
  }
  int64_t p = 0;
  for (; p + 4 <= k; p += 4) {
    __m512 a0 = _mm512_set1_ps(alpha * a[p * a_stride]);
    __m512 a1 = _mm512_set1_ps(alpha * a[(p + 1) * a_stride]);
    __m512 a2 = _mm512_set1_ps(alpha * a[(p + 2) * a_stride]);
    __m512 a3 = _mm512_set1_ps(alpha * a[(p + 3) * a_stride]);
    const float *b0 = b + p * ldb;
    for (int64_t v = 0; v < vectors; v++) {
      int64_t j = v * 16;
      __m512 sum = _mm512_loadu_ps(c + j);
      sum = _mm512_fmadd_ps(a0, _mm512_loadu_ps(b0 + j), sum);
      sum = _mm512_fmadd_ps(a1, _mm512_loadu_ps(b0 + ldb + j), sum);
      sum = _mm512_fmadd_ps(a2, _mm512_loadu_ps(b0 + 2 * ldb + j), sum);
      sum = _mm512_fmadd_ps(a3, _mm512_loadu_ps(b0 + 3 * ldb + j), sum);
      _mm512_storeu_ps(c + j, sum);
    }
    if (tail) {
      __mmask16 mask = tail;
      int64_t j = vectors * 16;
      __m512 sum = _mm512_maskz_loadu_ps(mask, c + j);
      sum = _mm512_fmadd_ps(a0, _mm512_maskz_loadu_ps(mask, b0 + j), sum);
      sum = _mm512_fmadd_ps(a1, _mm512_maskz_loadu_ps(mask, b0 + ldb + j), sum);
      sum = _mm512_fmadd_ps(a2, _mm512_maskz_loadu_ps(mask, b0 + 2 * ldb + j), sum);
      sum = _mm512_fmadd_ps(a3, _mm512_maskz_loadu_ps(mask, b0 + 3 * ldb + j), sum);
      _mm512_mask_storeu_ps(c + j, mask, sum);
    }
  }
  for (; p < k; p++) {
    __m512 a0 = _mm512_set1_ps(alpha * a[p * a_stride]);
    const float *b0 = b + p * ldb;
    for (int64_t v = 0; v <= vectors; v++) {
      __mmask16 mask = v < vectors ? (__mmask16)0xFFFF : tail;
      if (!mask) break;
      int64_t j = v * 16;
      __m512 sum = _mm512_maskz_loadu_ps(mask, c + j);
      sum = _mm512_fmadd_ps(a0, _mm512_maskz_loadu_ps(mask, b0 + j), sum);
      _mm512_mask_storeu_ps(c + j, mask, sum);
    }
  }
}

/*
 * Each panel row is two halves of 16 columns. A half inside one output row whose taps all fall
 * inside the plane loads them whole (stride 1, or stride 2 with a permute); any other half is
 * a masked gather: lane indices from the columns' output positions, the mask from the tap's
 * bounds, so padding costs nothing extra.
 */
AVX512 void cnk_im2col_panels_avx512(const float *input, int64_t channels, int64_t height,
                                     int64_t width, const cnk_window *w, int64_t output_width,
                                     int64_t start, int64_t count, float *destination) {
  const int64_t tile = CNK_GEMM_COLUMN_TILE;
  int64_t taps = w->kernel_height * w->kernel_width;
  int64_t depth = channels * taps;
  const __m512i evens = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4,
                                         2, 0);
  for (int64_t panel = 0; panel < count; panel += tile) {
    float *target = destination + panel * depth;
    __m512i base_y[2], base_x[2];
    __mmask16 valid[2];
    /* Row of a half whose 16 columns share one output row (else -1), and its first input x. */
    int64_t row_of[2], first_x[2];
    for (int half = 0; half < 2; half++) {
      int64_t first = panel + 16 * half;
      int64_t remaining = count - first;
      valid[half] = remaining <= 0    ? 0
                    : remaining >= 16 ? (__mmask16)0xFFFF
                                      : (__mmask16)((1u << remaining) - 1u);
      /* Positions fit in 32 bits: the plan refuses tensors above 2^26 elements. */
      int32_t ys[16], xs[16];
      for (int j = 0; j < 16; j++) {
        int64_t column = start + first + j;
        ys[j] = (int32_t)(column / output_width);
        xs[j] = (int32_t)(column % output_width);
      }
      int same_row = remaining >= 16 && ys[0] == ys[15];
      row_of[half] = same_row ? ys[0] * w->stride_y : -1;
      first_x[half] = (int64_t)xs[0] * w->stride_x;
      __m512i oy = _mm512_loadu_si512(ys);
      __m512i ox = _mm512_loadu_si512(xs);
      base_y[half] = _mm512_mullo_epi32(oy, _mm512_set1_epi32((int)w->stride_y));
      base_x[half] = _mm512_mullo_epi32(ox, _mm512_set1_epi32((int)w->stride_x));
    }
    __m512i limit_y = _mm512_set1_epi32((int)height);
    __m512i limit_x = _mm512_set1_epi32((int)width);
    for (int64_t p = 0; p < depth; p++) {
      int64_t channel = p / taps, tap = p % taps;
      int64_t dy = (tap / w->kernel_width) * w->dilation_y - w->pad_top;
      int64_t dx = (tap % w->kernel_width) * w->dilation_x - w->pad_left;
      const float *plane = input + channel * height * width;
      for (int half = 0; half < 2; half++) {
        float *slot = target + p * tile + 16 * half;
        /* One output row, stride 1 or 2, all taps inside: whole loads instead of a gather. */
        if (row_of[half] >= 0 && (w->stride_x == 1 || w->stride_x == 2)) {
          int64_t y = row_of[half] + dy;
          int64_t x = first_x[half] + dx;
          if (y < 0 || y >= height) {
            _mm512_storeu_ps(slot, _mm512_setzero_ps());
            continue;
          }
          const float *line = plane + y * width + x;
          if (w->stride_x == 1 && x >= 0 && x + 16 <= width) {
            _mm512_storeu_ps(slot, _mm512_loadu_ps(line));
            continue;
          }
          if (w->stride_x == 2 && x >= 0 && x + 32 <= width) {
            _mm512_storeu_ps(slot, _mm512_permutex2var_ps(_mm512_loadu_ps(line), evens,
                                                          _mm512_loadu_ps(line + 16)));
            continue;
          }
        }
        __m512i y = _mm512_add_epi32(base_y[half], _mm512_set1_epi32((int)dy));
        __m512i x = _mm512_add_epi32(base_x[half], _mm512_set1_epi32((int)dx));
        __mmask16 inside = valid[half];
        inside &= _mm512_cmpge_epi32_mask(y, _mm512_setzero_si512());
        inside &= _mm512_cmplt_epi32_mask(y, limit_y);
        inside &= _mm512_cmpge_epi32_mask(x, _mm512_setzero_si512());
        inside &= _mm512_cmplt_epi32_mask(x, limit_x);
        __m512i index = _mm512_add_epi32(_mm512_mullo_epi32(y, limit_x), x);
        __m512 values =
            _mm512_mask_i32gather_ps(_mm512_setzero_ps(), inside, index, plane, 4);
        _mm512_storeu_ps(slot, values);
      }
    }
  }
}
#endif
