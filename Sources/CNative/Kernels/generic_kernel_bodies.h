/*
 * Every kernel of a generic set, written once over the vector API the including file defines:
 * the type vf of VL floats; v_zero, v_set1, v_load, v_store, v_add, v_sub, v_mul, v_fma
 * (a * b + c), v_max (NaN when either operand is), v_clamp (NaN stays NaN), v_keep (zero lanes
 * at or past a count), v_load_part and v_store_part (touch only the first count lanes), and for
 * the element-wise math v_div, v_min, v_select_less and v_pow2i; TARGET,
 * INLINE, SET_NAME, KERNEL(name) and INT8_KERNELS (the descriptor's int8 entry). The including file is one set (kernels_avx2.c,
 * kernels_neon.c, kernels_avx512.c), so one source serves every set and they cannot drift
 * apart. Included once per translation unit on purpose: no include guard.
 *
 * Register budget: AVX2 and NEON have 16 vf registers (AVX2: 16 ymm; NEON: 32 q, two per vf),
 * AVX-512 has 32 zmm, so a tile holds at most ACCUMULATORS accumulators plus its operands. The
 * including file may set the budget with these macros before the include (defaults: the
 * 16-register values):
 *   GEMM_ROWS         rows of a GEMM tile (6 or 12; two vectors of columns each);
 *   ACCUMULATORS      accumulators of a blocked pointwise tile (12 or 24);
 *   POINTWISE_MOST    most positions of a one-block pointwise tile (12 or 16);
 *   DIRECT_MOST       most positions of a direct-convolution tile (8 or 12);
 *   PAIR_MOST         most outputs of a two-row depthwise tile (4 or 8);
 *   POINTWISE_TILING_SEVENS, POINTWISE_TILING_OTHER  the descriptor's pointwise tilings.
 */

#include "scalar_kernels.h"

#ifndef GEMM_ROWS
#define GEMM_ROWS 6
#endif
#ifndef ACCUMULATORS
#define ACCUMULATORS 12
#endif
#ifndef POINTWISE_MOST
#define POINTWISE_MOST 12
#endif
#ifndef DIRECT_MOST
#define DIRECT_MOST 12
#endif
#ifndef PAIR_MOST
#define PAIR_MOST 4
#endif
/* 2 blocks x 6 positions (8 loads per 12 FMAs, no spills). 3 x 4 has the better load ratio on
   paper but leaves no register free: the compiler spills, and it measured less than half as
   fast over Lite0's 1x1 shapes on a Zen 3 EPYC. */
#ifndef POINTWISE_TILING_SEVENS
#define POINTWISE_TILING_SEVENS {2, 6, 32768}
#endif
#ifndef POINTWISE_TILING_OTHER
#define POINTWISE_TILING_OTHER {2, 6, 32768}
#endif

/* The dispatch switches below have cases for these budgets only. */
#if (GEMM_ROWS != 6 && GEMM_ROWS != 12) || (ACCUMULATORS != 12 && ACCUMULATORS != 24) ||      \
    (POINTWISE_MOST != 12 && POINTWISE_MOST != 16) || POINTWISE_MOST > ACCUMULATORS ||        \
    (DIRECT_MOST != 8 && DIRECT_MOST != 12) || (PAIR_MOST != 4 && PAIR_MOST != 8)
#error "unsupported register budget for generic_kernel_bodies.h"
#endif

/* GEMM tile: MR rows x NR columns (two vectors) = 2 * MR accumulators. */
enum { MR = GEMM_ROWS, NR = 2 * VL, LANES = VL, ACC = ACCUMULATORS };

/* A scalar clamp with the vector one's NaN rule: NaN compares false, so it passes through. */
static inline float clamp_scalar(float value, float low, float high) {
  value = value < low ? low : value;
  return value > high ? high : value;
}

/* MARK: GEMM */

/*
 * One ROWS x (VL * VECTORS) block of C. ROWS and VECTORS are compile-time constants at every
 * call site, so the accumulators are registers. B rows are whole vectors (a zero-padded packed
 * panel, or in-place B whose columns are a multiple of NR); C's last vector may be partial.
 */
TARGET INLINE void gemm_block(int64_t k, const float *a, const float *b, int64_t ldb,
                              const int ROWS, const int VECTORS, int64_t columns, float *c,
                              int64_t ldc, const float *bias, const float *residual,
                              const float *column_bias, const cnk_epilogue *e) {
  vf acc[MR][2];
#pragma clang loop unroll(full)
  for (int r = 0; r < ROWS; r++) {
    acc[r][0] = v_zero();
    acc[r][1] = v_zero();
  }
#pragma clang loop unroll(disable)
  for (int64_t p = 0; p < k; p++) {
    vf b0 = v_load(b);
    vf b1 = VECTORS == 2 ? v_load(b + VL) : v_zero();
#pragma clang loop unroll(full)
    for (int r = 0; r < ROWS; r++) {
      vf av = v_set1(a[r]);
      acc[r][0] = v_fma(av, b0, acc[r][0]);
      if (VECTORS == 2) acc[r][1] = v_fma(av, b1, acc[r][1]);
    }
    a += MR;
    b += ldb;
  }
  vf low = v_set1(e->clamp_min);
  vf high = v_set1(e->clamp_max);
#pragma clang loop unroll(full)
  for (int r = 0; r < ROWS; r++) {
    vf add = v_set1(bias ? bias[r] : 0.0f);
#pragma clang loop unroll(full)
    for (int v = 0; v < VECTORS; v++) {
      int64_t n = columns - VL * v;
      int whole = n >= VL;
      float *target = c + r * ldc + VL * v;
      vf value = v_add(acc[r][v], add);
      if (column_bias) {
        const float *shift = column_bias + VL * v;
        value = v_add(value, whole ? v_load(shift) : v_load_part(shift, n));
      }
      if (e->accumulate) value = v_add(value, whole ? v_load(target) : v_load_part(target, n));
      if (residual) {
        const float *extra = residual + r * ldc + VL * v;
        value = v_add(value, whole ? v_load(extra) : v_load_part(extra, n));
      }
      value = v_clamp(value, low, high);
      if (whole)
        v_store(target, value);
      else
        v_store_part(target, value, n);
    }
  }
}

#define GEMM_CASE(R)                                                                           \
  case R:                                                                                      \
    if (vectors == 2)                                                                          \
      gemm_block(k, a, b, ldb, R, 2, columns, c, ldc, bias, residual, column_bias, e);         \
    else                                                                                       \
      gemm_block(k, a, b, ldb, R, 1, columns, c, ldc, bias, residual, column_bias, e);         \
    break;

