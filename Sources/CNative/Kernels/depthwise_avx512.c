#include "avx512_kernels.h"
#include "scalar_kernels.h"

#if defined(__x86_64__)
#include <string.h>

#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
#define INLINE static inline __attribute__((always_inline))

/* Lanes first..<end set, both clamped to 0...16. */
AVX512 INLINE __mmask16 lane_range(int64_t first, int64_t end) {
  first = first < 0 ? 0 : first;
  end = end > 16 ? 16 : end;
  if (end <= first) return 0;
  unsigned upper = end >= 16 ? 0xFFFFu : (1u << end) - 1u;
  unsigned lower = first <= 0 ? 0u : (1u << first) - 1u;
  return (__mmask16)(upper & ~lower);
}

/*
 * Up to sixteen floats from `source`, zero past `count`: a whole load and a register mask
 * while `room` floats are readable, else a masked load (which costs far more on Zen 5).
 */
AVX512 INLINE __m512 load_part(const float *source, int64_t count, int64_t room) {
  if (count >= 16) return _mm512_loadu_ps(source);
  if (count <= 0) return _mm512_setzero_ps();
  __mmask16 mask = lane_range(0, count);
  if (room >= 16) return _mm512_maskz_mov_ps(mask, _mm512_loadu_ps(source));
  return _mm512_maskz_loadu_ps(mask, source);
}

/* Stores `value` (zero past `count`) whole while `room` floats are writable, else masked. */
AVX512 INLINE void store_part(float *target, __m512 value, int64_t count, int64_t room) {
  if (count >= 16 || room >= 16)
    _mm512_storeu_ps(target, value);
  else
    _mm512_mask_storeu_ps(target, lane_range(0, count), value);
}

/*
 * Copies one row of `count` floats into a padded row. `source_room` floats are readable from
 * `source` and `target_room` writable at `target`; lanes past the row are zero, so whole stores
 * into the padding keep it zero.
 */
AVX512 INLINE void copy_row(float *target, const float *source, int64_t count,
                            int64_t source_room, int64_t target_room) {
  for (int64_t x = 0; x < count; x += 16) {
    store_part(target + x, load_part(source + x, count - x, source_room - x), count - x,
               target_room - x);
  }
}

/*
 * Splits one row into its even and odd padded columns: padded column c = x + pad_left goes to
 * phase c % 2 at index c / 2, so stride-2 taps read consecutive values from one phase. Rooms
 * as for copy_row; `target_room` counts from the start of a phase row.
 */
AVX512 INLINE void split_row(float *even_phase, float *odd_phase, const float *source,
                             int64_t count, int64_t pad_left, int64_t source_room,
                             int64_t target_room) {
  const __m512i evens = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4,
                                         2, 0);
  const __m512i odds = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5,
                                        3, 1);
  int64_t even_offset = pad_left / 2, odd_offset = (pad_left + 1) / 2;
  float *even_target = (pad_left % 2 ? odd_phase : even_phase) + even_offset;
  float *odd_target = (pad_left % 2 ? even_phase : odd_phase) + odd_offset;
  for (int64_t x = 0; x < count; x += 32) {
    int64_t remaining = count - x;
    __m512 low = load_part(source + x, remaining, source_room - x);
    __m512 high = load_part(source + x + 16, remaining - 16, source_room - x - 16);
    store_part(even_target + x / 2, _mm512_permutex2var_ps(low, evens, high),
               (remaining + 1) / 2, target_room - even_offset - x / 2);
    store_part(odd_target + x / 2, _mm512_permutex2var_ps(low, odds, high), remaining / 2,
               target_room - odd_offset - x / 2);
  }
}

/*
 * Stores sixteen outputs of row `oy` from column `ox`. A row of one short chunk stores a whole
 * vector, spilling into the next row (written later), while the output has room (`spill_limit`
 * floats from the plane's start); only otherwise is the store masked, which costs far more.
 */
AVX512 INLINE void store_outputs(float *output, int64_t oy, int64_t ox, int64_t output_width,
                                 int64_t spill_limit, __m512 value) {
  float *target = output + oy * output_width + ox;
  if (ox + 16 <= output_width || (output_width < 16 && oy * output_width + 16 <= spill_limit))
    _mm512_storeu_ps(target, value);
  else
    _mm512_mask_storeu_ps(target, lane_range(0, output_width - ox), value);
}

/*
 * ROWS output rows from oy on, over a zero-bordered plane split into STRIDE column phases
 * (padded column c in phase c % STRIDE at index c / STRIDE), so every tap is one unmasked load.
 * The rows' sums are independent chains, which keeps the FMA units busy (stores: see
 * store_outputs). KERNEL, STRIDE and ROWS are compile-time constants at every call site.
 */
