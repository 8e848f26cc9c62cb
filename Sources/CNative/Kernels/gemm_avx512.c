#include "avx512_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
#define INLINE static inline __attribute__((always_inline))

enum { MR = CNK_GEMM_ROW_TILE, NR = CNK_GEMM_COLUMN_TILE };

/* Lanes 0..<count set. */
AVX512 INLINE __mmask16 lanes(int64_t count) {
  return count >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << count) - 1u);
}

/* Sixteen floats, or the masked lanes of them when `whole` is 0. */
AVX512 INLINE __m512 load(const float *source, int whole, __mmask16 mask) {
  return whole ? _mm512_loadu_ps(source) : _mm512_maskz_loadu_ps(mask, source);
}

/*
 * One ROWS x (16 * VECTORS) block of C. ROWS and VECTORS are compile-time constants at every
 * call site, so the accumulator array is unrolled into registers (up to 24 zmm).
 */
AVX512 INLINE void block(int64_t k, const float *a, const float *b, int64_t ldb, const int ROWS,
                         const int VECTORS, int64_t columns, float *c, int64_t ldc,
                         const float *bias, const float *residual, const cnk_epilogue *e) {
  /* Every loop over rows and vectors is unrolled in full so the accumulators stay registers. */
  __m512 acc[MR][2];
#pragma clang loop unroll(full)
  for (int r = 0; r < ROWS; r++) {
    acc[r][0] = _mm512_setzero_ps();
    acc[r][1] = _mm512_setzero_ps();
  }
#pragma clang loop unroll(disable)
  for (int64_t p = 0; p < k; p++) {
    __m512 b0 = _mm512_loadu_ps(b);
    __m512 b1 = VECTORS == 2 ? _mm512_loadu_ps(b + 16) : _mm512_setzero_ps();
#pragma clang loop unroll(full)
    for (int r = 0; r < ROWS; r++) {
      __m512 av = _mm512_set1_ps(a[r]);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      if (VECTORS == 2) acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
    a += MR;
    b += ldb;
  }
  __m512 low = _mm512_set1_ps(e->clamp_min);
  __m512 high = _mm512_set1_ps(e->clamp_max);
#pragma clang loop unroll(full)
  for (int r = 0; r < ROWS; r++) {
    __m512 add = _mm512_set1_ps(bias ? bias[r] : 0.0f);
#pragma clang loop unroll(full)
    for (int v = 0; v < VECTORS; v++) {
      /* Masked loads and stores cost far more than whole ones: only the last vector uses them. */
      int whole = columns >= 16 * (v + 1);
      __mmask16 mask = lanes(columns - 16 * v);
      float *target = c + r * ldc + 16 * v;
      __m512 value = _mm512_add_ps(acc[r][v], add);
      if (e->accumulate) value = _mm512_add_ps(value, load(target, whole, mask));
      if (residual) value = _mm512_add_ps(value, load(residual + r * ldc + 16 * v, whole, mask));
      value = _mm512_min_ps(high, _mm512_max_ps(low, value));
      if (whole)
        _mm512_storeu_ps(target, value);
      else
        _mm512_mask_storeu_ps(target, mask, value);
    }
  }
}

#define BLOCK_CASE(R)                                                                        \
  case R:                                                                                    \
    if (vectors == 2)                                                                        \
      block(k, a, b, ldb, R, 2, columns, c, ldc, bias, residual, e);                         \
    else                                                                                     \
      block(k, a, b, ldb, R, 1, columns, c, ldc, bias, residual, e);                         \
    break;

AVX512 static void dispatch_block(int64_t k, const float *a, const float *b, int64_t ldb,
                                  int64_t rows,
                                  int64_t columns, float *c, int64_t ldc, const float *bias,
                                  const float *residual, const cnk_epilogue *e) {
  int vectors = columns > 16 ? 2 : 1;
  switch (rows) {
    BLOCK_CASE(1)
    BLOCK_CASE(2)
    BLOCK_CASE(3)
    BLOCK_CASE(4)
    BLOCK_CASE(5)
    BLOCK_CASE(6)
    BLOCK_CASE(7)
    BLOCK_CASE(8)
    BLOCK_CASE(9)
    BLOCK_CASE(10)
    BLOCK_CASE(11)
    default:
      if (vectors == 2)
        block(k, a, b, ldb, MR, 2, columns, c, ldc, bias, residual, e);
      else
        block(k, a, b, ldb, MR, 1, columns, c, ldc, bias, residual, e);
      break;
  }
}

AVX512 void cnk_gemm_tile_avx512(int64_t k, const float *packed_a, int64_t first_panel,
                                 int64_t panel_count, int64_t rows, const float *b, int64_t ldb,
                                 int64_t columns, float *c, int64_t ldc,
                                 const cnk_epilogue *epilogue) {
  for (int64_t panel = first_panel; panel < first_panel + panel_count; panel++) {
    int64_t row = panel * MR;
    if (row >= rows) break;
    int64_t height = rows - row < MR ? rows - row : MR;
    const float *a = packed_a + panel * MR * k;
    const float *bias = epilogue->bias ? epilogue->bias + row : 0;
    for (int64_t column = 0; column < columns; column += NR) {
      int64_t width = columns - column < NR ? columns - column : NR;
      const float *residual =
          epilogue->residual ? epilogue->residual + row * ldc + column : 0;
      const float *panel_b = ldb ? b + column : b + column * k;
      dispatch_block(k, a, panel_b, ldb ? ldb : NR, height, width, c + row * ldc + column, ldc,
                     bias, residual, epilogue);
    }
  }
}

/* Packs positions start..<start + count of X (k rows, row stride ldx) as panels of MR. */
AVX512 void cnk_pack_positions_avx512(const float *x, int64_t k, int64_t ldx, int64_t start,
                                      int64_t count, float *packed) {
  for (int64_t panel = 0; panel < count; panel += MR) {
    /* Lanes past the panel's positions are packed too (unused); whole loads while in the row. */
    int whole = start + panel + 16 <= ldx;
    __mmask16 mask = lanes(count - panel < MR ? count - panel : MR);
    const float *source = x + start + panel;
    float *target = packed + panel * k;
    /* Each store's four extra lanes are overwritten by the next step's; the call's very last
       store is masked, so calls packing neighbouring ranges never touch each other's panels. */
    int last_panel = panel + MR >= count;
    for (int64_t p = 0; p < k; p++) {
      __m512 values = load(source + p * ldx, whole, mask);
      if (last_panel && p == k - 1)
        _mm512_mask_storeu_ps(target + p * MR, lanes(MR), values);
      else
        _mm512_storeu_ps(target + p * MR, values);
    }
  }
}

/*
 * Channel-vectorized pointwise convolution: positions (packed by cnk_pack_positions_avx512)
 * are the broadcast operand and output channels the vector lanes, so a small plane (7x7) wastes
 * no lanes. Each ROWS x NR block of sums is written transposed into the channels' output rows.
 */
AVX512 void cnk_pointwise_tile_avx512(int64_t k, const float *packed_positions,
                                      int64_t position_count, const float *packed_weights,
                                      int64_t first_channel, int64_t channel_count,
                                      float *output, int64_t ldo, const cnk_epilogue *epilogue) {
  const cnk_epilogue plain = {0, 0, 0, -__builtin_inff(), __builtin_inff()};
  float sums[MR * NR] __attribute__((aligned(64)));
  const __m512i column = _mm512_set_epi32(15 * NR, 14 * NR, 13 * NR, 12 * NR, 11 * NR, 10 * NR,
                                          9 * NR, 8 * NR, 7 * NR, 6 * NR, 5 * NR, 4 * NR,
                                          3 * NR, 2 * NR, NR, 0);
  __m512 low = _mm512_set1_ps(epilogue->clamp_min);
  __m512 high = _mm512_set1_ps(epilogue->clamp_max);
  for (int64_t channel = 0; channel < channel_count; channel += NR) {
    int64_t width = channel_count - channel < NR ? channel_count - channel : NR;
    const float *weights = packed_weights + (first_channel + channel) * k;
    for (int64_t position = 0; position < position_count; position += MR) {
      int64_t rows = position_count - position < MR ? position_count - position : MR;
      dispatch_block(k, packed_positions + position * k, weights, NR, rows, width, sums, NR, 0,
                     0, &plain);
      __mmask16 mask = lanes(rows);
      for (int64_t j = 0; j < width; j++) {
        int64_t m = first_channel + channel + j;
        float *target = output + m * ldo + position;
        __m512 value = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mask, column, sums + j, 4);
        if (epilogue->bias) value = _mm512_add_ps(value, _mm512_set1_ps(epilogue->bias[m]));
        if (epilogue->accumulate) {
          value = _mm512_add_ps(value, _mm512_maskz_loadu_ps(mask, target));
        }
        if (epilogue->residual) {
          value = _mm512_add_ps(value, _mm512_maskz_loadu_ps(
                                           mask, epilogue->residual + m * ldo + position));
        }
        value = _mm512_min_ps(high, _mm512_max_ps(low, value));
        /* The next panel of this block overwrites the four lanes past this one. */
        if (position + 16 <= position_count)
          _mm512_storeu_ps(target, value);
        else
          _mm512_mask_storeu_ps(target, mask, value);
      }
    }
  }
}
#endif