TARGET static void gemm_dispatch(int64_t k, const float *a, const float *b, int64_t ldb,
                                 int64_t rows, int64_t columns, float *c, int64_t ldc,
                                 const float *bias, const float *residual,
                                 const float *column_bias, const cnk_epilogue *e) {
  int vectors = columns > VL ? 2 : 1;
  switch (rows) {
    GEMM_CASE(1)
    GEMM_CASE(2)
    GEMM_CASE(3)
    GEMM_CASE(4)
    GEMM_CASE(5)
#if GEMM_ROWS > 6
    GEMM_CASE(6)
    GEMM_CASE(7)
    GEMM_CASE(8)
    GEMM_CASE(9)
    GEMM_CASE(10)
    GEMM_CASE(11)
#endif
    default:
      if (vectors == 2)
        gemm_block(k, a, b, ldb, MR, 2, columns, c, ldc, bias, residual, column_bias, e);
      else
        gemm_block(k, a, b, ldb, MR, 1, columns, c, ldc, bias, residual, column_bias, e);
      break;
  }
}

TARGET static void gemm_tile(int64_t k, const float *packed_a, int64_t first_panel,
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
      const float *residual = epilogue->residual ? epilogue->residual + row * ldc + column : 0;
      const float *panel_b = ldb ? b + column : b + column * k;
      const float *column_bias = epilogue->column_bias ? epilogue->column_bias + column : 0;
      gemm_dispatch(k, a, panel_b, ldb ? ldb : NR, height, width, c + row * ldc + column, ldc,
                    bias, residual, column_bias, epilogue);
    }
  }
}

/* Packs rows 0..<rows of a row-major A (row stride lda) times `scale` as panels of MR rows:
   element (row, p) of panel row / MR at p * MR + row % MR; rows past `rows` are zero. */
TARGET static void pack_rows(const float *a, int64_t rows, int64_t k, int64_t lda, float scale,
                             float *packed) {
  for (int64_t first = 0; first < rows; first += MR) {
    float *panel = packed + first * k;
    int64_t height = rows - first < MR ? rows - first : MR;
    for (int64_t r = 0; r < height; r++) {
      const float *row = a + (first + r) * lda;
      for (int64_t p = 0; p < k; p++) panel[p * MR + r] = row[p] * scale;
    }
    for (int64_t r = height; r < MR; r++) {
      for (int64_t p = 0; p < k; p++) panel[p * MR + r] = 0.0f;
    }
  }
}

/* Packs positions start..<start + count of X as panels of MR; lanes past `count` untouched. */
TARGET static void pack_positions(const float *x, int64_t k, int64_t ldx, int64_t start,
                                  int64_t count, float *packed) {
  for (int64_t panel = 0; panel < count; panel += MR) {
    int64_t n = count - panel < MR ? count - panel : MR;
    const float *source = x + start + panel;
    float *target = packed + panel * k;
    for (int64_t p = 0; p < k; p++) {
      for (int64_t r = 0; r < n; r++) target[p * MR + r] = source[p * ldx + r];
    }
  }
}

/*
 * Channel-vectorized pointwise convolution: positions are the broadcast operand and output
 * channels the vector lanes, so a small plane (7x7) wastes no lanes. Each block of sums is
 * written transposed into the channels' output rows.
 */
TARGET static void pointwise_tile(int64_t k, const float *packed_positions,
                                  int64_t position_count, const float *packed_weights,
                                  int64_t first_channel, int64_t channel_count, float *output,
                                  int64_t ldo, const cnk_epilogue *epilogue) {
  const cnk_epilogue plain = {0, 0, 0, -__builtin_inff(), __builtin_inff(), 0};
  float sums[MR * NR] __attribute__((aligned(64)));
  for (int64_t channel = 0; channel < channel_count; channel += NR) {
    int64_t width = channel_count - channel < NR ? channel_count - channel : NR;
    const float *weights = packed_weights + (first_channel + channel) * k;
    for (int64_t position = 0; position < position_count; position += MR) {
      int64_t rows = position_count - position < MR ? position_count - position : MR;
      gemm_dispatch(k, packed_positions + position * k, weights, NR, rows, width, sums, NR, 0,
                    0, 0, &plain);
      for (int64_t j = 0; j < width; j++) {
        int64_t m = first_channel + channel + j;
        float *target = output + m * ldo + position;
        const float *residual = epilogue->residual ? epilogue->residual + m * ldo + position : 0;
        float bias = epilogue->bias ? epilogue->bias[m] : 0.0f;
        for (int64_t r = 0; r < rows; r++) {
          float value = sums[r * NR + j] + bias;
          if (epilogue->accumulate) value += target[r];
          if (residual) value += residual[r];
          target[r] = clamp_scalar(value, epilogue->clamp_min, epilogue->clamp_max);
        }
      }
    }
  }
}

/* MARK: Matrix rows */

/* Four rows of B per pass over c, so c is loaded and stored a quarter as often. */
TARGET static void row_times_matrix(int64_t k, int64_t n, float alpha, const float *a,
                                    int64_t a_stride, const float *b, int64_t ldb, float *c,
                                    int accumulate) {
  int64_t whole = n / VL * VL;
  if (!accumulate) {
    for (int64_t j = 0; j < n; j++) c[j] = 0;
  }
  int64_t p = 0;
  for (; p + 4 <= k; p += 4) {
    vf a0 = v_set1(alpha * a[p * a_stride]);
    vf a1 = v_set1(alpha * a[(p + 1) * a_stride]);
    vf a2 = v_set1(alpha * a[(p + 2) * a_stride]);
    vf a3 = v_set1(alpha * a[(p + 3) * a_stride]);
    const float *b0 = b + p * ldb;
    for (int64_t j = 0; j < whole; j += VL) {
      vf sum = v_load(c + j);
      sum = v_fma(a0, v_load(b0 + j), sum);
      sum = v_fma(a1, v_load(b0 + ldb + j), sum);
      sum = v_fma(a2, v_load(b0 + 2 * ldb + j), sum);
      sum = v_fma(a3, v_load(b0 + 3 * ldb + j), sum);
      v_store(c + j, sum);
    }
    if (whole < n) {
      int64_t rest = n - whole;
      vf sum = v_load_part(c + whole, rest);
      sum = v_fma(a0, v_load_part(b0 + whole, rest), sum);
      sum = v_fma(a1, v_load_part(b0 + ldb + whole, rest), sum);
      sum = v_fma(a2, v_load_part(b0 + 2 * ldb + whole, rest), sum);
      sum = v_fma(a3, v_load_part(b0 + 3 * ldb + whole, rest), sum);
      v_store_part(c + whole, sum, rest);
    }
  }
  for (; p < k; p++) {
    vf a0 = v_set1(alpha * a[p * a_stride]);
    const float *b0 = b + p * ldb;
    for (int64_t j = 0; j < n; j += VL) {
      int64_t rest = n - j;
      if (rest >= VL) {
        v_store(c + j, v_fma(a0, v_load(b0 + j), v_load(c + j)));
      } else {
        v_store_part(c + j, v_fma(a0, v_load_part(b0 + j, rest), v_load_part(c + j, rest)),
                     rest);
      }
    }
  }
}