AVX512 INLINE void padded_rows(const float *phases, int64_t phase_size, int64_t phase_width,
                               const float *weights, float bias, const cnk_window *w,
                               float *output, int64_t oy, int64_t output_width,
                               int64_t spill_limit, __m512 low, __m512 high, const int KERNEL,
                               const int STRIDE, const int ROWS) {
  const int64_t kernel_height = KERNEL ? KERNEL : w->kernel_height;
  const int64_t kernel_width = KERNEL ? KERNEL : w->kernel_width;
  const int64_t dilation_x = KERNEL ? 1 : w->dilation_x;
  int64_t row_step = w->stride_y * phase_width;
  for (int64_t ox = 0; ox < output_width; ox += 16) {
    __m512 sum[4];
    for (int r = 0; r < ROWS; r++) sum[r] = _mm512_set1_ps(bias);
    for (int64_t ky = 0; ky < kernel_height; ky++) {
      const float *line = phases + (oy * w->stride_y + ky * w->dilation_y) * phase_width + ox;
      const float *tap = weights + ky * kernel_width;
      for (int64_t kx = 0; kx < kernel_width; kx++) {
        int64_t offset = kx * dilation_x;
        const float *source = line + (offset % STRIDE) * phase_size + offset / STRIDE;
        __m512 weight = _mm512_set1_ps(tap[kx]);
        for (int r = 0; r < ROWS; r++) {
          sum[r] = _mm512_fmadd_ps(_mm512_loadu_ps(source + r * row_step), weight, sum[r]);
        }
      }
    }
    for (int r = 0; r < ROWS; r++) {
      store_outputs(output, oy + r, ox, output_width, spill_limit,
                    _mm512_min_ps(high, _mm512_max_ps(low, sum[r])));
    }
  }
}

/*
 * The square-kernel, equal-stride form of padded_rows. Each input row a block of output rows
 * touches is loaded once per phase as two aligned vectors, and every tap's shifted window is
 * made in registers (valignd) instead of by an unaligned load per tap and output row: on Zen 5
 * the loads, most of them split across cache lines, were the limit. Phase rows must be a
 * multiple of 16 floats wide and 64-byte aligned, with 16 floats past the last chunk.
 */
AVX512 INLINE void shifted_rows(const float *phases, int64_t phase_size, int64_t phase_width,
                                const float *weights, float bias, float *output, int64_t oy,
                                int64_t output_width, int64_t spill_limit, __m512 low,
                                __m512 high, const int KERNEL, const int STRIDE,
                                const int ROWS) {
  for (int64_t ox = 0; ox < output_width; ox += 16) {
    __m512 sum[4];
    for (int r = 0; r < ROWS; r++) sum[r] = _mm512_set1_ps(bias);
    for (int t = 0; t < (ROWS - 1) * STRIDE + KERNEL; t++) {
      const float *line = phases + (oy * STRIDE + t) * phase_width + ox;
      __m512 part[2][2];
      for (int phase = 0; phase < STRIDE; phase++) {
        part[phase][0] = _mm512_load_ps(line + phase * phase_size);
        part[phase][1] = _mm512_load_ps(line + phase * phase_size + 16);
      }
      __m512 window[KERNEL > 0 ? KERNEL : 1];
      for (int kx = 0; kx < KERNEL; kx++) {
        __m512 first = part[kx % STRIDE][0], second = part[kx % STRIDE][1];
        switch (kx / STRIDE) {
          case 0: window[kx] = first; break;
          case 1: window[kx] = _mm512_castsi512_ps(_mm512_alignr_epi32(
                      _mm512_castps_si512(second), _mm512_castps_si512(first), 1)); break;
          case 2: window[kx] = _mm512_castsi512_ps(_mm512_alignr_epi32(
                      _mm512_castps_si512(second), _mm512_castps_si512(first), 2)); break;
          case 3: window[kx] = _mm512_castsi512_ps(_mm512_alignr_epi32(
                      _mm512_castps_si512(second), _mm512_castps_si512(first), 3)); break;
          default: window[kx] = _mm512_castsi512_ps(_mm512_alignr_epi32(
                      _mm512_castps_si512(second), _mm512_castps_si512(first), 4)); break;
        }
      }
      for (int r = 0; r < ROWS; r++) {
        int ky = t - r * STRIDE;
        if (ky < 0 || ky >= KERNEL) continue;
        for (int kx = 0; kx < KERNEL; kx++) {
          sum[r] = _mm512_fmadd_ps(window[kx], _mm512_set1_ps(weights[ky * KERNEL + kx]), sum[r]);
        }
      }
    }
    for (int r = 0; r < ROWS; r++) {
      store_outputs(output, oy + r, ox, output_width, spill_limit,
                    _mm512_min_ps(high, _mm512_max_ps(low, sum[r])));
    }
  }
}

AVX512 INLINE void depthwise_padded(const float *phases, int64_t phase_size,
                                    int64_t phase_width, const float *weights, float bias,
                                    const cnk_window *w, float *output, int64_t output_height,
                                    int64_t output_width, int64_t spill_limit, float clamp_min,
                                    float clamp_max, const int KERNEL, const int STRIDE) {
  __m512 low = _mm512_set1_ps(clamp_min);
  __m512 high = _mm512_set1_ps(clamp_max);
  int64_t oy = 0;
  /* shifted_rows makes shifts 0...4 (kernels 3 and 5 arrive here). */
  if (KERNEL > 0 && (KERNEL - 1) / STRIDE <= 4 && w->stride_y == STRIDE && w->dilation_y == 1) {
    for (; oy + 4 <= output_height; oy += 4) {
      shifted_rows(phases, phase_size, phase_width, weights, bias, output, oy, output_width,
                   spill_limit, low, high, KERNEL, STRIDE, 4);
    }
    for (; oy < output_height; oy++) {
      shifted_rows(phases, phase_size, phase_width, weights, bias, output, oy, output_width,
                   spill_limit, low, high, KERNEL, STRIDE, 1);
    }
    return;
  }
  for (; oy + 4 <= output_height; oy += 4) {
    padded_rows(phases, phase_size, phase_width, weights, bias, w, output, oy, output_width,
                spill_limit, low, high, KERNEL, STRIDE, 4);
  }
  for (; oy < output_height; oy++) {
    padded_rows(phases, phase_size, phase_width, weights, bias, w, output, oy, output_width,
                spill_limit, low, high, KERNEL, STRIDE, 1);
  }
}

#define PADDED(KERNEL, STRIDE)                                                                \
  depthwise_padded(scratch, phase_size, padded_width, kernel, bias[plane], w, target,          \
                   output_height, output_width,                                              \
                   (planes - plane) * output_size, clamp_min,                                 \
                   clamp_max, KERNEL, STRIDE)

/*
 * Strides 1 and 2 copy each plane into a zero-bordered scratch first (stride 2 split into even
 * and odd columns), wide and tall enough that every chunk of sixteen outputs reads each tap
 * with one unmasked load; one scratch serves all planes of the call. Other strides, and a
 * call whose scratch cannot be had, run the scalar kernel.
 */
AVX512 void cnk_depthwise_avx512(const float *input, int64_t planes, int64_t height,
                                 int64_t width, const float *weights, const float *bias,
                                 const cnk_window *w, float *output, int64_t output_height,
                                 int64_t output_width, float clamp_min, float clamp_max) {
  int64_t taps = w->kernel_height * w->kernel_width;
  int64_t plane_size = height * width;
  int64_t output_size = output_height * output_width;
  if (w->stride_x != 1 && w->stride_x != 2) {
    cnk_depthwise_scalar_planes(input, planes, height, width, weights, bias, w, output,
                            output_height, output_width, clamp_min, clamp_max);
    return;
  }
  int64_t stride = w->stride_x;
  int64_t chunks = (output_width + 15) / 16;
  int64_t reach = (w->kernel_width - 1) * w->dilation_x;
  /* Per phase: the columns chunked outputs read, and the plane's own columns. */
  int64_t padded_width = stride == 1 ? chunks * 16 + reach : chunks * 16 + reach / 2 + 1;
  int64_t own = (w->pad_left + width + stride - 1) / stride;
  if (padded_width < own) padded_width = own;
  /* Whole aligned vectors: rows a multiple of 16 wide, with a vector past the last chunk. */
  if (padded_width < chunks * 16 + 16) padded_width = chunks * 16 + 16;
  padded_width = (padded_width + 15) / 16 * 16;
  int64_t padded_height =
      (output_height - 1) * w->stride_y + (w->kernel_height - 1) * w->dilation_y + 1;
  if (padded_height < w->pad_top + height) padded_height = w->pad_top + height;
  int64_t phase_size = padded_height * padded_width;
  int64_t scratch_size = stride * phase_size;
  float *scratch =
      scratch_size <= (int64_t)1 << 24 ? cnk_thread_scratch((size_t)scratch_size * 4) : NULL;
  if (!scratch) {
    cnk_depthwise_scalar_planes(input, planes, height, width, weights, bias, w, output,
                            output_height, output_width, clamp_min, clamp_max);
    return;
  }
  memset(scratch, 0, (size_t)scratch_size * 4);
  int square = w->kernel_height == w->kernel_width && w->dilation_x == 1;
  for (int64_t plane = 0; plane < planes; plane++) {
    const float *source = input + plane * plane_size;
    float *target = output + plane * output_size;
    const float *kernel = weights + plane * taps;
    /* The borders stay zero; only the interior is rewritten per plane. */
    for (int64_t y = 0; y < height; y++) {
      float *row = scratch + (y + w->pad_top) * padded_width;
      int64_t source_room = (planes - plane) * plane_size - y * width;
      if (stride == 1) {
        copy_row(row + w->pad_left, source + y * width, width, source_room,
                 padded_width - w->pad_left);
      } else {
        split_row(row, row + phase_size, source + y * width, width, w->pad_left, source_room,
                  padded_width);
      }
    }
    if (stride == 1) {
      if (square && w->kernel_width == 3) PADDED(3, 1);
      else if (square && w->kernel_width == 5) PADDED(5, 1);
      else PADDED(0, 1);
    } else {
      if (square && w->kernel_width == 3) PADDED(3, 2);
      else if (square && w->kernel_width == 5) PADDED(5, 2);
      else PADDED(0, 2);
    }
  }
}
#endif