/* MARK: im2col */

/*
 * Each panel row is NR / VL vectors of columns. A vector inside one output row whose taps all
 * fall inside the plane at stride 1 is one whole load; any other is gathered lane by lane,
 * zero where a tap falls outside.
 */
TARGET static void im2col_panels(const float *input, int64_t channels, int64_t height,
                                 int64_t width, const cnk_window *w, int64_t output_width,
                                 int64_t start, int64_t count, float *destination) {
  int64_t taps = w->kernel_height * w->kernel_width;
  int64_t depth = channels * taps;
  for (int64_t panel = 0; panel < count; panel += NR) {
    float *target = destination + panel * depth;
    int64_t valid = count - panel < NR ? count - panel : NR;
    /* Input coordinates of each column's window origin (before the tap offset). */
    int64_t base_y[NR], base_x[NR];
    for (int64_t j = 0; j < NR; j++) {
      int64_t column = start + panel + (j < valid ? j : valid - 1);
      base_y[j] = column / output_width * w->stride_y;
      base_x[j] = column % output_width * w->stride_x;
    }
    for (int64_t p = 0; p < depth; p++) {
      int64_t channel = p / taps, tap = p % taps;
      int64_t dy = (tap / w->kernel_width) * w->dilation_y - w->pad_top;
      int64_t dx = (tap % w->kernel_width) * w->dilation_x - w->pad_left;
      const float *plane = input + channel * height * width;
      for (int64_t first = 0; first < NR; first += VL) {
        float *slot = target + p * NR + first;
        int one_row = valid - first >= VL && base_y[first] == base_y[first + VL - 1];
        if (one_row && w->stride_x == 1) {
          int64_t y = base_y[first] + dy, x = base_x[first] + dx;
          if (y < 0 || y >= height) {
            v_store(slot, v_zero());
            continue;
          }
          if (x >= 0 && x + VL <= width) {
            v_store(slot, v_load(plane + y * width + x));
            continue;
          }
        }
        for (int64_t j = first; j < first + VL; j++) {
          int64_t y = base_y[j] + dy, x = base_x[j] + dx;
          int inside = j < valid && y >= 0 && y < height && x >= 0 && x < width;
          target[p * NR + j] = inside ? plane[y * width + x] : 0.0f;
        }
      }
    }
  }
}

/* MARK: Depthwise on NCHW planes */

/*
 * Stores VL outputs of row `oy` from column `ox`. A row of one short chunk stores a whole
 * vector, spilling into the next row (written later), while the output has room (`spill_limit`
 * floats from the plane's start); only otherwise is the store partial.
 */
TARGET INLINE void store_outputs(float *output, int64_t oy, int64_t ox, int64_t output_width,
                                 int64_t spill_limit, vf value) {
  float *target = output + oy * output_width + ox;
  if (ox + VL <= output_width || (output_width < VL && oy * output_width + VL <= spill_limit))
    v_store(target, value);
  else
    v_store_part(target, value, output_width - ox);
}

/*
 * ROWS output rows from oy on, over a zero-bordered plane split into STRIDE column phases
 * (padded column c in phase c % STRIDE at index c / STRIDE), so every tap is one whole load.
 * KERNEL (0: any), STRIDE and ROWS are compile-time constants at every call site.
 */
TARGET INLINE void padded_rows(const float *phases, int64_t phase_size, int64_t phase_width,
                               const float *weights, float bias, const cnk_window *w,
                               float *output, int64_t oy, int64_t output_width,
                               int64_t spill_limit, vf low, vf high, const int KERNEL,
                               const int STRIDE, const int ROWS) {
  const int64_t kernel_height = KERNEL ? KERNEL : w->kernel_height;
  const int64_t kernel_width = KERNEL ? KERNEL : w->kernel_width;
  const int64_t dilation_x = KERNEL ? 1 : w->dilation_x;
  int64_t row_step = w->stride_y * phase_width;
  for (int64_t ox = 0; ox < output_width; ox += VL) {
    vf sum[4];
#pragma clang loop unroll(full)
    for (int r = 0; r < ROWS; r++) sum[r] = v_set1(bias);
    for (int64_t ky = 0; ky < kernel_height; ky++) {
      const float *line = phases + (oy * w->stride_y + ky * w->dilation_y) * phase_width + ox;
      const float *tap = weights + ky * kernel_width;
      for (int64_t kx = 0; kx < kernel_width; kx++) {
        int64_t offset = kx * dilation_x;
        const float *source = line + (offset % STRIDE) * phase_size + offset / STRIDE;
        vf weight = v_set1(tap[kx]);
#pragma clang loop unroll(full)
        for (int r = 0; r < ROWS; r++) {
          sum[r] = v_fma(v_load(source + r * row_step), weight, sum[r]);
        }
      }
    }
#pragma clang loop unroll(full)
    for (int r = 0; r < ROWS; r++) {
      store_outputs(output, oy + r, ox, output_width, spill_limit, v_clamp(sum[r], low, high));
    }
  }
}

TARGET INLINE void depthwise_padded(const float *phases, int64_t phase_size,
                                    int64_t phase_width, const float *weights, float bias,
                                    const cnk_window *w, float *output, int64_t output_height,
                                    int64_t output_width, int64_t spill_limit, float clamp_min,
                                    float clamp_max, const int KERNEL, const int STRIDE) {
  vf low = v_set1(clamp_min);
  vf high = v_set1(clamp_max);
  int64_t oy = 0;
  for (; oy + 4 <= output_height; oy += 4) {
    padded_rows(phases, phase_size, phase_width, weights, bias, w, output, oy, output_width,
                spill_limit, low, high, KERNEL, STRIDE, 4);
  }
  for (; oy < output_height; oy++) {
    padded_rows(phases, phase_size, phase_width, weights, bias, w, output, oy, output_width,
                spill_limit, low, high, KERNEL, STRIDE, 1);
  }
}

#define PADDED(KERNEL, STRIDE)                                                                 \
  depthwise_padded(scratch, phase_size, padded_width, kernel, bias[plane], w, target,           \
                   output_height, output_width, (planes - plane) * output_size, clamp_min,     \
                   clamp_max, KERNEL, STRIDE)

/*
 * Strides 1 and 2 copy each plane into a zero-bordered scratch first (stride 2 split into even
 * and odd columns), wide and tall enough that every chunk of VL outputs reads each tap with one
 * whole load; one scratch serves all planes of the call. Other strides, and a call whose
 * scratch cannot be had, run the scalar kernel.
 */
TARGET static void depthwise(const float *input, int64_t planes, int64_t height, int64_t width,
                             const float *weights, const float *bias, const cnk_window *w,
                             float *output, int64_t output_height, int64_t output_width,
                             float clamp_min, float clamp_max) {
  int64_t stride = w->stride_x;
  if (stride != 1 && stride != 2) {
    cnk_depthwise_scalar_planes(input, planes, height, width, weights, bias, w, output,
                                output_height, output_width, clamp_min, clamp_max);
    return;
  }
  int64_t taps = w->kernel_height * w->kernel_width;
  int64_t plane_size = height * width;
  int64_t output_size = output_height * output_width;
  int64_t chunks = (output_width + VL - 1) / VL;
  int64_t reach = (w->kernel_width - 1) * w->dilation_x;
  /* Per phase: the columns chunked outputs read, and the plane's own columns. */
  int64_t padded_width = stride == 1 ? chunks * VL + reach : chunks * VL + reach / 2 + 1;
  int64_t own = (w->pad_left + width + stride - 1) / stride;
  if (padded_width < own) padded_width = own;
  int64_t padded_height =
      (output_height - 1) * w->stride_y + (w->kernel_height - 1) * w->dilation_y + 1;
  if (padded_height < w->pad_top + height) padded_height = w->pad_top + height;
  int64_t phase_size = padded_height * padded_width;
  int64_t scratch_size = stride * phase_size;
  float *scratch =
      scratch_size <= (int64_t)1 << 24 ? cnk_thread_scratch((size_t)scratch_size * 4) : 0;
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
      const float *line = source + y * width;
      if (stride == 1) {
        memcpy(row + w->pad_left, line, (size_t)width * sizeof(float));
        continue;
      }
      for (int64_t x = 0; x < width; x++) {
        int64_t column = x + w->pad_left;
        row[(column % 2) * phase_size + column / 2] = line[x];
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

/* MARK: Blocked layout */

/* Clamps and zeroes the lanes past the last channel of block `block` (registers only). */
TARGET INLINE vf finish(vf value, vf low, vf high, int64_t block, int64_t channels) {
  return v_keep(v_clamp(value, low, high), channels - block * LANES);
}

/*
 * FB output blocks x PT positions of a pointwise convolution. FB and PT are constants at every
 * call site, so the FB * PT <= ACC accumulators are registers. Each input channel is one
 * broadcast per position against FB weight vectors.
 */
TARGET INLINE void pointwise_blocked_tile(const float *input, int64_t input_blocks,
                                          int64_t block_stride, const float *weights,
                                          int64_t weight_stride, const int FB, const int PT,
                                          const float *bias, const float *residual, vf low,
                                          vf high, int64_t first_block, int64_t channels,
                                          float *output) {
  vf acc[3][ACC];
#pragma clang loop unroll(full)
  for (int f = 0; f < FB; f++) {
    vf start = v_load(bias + f * LANES);
#pragma clang loop unroll(full)
    for (int j = 0; j < PT; j++) acc[f][j] = start;
  }
#pragma clang loop unroll(disable)
  for (int64_t cb = 0; cb < input_blocks; cb++) {
    const float *x = input + cb * block_stride;
    const float *w = weights + cb * LANES * LANES;
#pragma clang loop unroll(disable)
    for (int c = 0; c < LANES; c++) {
      vf wv[3];
#pragma clang loop unroll(full)
      for (int f = 0; f < FB; f++) wv[f] = v_load(w + f * weight_stride + c * LANES);
#pragma clang loop unroll(full)
      for (int j = 0; j < PT; j++) {
        vf xv = v_set1(x[j * LANES + c]);
#pragma clang loop unroll(full)
        for (int f = 0; f < FB; f++) acc[f][j] = v_fma(wv[f], xv, acc[f][j]);
      }
    }
  }
#pragma clang loop unroll(full)
  for (int f = 0; f < FB; f++) {
#pragma clang loop unroll(full)
    for (int j = 0; j < PT; j++) {
      vf value = acc[f][j];
      if (residual) value = v_add(value, v_load(residual + j * LANES));
      v_store(output + j * LANES, finish(value, low, high, first_block + f, channels));
    }
    output += block_stride;
    if (residual) residual += block_stride;
  }
}

#define PB_CASE(F, P)                                                                          \
  case P:                                                                                      \
    pointwise_blocked_tile(input, input_blocks, block_stride, weights, weight_stride, F, P,    \
                           bias, residual, low, high, first_block, channels, output);          \
    break;
#define PB_CASES_4(F) PB_CASE(F, 1) PB_CASE(F, 2) PB_CASE(F, 3) PB_CASE(F, 4)
#define PB_CASES_6(F) PB_CASES_4(F) PB_CASE(F, 5) PB_CASE(F, 6)
#define PB_CASES_8(F) PB_CASES_6(F) PB_CASE(F, 7) PB_CASE(F, 8)
#define PB_CASES_12(F) PB_CASES_8(F) PB_CASE(F, 9) PB_CASE(F, 10) PB_CASE(F, 11) PB_CASE(F, 12)

/* The most positions a tile of `blocks` output blocks takes: ACC accumulators, at most
   POINTWISE_MOST. */
static inline int64_t pointwise_positions(int64_t blocks) {
  return ACC / blocks < POINTWISE_MOST ? ACC / blocks : POINTWISE_MOST;
}

/* One tile of `blocks` (1...3) output blocks by pointwise_positions(blocks) positions or
   fewer. */
TARGET static void pointwise_blocked_dispatch(const float *input, int64_t input_blocks,
                                              int64_t block_stride, const float *weights,
                                              int64_t weight_stride, int64_t blocks,
                                              int64_t positions, const float *bias,
                                              const float *residual, vf low, vf high,
                                              int64_t first_block, int64_t channels,
                                              float *output) {
#if ACCUMULATORS == 24
  if (blocks == 3) {
    switch (positions) { PB_CASES_8(3) default: break; }
  } else if (blocks == 2) {
    switch (positions) { PB_CASES_12(2) default: break; }
  }
#else
  if (blocks == 3) {
    switch (positions) { PB_CASES_4(3) default: break; }
  } else if (blocks == 2) {
    switch (positions) { PB_CASES_6(2) default: break; }
  }
#endif
  else {
    switch (positions) {
      PB_CASES_12(1)
#if POINTWISE_MOST == 16
      PB_CASE(1, 13) PB_CASE(1, 14) PB_CASE(1, 15) PB_CASE(1, 16)
#endif
      default: break;
    }
  }
}

TARGET static void pointwise_blocked(const float *input, int64_t input_channels,
                                     int64_t positions, const float *weights, const float *bias,
                                     int64_t output_channels, int64_t first_block,
                                     int64_t block_count, int64_t start, int64_t count,
                                     const float *residual, float clamp_min, float clamp_max,
                                     float *output, const cnk_blocked_tiling *tiling) {
  int64_t input_blocks = (input_channels + LANES - 1) / LANES;
  int64_t block_stride = positions * LANES;
  int64_t weight_stride = input_blocks * LANES * LANES;
  int64_t group = tiling->blocks < 1 ? 1 : (tiling->blocks > 3 ? 3 : tiling->blocks);
  int64_t tile = tiling->positions < 1 ? 1 : tiling->positions;
  if (tile > pointwise_positions(group)) tile = pointwise_positions(group);
  int64_t chunk = tiling->chunk < tile ? tile : tiling->chunk / tile * tile;
  vf low = v_set1(clamp_min);
  vf high = v_set1(clamp_max);
  for (int64_t first = start; first < start + count; first += chunk) {
    int64_t end = first + chunk < start + count ? first + chunk : start + count;
    for (int64_t block = first_block; block < first_block + block_count; block += group) {
      int64_t left = first_block + block_count - block;
      int64_t blocks = left < group ? left : group;
      /* A short last group takes more positions so its accumulators stay busy. */
      int64_t step = blocks == group ? tile : pointwise_positions(blocks);
      for (int64_t p = first; p < end; p += step) {
        int64_t n = end - p < step ? end - p : step;
        int64_t offset = block * block_stride + p * LANES;
        pointwise_blocked_dispatch(input + p * LANES, input_blocks, block_stride,
                                   weights + block * weight_stride, weight_stride, blocks, n,
                                   bias + block * LANES, residual ? residual + offset : 0, low,
                                   high, block, output_channels, output + offset);
      }
    }
  }
}

/* Taps of one padded row at constant width, stride and unit dilation: T outputs at once. */
TARGET INLINE void depthwise_blocked_tile(const float *const *rows, int64_t kernel_height,
                                          int64_t kernel_width, const float *weights,
                                          int64_t stride_x, int64_t dilation_x, const int KW,
                                          const int SX, const int T, vf bias, vf low, vf high,
                                          int64_t block, int64_t channels, float *output) {
  const int64_t width = KW ? KW : kernel_width;
  const int64_t stride = KW ? SX : stride_x;
  vf acc[8];
#pragma clang loop unroll(full)
  for (int j = 0; j < T; j++) acc[j] = bias;
  for (int64_t ky = 0; ky < kernel_height; ky++) {
    const float *row = rows[ky];
    if (!row) continue;
    const float *w = weights + ky * width * LANES;
    for (int64_t kx = 0; kx < width; kx++) {
      vf wv = v_load(w + kx * LANES);
      const float *x = row + kx * dilation_x * LANES;
#pragma clang loop unroll(full)
      for (int j = 0; j < T; j++) acc[j] = v_fma(v_load(x + j * stride * LANES), wv, acc[j]);
    }
  }
#pragma clang loop unroll(full)
  for (int j = 0; j < T; j++) {
    v_store(output + j * LANES, finish(acc[j], low, high, block, channels));
  }
}

#define DW_CASE(KW, SX, T)                                                                     \
  case T:                                                                                      \
    depthwise_blocked_tile(rows, kh, kw, weights, sx, dx, KW, SX, T, bias, low, high, block,   \
                           channels, output);                                                  \
    break;
#define DW_SWITCH(KW, SX)                                                                      \
  switch (count) {                                                                             \
    DW_CASE(KW, SX, 1) DW_CASE(KW, SX, 2) DW_CASE(KW, SX, 3) DW_CASE(KW, SX, 4)                \
    DW_CASE(KW, SX, 5) DW_CASE(KW, SX, 6) DW_CASE(KW, SX, 7) DW_CASE(KW, SX, 8)                \
    default: break;                                                                            \
  }

/* `count` (1...8) outputs of one row starting at the row pointers' column. */
TARGET static void depthwise_blocked_dispatch(const float *const *rows, int64_t kh, int64_t kw,
                                              int64_t sx, int64_t dx, int64_t count,
                                              const float *weights, vf bias, vf low, vf high,
                                              int64_t block, int64_t channels, float *output) {
  if (kw == 3 && sx == 1 && dx == 1) {
    DW_SWITCH(3, 1)
  } else if (kw == 3 && sx == 2 && dx == 1) {
    DW_SWITCH(3, 2)
  } else if (kw == 5 && sx == 1 && dx == 1) {
    DW_SWITCH(5, 1)
  } else if (kw == 5 && sx == 2 && dx == 1) {
    DW_SWITCH(5, 2)
  } else {
    DW_SWITCH(0, 0)
  }
}

/* Two output rows at once (unit dilation): rows[0 ... kh + SY - 1] are the input rows both read;
   row r feeds the first output row with kernel row r and the second with kernel row r - SY, so
   each input vector is loaded once for up to two FMAs. T <= PAIR_MOST keeps 3 * T + 2
   registers. */
TARGET INLINE void depthwise_blocked_pair(const float *const *rows, int64_t kernel_height,
                                          const float *weights, const int KW, const int SX,
                                          const int SY, const int T, vf bias, vf low, vf high,
                                          int64_t block, int64_t channels, float *output,
                                          float *second) {
  vf acc[PAIR_MOST], acc2[PAIR_MOST];
#pragma clang loop unroll(full)
  for (int j = 0; j < T; j++) acc[j] = acc2[j] = bias;
  for (int64_t r = 0; r < kernel_height + SY; r++) {
    const float *row = rows[r];
    if (!row) continue;
    int first = r < kernel_height, other = r >= SY;
    const float *w = weights + (first ? r : 0) * KW * LANES;
    const float *w2 = weights + (other ? r - SY : 0) * KW * LANES;
#pragma clang loop unroll(full)
    for (int kx = 0; kx < KW; kx++) {
      vf x[PAIR_MOST];
#pragma clang loop unroll(full)
      for (int j = 0; j < T; j++) x[j] = v_load(row + (kx + j * SX) * LANES);
      if (first) {
        vf wv = v_load(w + kx * LANES);
#pragma clang loop unroll(full)
        for (int j = 0; j < T; j++) acc[j] = v_fma(x[j], wv, acc[j]);
      }
      if (other) {
        vf wv = v_load(w2 + kx * LANES);
#pragma clang loop unroll(full)
        for (int j = 0; j < T; j++) acc2[j] = v_fma(x[j], wv, acc2[j]);
      }
    }
  }
#pragma clang loop unroll(full)
  for (int j = 0; j < T; j++) {
    v_store(output + j * LANES, finish(acc[j], low, high, block, channels));
    v_store(second + j * LANES, finish(acc2[j], low, high, block, channels));
  }
}

#define DW2_CASE(KW, SX, SY, T)                                                                \
  case T:                                                                                      \
    depthwise_blocked_pair(rows, kh, weights, KW, SX, SY, T, bias, low, high, block, channels, \
                           output, second);                                                    \
    return;
#if PAIR_MOST == 8
#define DW2_CASES_MORE(KW, SX, SY)                                                             \
  DW2_CASE(KW, SX, SY, 5) DW2_CASE(KW, SX, SY, 6) DW2_CASE(KW, SX, SY, 7)                      \
  DW2_CASE(KW, SX, SY, 8)
#else
#define DW2_CASES_MORE(KW, SX, SY)
#endif
#define DW2_SWITCH(KW, SX, SY)                                                                 \
  switch (count) {                                                                             \
    DW2_CASE(KW, SX, SY, 1) DW2_CASE(KW, SX, SY, 2) DW2_CASE(KW, SX, SY, 3)                    \
    DW2_CASE(KW, SX, SY, 4) DW2_CASES_MORE(KW, SX, SY) default: return;                        \
  }

/* Whether depthwise_blocked_pair has a form for this window. */
static inline int has_pair_form(int64_t kw, int64_t sx, int64_t sy, int64_t dx) {
  return dx == 1 && (kw == 3 || kw == 5) && sx == sy && (sx == 1 || sx == 2);
}

/* `count` (1...PAIR_MOST) outputs of two rows, for a window has_pair_form accepts. */
TARGET static void depthwise_blocked_dispatch2(const float *const *rows, int64_t kh, int64_t kw,
                                               int64_t sx, int64_t sy, int64_t count,
                                               const float *weights, vf bias, vf low, vf high,
                                               int64_t block, int64_t channels, float *output,
                                               float *second) {
  if (kw == 3 && sx == 1) DW2_SWITCH(3, 1, 1)
  if (kw == 3 && sx == 2) DW2_SWITCH(3, 2, 2)
  if (kw == 5 && sx == 1) DW2_SWITCH(5, 1, 1)
  if (kw == 5 && sx == 2) DW2_SWITCH(5, 2, 2)
  (void)sy;
}

/* The most kernel rows the ring of padded rows holds; taller windows take the checked path. */
enum { MAX_RING = 64 };

/* Any window without scratch: one output vector at a time, taps outside the plane skipped. */
TARGET static void depthwise_blocked_checked(const float *input, int64_t height, int64_t width,
                                             const float *weights, vf bias, const cnk_window *w,
                                             float *output, int64_t output_width,
                                             int64_t first_row, int64_t row_count, vf low,
                                             vf high, int64_t block, int64_t channels) {
  for (int64_t oy = first_row; oy < first_row + row_count; oy++) {
    for (int64_t ox = 0; ox < output_width; ox++) {
      vf sum = bias;
      for (int64_t ky = 0; ky < w->kernel_height; ky++) {
        int64_t y = oy * w->stride_y + ky * w->dilation_y - w->pad_top;
        if (y < 0 || y >= height) continue;
        for (int64_t kx = 0; kx < w->kernel_width; kx++) {
          int64_t x = ox * w->stride_x + kx * w->dilation_x - w->pad_left;
          if (x < 0 || x >= width) continue;
          sum = v_fma(v_load(input + (y * width + x) * LANES),
                      v_load(weights + (ky * w->kernel_width + kx) * LANES), sum);
        }
      }
      v_store(output + (oy * output_width + ox) * LANES, finish(sum, low, high, block, channels));
    }
  }
}

TARGET static void depthwise_blocked(const float *input, int64_t height, int64_t width,
                                     const float *weights, const float *bias, int64_t block,
                                     int64_t channels, const cnk_window *w, float *output,
                                     int64_t output_height, int64_t output_width,
                                     int64_t first_row, int64_t row_count, float clamp_min,
                                     float clamp_max) {
  (void)output_height;
  vf low = v_set1(clamp_min);
  vf high = v_set1(clamp_max);
  vf start = v_load(bias);
  int64_t kh = w->kernel_height, kw = w->kernel_width, sy = w->stride_y;
  int64_t extent = (kh - 1) * w->dilation_y + 1;
  /* Two output rows at a time read extent + stride rows; the ring holds that many. */
  int64_t slots = extent + sy;
  /* Padded rows: the pad columns are zero, so every tap reads valid memory without checks. */
  int64_t reach = (output_width - 1) * w->stride_x + (kw - 1) * w->dilation_x + 1;
  int64_t padded = w->pad_left + width > reach ? w->pad_left + width : reach;
  float *ring = slots <= MAX_RING && kh + sy <= MAX_RING
                    ? cnk_thread_scratch((size_t)(slots * padded * LANES) * sizeof(float))
                    : 0;
  if (!ring) {
    depthwise_blocked_checked(input, height, width, weights, start, w, output, output_width,
                              first_row, row_count, low, high, block, channels);
    return;
  }
  int64_t ring_rows[MAX_RING];
  for (int64_t slot = 0; slot < slots; slot++) {
    ring_rows[slot] = -1;
    float *row = ring + slot * padded * LANES;
    memset(row, 0, (size_t)(w->pad_left * LANES) * sizeof(float));
    memset(row + (w->pad_left + width) * LANES, 0,
           (size_t)((padded - w->pad_left - width) * LANES) * sizeof(float));
  }
  const float *rows[MAX_RING];
  int paired_window = has_pair_form(kw, w->stride_x, sy, w->dilation_x);
  int64_t tile = output_width % 8 != 0 && output_width % 7 == 0 ? 7 : 8;
  int64_t end = first_row + row_count;
  for (int64_t oy = first_row; oy < end;) {
    /* Input rows oy * sy - pad_top + r for r < kh (one output row) or r < kh + sy (two). */
    int pair = oy + 1 < end && w->dilation_y == 1;
    int64_t needed = pair ? kh + sy : kh;
    for (int64_t r = 0; r < needed; r++) {
      int64_t y = oy * sy + r * w->dilation_y - w->pad_top;
      if (y < 0 || y >= height) {
        rows[r] = 0;
        continue;
      }
      int64_t slot = y % slots;
      float *row = ring + slot * padded * LANES;
      if (ring_rows[slot] != y) {
        memcpy(row + w->pad_left * LANES, input + y * width * LANES,
               (size_t)(width * LANES) * sizeof(float));
        ring_rows[slot] = y;
      }
      rows[r] = row;
    }
    float *target = output + oy * output_width * LANES;
    float *second = target + output_width * LANES;
    int64_t step = pair && paired_window && tile > PAIR_MOST ? PAIR_MOST : tile;
    for (int64_t ox = 0; ox < output_width; ox += step) {
      int64_t count = output_width - ox < step ? output_width - ox : step;
      const float *shifted[MAX_RING];
      for (int64_t r = 0; r < needed; r++) {
        shifted[r] = rows[r] ? rows[r] + ox * w->stride_x * LANES : 0;
      }
      if (pair && paired_window) {
        depthwise_blocked_dispatch2(shifted, kh, kw, w->stride_x, sy, count, weights, start, low,
                                    high, block, channels, target + ox * LANES,
                                    second + ox * LANES);
        continue;
      }
      depthwise_blocked_dispatch(shifted, kh, kw, w->stride_x, w->dilation_x, count, weights,
                                 start, low, high, block, channels, target + ox * LANES);
      if (pair) {
        depthwise_blocked_dispatch(shifted + sy, kh, kw, w->stride_x, w->dilation_x, count,
                                   weights, start, low, high, block, channels,
                                   second + ox * LANES);
      }
    }
    oy += pair ? 2 : 1;
  }
}

/* MARK: Direct convolution from NCHW */

/* The most consecutive outputs a direct tile of one or two blocks takes (ACC accumulators, at
   most DIRECT_MOST). */
static inline int64_t direct_positions(int64_t blocks) {
  return ACC / blocks < DIRECT_MOST ? ACC / blocks : DIRECT_MOST;
}

/* The outputs [*start, *end) of a row whose every column tap lies inside the input. */
static inline void inner_columns(const cnk_window *w, int64_t width, int64_t output_width,
                                 int64_t *start, int64_t *end) {
  int64_t sx = w->stride_x;
  int64_t last = width - 1 + w->pad_left - (w->kernel_width - 1) * w->dilation_x;
  *end = last < 0 ? 0 : last / sx + 1;
  if (*end > output_width) *end = output_width;
  *start = (w->pad_left + sx - 1) / sx;
  if (*start > *end) *start = *end;
}

/* FB output blocks x PT consecutive outputs of one row, every tap inside the input. */
TARGET INLINE void direct_tile(const float *input, int64_t channels, int64_t height,
                               int64_t width, const float *weights, int64_t weight_stride,
                               const cnk_window *w, int64_t oy, int64_t ox, const int FB,
                               const int PT, const float *bias, vf low, vf high,
                               int64_t first_block, int64_t output_channels,
                               int64_t block_stride, float *output) {
  vf acc[2][ACC];
#pragma clang loop unroll(full)
  for (int f = 0; f < FB; f++) {
    vf start = v_load(bias + f * LANES);
#pragma clang loop unroll(full)
    for (int j = 0; j < PT; j++) acc[f][j] = start;
  }
  int64_t kh = w->kernel_height, kw = w->kernel_width, sx = w->stride_x;
  for (int64_t c = 0; c < channels; c++) {
    for (int64_t ky = 0; ky < kh; ky++) {
      int64_t y = oy * w->stride_y + ky * w->dilation_y - w->pad_top;
      if (y < 0 || y >= height) continue;
      const float *row = input + (c * height + y) * width + ox * sx - w->pad_left;
      const float *tap = weights + ((c * kh + ky) * kw) * LANES;
      for (int64_t kx = 0; kx < kw; kx++) {
        const float *x = row + kx * w->dilation_x;
        vf wv[2];
#pragma clang loop unroll(full)
        for (int f = 0; f < FB; f++) wv[f] = v_load(tap + f * weight_stride + kx * LANES);
#pragma clang loop unroll(full)
        for (int j = 0; j < PT; j++) {
          vf xv = v_set1(x[j * sx]);
#pragma clang loop unroll(full)
          for (int f = 0; f < FB; f++) acc[f][j] = v_fma(wv[f], xv, acc[f][j]);
        }
      }
    }
  }
#pragma clang loop unroll(full)
  for (int f = 0; f < FB; f++) {
#pragma clang loop unroll(full)
    for (int j = 0; j < PT; j++) {
      v_store(output + f * block_stride + j * LANES,
              finish(acc[f][j], low, high, first_block + f, output_channels));
    }
  }
}

/* One output of FB (1 or 2) blocks with every tap checked against the input's bounds. */
TARGET static void direct_checked(const float *input, int64_t channels, int64_t height,
                                  int64_t width, const float *weights, int64_t weight_stride,
                                  const cnk_window *w, int64_t oy, int64_t ox, int64_t blocks,
                                  const float *bias, vf low, vf high, int64_t first_block,
                                  int64_t output_channels, int64_t block_stride, float *output) {
  for (int64_t f = 0; f < blocks; f++) {
    vf sum = v_load(bias + f * LANES);
    const float *filter = weights + f * weight_stride;
    for (int64_t c = 0; c < channels; c++) {
      for (int64_t ky = 0; ky < w->kernel_height; ky++) {
        int64_t y = oy * w->stride_y + ky * w->dilation_y - w->pad_top;
        if (y < 0 || y >= height) continue;
        for (int64_t kx = 0; kx < w->kernel_width; kx++) {
          int64_t x = ox * w->stride_x + kx * w->dilation_x - w->pad_left;
          if (x < 0 || x >= width) continue;
          int64_t tap = (c * w->kernel_height + ky) * w->kernel_width + kx;
          sum = v_fma(v_load(filter + tap * LANES), v_set1(input[(c * height + y) * width + x]),
                      sum);
        }
      }
    }
    v_store(output + f * block_stride,
            finish(sum, low, high, first_block + f, output_channels));
  }
}

#define DIRECT_CASE(F, P)                                                                      \
  case P:                                                                                      \
    direct_tile(input, channels, height, width, weights, weight_stride, w, oy, ox, F, P, bias, \
                low, high, first_block, output_channels, block_stride, output);                \
    break;
#define DIRECT_CASES_6(F)                                                                      \
  DIRECT_CASE(F, 1) DIRECT_CASE(F, 2) DIRECT_CASE(F, 3) DIRECT_CASE(F, 4) DIRECT_CASE(F, 5)    \
  DIRECT_CASE(F, 6)
#define DIRECT_CASES_8(F) DIRECT_CASES_6(F) DIRECT_CASE(F, 7) DIRECT_CASE(F, 8)

TARGET static void direct_dispatch(const float *input, int64_t channels, int64_t height,
                                   int64_t width, const float *weights, int64_t weight_stride,
                                   const cnk_window *w, int64_t oy, int64_t ox, int64_t blocks,
                                   int64_t count, const float *bias, vf low, vf high,
                                   int64_t first_block, int64_t output_channels,
                                   int64_t block_stride, float *output) {
  if (blocks == 2) {
#if ACCUMULATORS / 2 >= 8 && DIRECT_MOST >= 8
    switch (count) { DIRECT_CASES_8(2) default: break; }
#else
    switch (count) { DIRECT_CASES_6(2) default: break; }
#endif
  } else {
    switch (count) {
      DIRECT_CASES_8(1)
#if DIRECT_MOST >= 12
      DIRECT_CASE(1, 9) DIRECT_CASE(1, 10) DIRECT_CASE(1, 11) DIRECT_CASE(1, 12)
#endif
      default: break;
    }
  }
}

TARGET static void conv_direct_blocked(const float *input, int64_t channels, int64_t height,
                                       int64_t width, const float *weights, const float *bias,
                                       int64_t output_channels, const cnk_window *w,
                                       float *output, int64_t output_height,
                                       int64_t output_width, int64_t first_block,
                                       int64_t block_count, int64_t first_row,
                                       int64_t row_count, float clamp_min, float clamp_max) {
  vf low = v_set1(clamp_min);
  vf high = v_set1(clamp_max);
  int64_t weight_stride = channels * w->kernel_height * w->kernel_width * LANES;
  int64_t block_stride = output_height * output_width * LANES;
  int64_t inner_start, inner_end;
  inner_columns(w, width, output_width, &inner_start, &inner_end);
  for (int64_t oy = first_row; oy < first_row + row_count; oy++) {
    for (int64_t block = first_block; block < first_block + block_count; block += 2) {
      int64_t blocks = first_block + block_count - block < 2 ? 1 : 2;
      int64_t most = direct_positions(blocks);
      const float *filters = weights + block * weight_stride;
      const float *shift = bias + block * LANES;
      float *target = output + block * block_stride + oy * output_width * LANES;
      for (int64_t ox = 0; ox < output_width; ox++) {
        if (ox >= inner_start && ox < inner_end) {
          int64_t count = inner_end - ox < most ? inner_end - ox : most;
          direct_dispatch(input, channels, height, width, filters, weight_stride, w, oy, ox,
                          blocks, count, shift, low, high, block, output_channels, block_stride,
                          target + ox * LANES);
          ox += count - 1;
        } else {
          direct_checked(input, channels, height, width, filters, weight_stride, w, oy, ox,
                         blocks, shift, low, high, block, output_channels, block_stride,
                         target + ox * LANES);
        }
      }
    }
  }
}

/* MARK: Pooling */

TARGET static void global_average_blocked(const float *input, int64_t channels,
                                          int64_t positions, float *output) {
  int64_t blocks = (channels + LANES - 1) / LANES;
  float scale = positions > 0 ? 1.0f / (float)positions : 0.0f;
  for (int64_t block = 0; block < blocks; block++) {
    const float *source = input + block * positions * LANES;
    vf sums[4] = {v_zero(), v_zero(), v_zero(), v_zero()};
    int64_t p = 0;
    for (; p + 4 <= positions; p += 4) {
      for (int i = 0; i < 4; i++) sums[i] = v_add(sums[i], v_load(source + (p + i) * LANES));
    }
    for (; p < positions; p++) sums[0] = v_add(sums[0], v_load(source + p * LANES));
    vf total = v_add(v_add(sums[0], sums[1]), v_add(sums[2], sums[3]));
    v_store_part(output + block * LANES, v_mul(total, v_set1(scale)), channels - block * LANES);
  }
}

/* MARK: Per-channel scale */

TARGET static void scale_blocked(const float *input, const float *scales, int64_t positions,
                                 float *output) {
  vf scale = v_load(scales);
  int64_t p = 0;
  for (; p + 4 <= positions; p += 4) {
    for (int i = 0; i < 4; i++) {
      v_store(output + (p + i) * LANES, v_mul(v_load(input + (p + i) * LANES), scale));
    }
  }
  for (; p < positions; p++) v_store(output + p * LANES, v_mul(v_load(input + p * LANES), scale));
}

/* MARK: Windows (max pooling, Winograd) */

#include "window_kernel_bodies.h"

/* MARK: Grouped convolution */

#include "grouped_kernel_bodies.h"

/* MARK: Element-wise math (activations) */

#include "elementwise_kernel_bodies.h"

/* MARK: Similarity search */

#include "similarity_kernel_bodies.h"

/* MARK: Descriptor */

const cnk_kernel_set KERNEL(cnk_generic_set) = {
    .name = SET_NAME,
    .lanes = LANES,
    .gemm_row_tile = MR,
    .gemm_column_tile = NR,
    .pointwise_accumulators = ACC,
    .pointwise_tiling_sevens = POINTWISE_TILING_SEVENS,
    .pointwise_tiling_other = POINTWISE_TILING_OTHER,
    .gemm_tile = gemm_tile,
    .pack_positions = pack_positions,
    .pointwise_tile = pointwise_tile,
    .depthwise = depthwise,
    .row_times_matrix = row_times_matrix,
    .im2col_panels = im2col_panels,
    .pointwise_blocked = pointwise_blocked,
    .depthwise_blocked = depthwise_blocked,
    .conv_direct_blocked = conv_direct_blocked,
    .grouped_blocked = grouped_blocked,
    .global_average_blocked = global_average_blocked,
    .max_pool_blocked = max_pool_blocked,
    .winograd_input = winograd_input,
    .winograd_output = winograd_output,
    .activate = activate,
    .activate_blocked = activate_blocked,
    .softmax = softmax,
    .scale_blocked = scale_blocked,
    .layer_norm = layer_norm,
    .pack_rows = pack_rows,
    .quantize_linear = quantize_linear,
    .requantize_linear = requantize_linear,
    .dequantize_linear = dequantize_linear,
    .binary = binary,
    .plane_means = plane_means,
    .dot_half = dot_half,
    .dot_int8 = dot_int8,
    .to_half = to_half,
    .to_int8 = to_int8,
    .int8 = INT8_KERNELS,
};
