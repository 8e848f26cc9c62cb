#ifndef CNATIVE_KERNELS_H
#define CNATIVE_KERNELS_H

/*
 * Kernel half of the one C target: single-precision micro-kernels for NeuralCore written for
 * AVX-512 and compiled with per-function target attributes, so the package needs no
 * unsafeFlags. Swift asks cnk_has_avx512() once and calls these only when it returns 1; on
 * other CPUs NeuralCore runs its portable Swift kernels. Sizes are int64_t (Swift Int).
 */

#include <stddef.h>
#include <stdint.h>

/* Rows of C one GEMM micro-kernel call produces (the height of a packed A panel). */
#define CNK_GEMM_ROW_TILE 12
/* Columns of C one GEMM micro-kernel call produces (the width of a packed B panel). */
#define CNK_GEMM_COLUMN_TILE 32

/*
 * A 64-byte-aligned workspace of at least `bytes` owned by the calling thread: reused (grown
 * when needed) by later calls on the same thread, freed when the thread exits, and valid until
 * the thread's next call. NULL when it cannot be had.
 */
void *cnk_thread_scratch(size_t bytes);

/* A hint to the CPU that the caller is spinning on a flag (x86 `pause`). */
static inline void cnk_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* 1 when the CPU and OS support the AVX-512 Foundation kernels of this target, else 0. */
int cnk_has_avx512(void);

/* What happens to each block of C after its sums are formed, in this order. */
typedef struct cnk_epilogue {
  /* One value per row of C, added to every column; or NULL. */
  const float *bias;
  /* Adds the sums to the existing contents of C when nonzero. */
  int accumulate;
  /* Element-wise addend laid out like C (same leading dimension); or NULL. */
  const float *residual;
  /* The result is clamped to [clamp_min, clamp_max] (+/-INFINITY for none); NaN stays NaN. */
  float clamp_min;
  float clamp_max;
} cnk_epilogue;

/*
 * Multiplies packed A panels first_panel..<first_panel + panel_count (each k x
 * CNK_GEMM_ROW_TILE, row r of step p at p * CNK_GEMM_ROW_TILE + r) by `columns` columns of B and
 * writes them to C. With ldb == 0, B is one packed tile: panels of k x CNK_GEMM_COLUMN_TILE,
 * zero-padded. Otherwise B is row-major with row stride ldb and `columns` a multiple of the
 * column tile, read in place. `c` and `residual` point at row 0 of this tile's first column;
 * rows at or past `rows` are not written.
 */
void cnk_gemm_tile_avx512(int64_t k, const float *packed_a, int64_t first_panel,
                          int64_t panel_count, int64_t rows, const float *b, int64_t ldb,
                          int64_t columns, float *c, int64_t ldc, const cnk_epilogue *epilogue);

/*
 * Packs positions start..<start + count of X (k rows of positions, row stride ldx) as panels of
 * CNK_GEMM_ROW_TILE positions: position r of a panel at step p is at p * CNK_GEMM_ROW_TILE + r,
 * unspecified past `count` (the kernels never read those lanes). The panels take count rounded
 * up to the row tile, times k, floats; nothing past them is written.
 */
void cnk_pack_positions_avx512(const float *x, int64_t k, int64_t ldx, int64_t start,
                               int64_t count, float *packed);

/*
 * A pointwise (1x1) convolution block computed channel-vectorized: output[m * ldo + r] for
 * channels first_channel..<first_channel + channel_count and packed positions r <
 * position_count. Weights are packed as panels of CNK_GEMM_COLUMN_TILE channels (channel j of
 * a panel at step p is at p * CNK_GEMM_COLUMN_TILE + j); first_channel is a multiple of the
 * column tile. `output` and the epilogue's residual point at position 0 of this block in
 * channel 0's row; the bias is indexed by channel.
 */
void cnk_pointwise_tile_avx512(int64_t k, const float *packed_positions,
                               int64_t position_count, const float *packed_weights,
                               int64_t first_channel, int64_t channel_count, float *output,
                               int64_t ldo, const cnk_epilogue *epilogue);

/* The geometry of a 2-D window over one plane. */
typedef struct cnk_window {
  int64_t kernel_height, kernel_width;
  int64_t stride_y, stride_x;
  int64_t dilation_y, dilation_x;
  int64_t pad_top, pad_left;
} cnk_window;

/*
 * Convolves `planes` consecutive height x width planes, each with its own kernel
 * (kernel_height x kernel_width weights per plane, consecutive) and bias, clamps, and writes
 * output_height x output_width values per plane. Taps outside a plane read zero. Strides 1 and
 * 2 run vectorized; others fall back to scalar code.
 */
void cnk_depthwise_avx512(const float *input, int64_t planes, int64_t height, int64_t width,
                          const float *weights, const float *bias, const cnk_window *window,
                          float *output, int64_t output_height, int64_t output_width,
                          float clamp_min, float clamp_max);

/*
 * c[j] (+)= alpha * sum over p < k of a[p * a_stride] * b[p * ldb + j], for j < n: one row of
 * a matrix product whose B rows are contiguous (a classifier head at batch 1). When
 * `accumulate` is 0, c is overwritten.
 */
void cnk_row_times_matrix_avx512(int64_t k, int64_t n, float alpha, const float *a,
                                 int64_t a_stride, const float *b, int64_t ldb, float *c,
                                 int accumulate);

/*
 * Writes im2col columns start..<start + count of a convolution over `channels` planes of
 * height x width as packed B panels of CNK_GEMM_COLUMN_TILE columns (row p = channel, ky, kx
 * of the window; column = output y * output_width + output x), zero where a tap falls outside.
 */
void cnk_im2col_panels_avx512(const float *input, int64_t channels, int64_t height,
                              int64_t width, const cnk_window *window, int64_t output_width,
                              int64_t start, int64_t count, float *destination);

/*
 * The blocked channel layout (NCHW16c): an image of C channels is ceil(C / 16) blocks, each a
 * plane of positions x CNK_BLOCK_LANES floats (one lane per channel). Lanes past the last
 * channel are zero in every tensor these kernels write.
 */
#define CNK_BLOCK_LANES 16

/* Copies blocks first_block..<first_block + block_count of an NCHW image into blocked layout. */
void cnk_to_blocked(const float *input, int64_t channels, int64_t positions, int64_t first_block,
                    int64_t block_count, float *output);

/* Copies blocks first_block..<first_block + block_count of a blocked image back to NCHW. */
void cnk_from_blocked(const float *input, int64_t channels, int64_t positions,
                      int64_t first_block, int64_t block_count, float *output);

/* How a pointwise call walks its work: output blocks per tile (1...3), positions per tile
   (<= 8, 12, 16 for 3, 2, 1 blocks), and positions per cache chunk. */
typedef struct cnk_blocked_tiling {
  int64_t blocks;
  int64_t positions;
  int64_t chunk;
} cnk_blocked_tiling;

/*
 * A pointwise (1x1) convolution of one blocked image: output blocks first_block..<first_block +
 * block_count at positions start..<start + count. Weights are [output block][input channel,
 * padded to whole blocks][16]; bias is one value per output channel padded to whole blocks.
 * `residual` (or NULL) is a blocked image like the output, added before the clamp.
 */
void cnk_pointwise_blocked_avx512(const float *input, int64_t input_channels,
                                  int64_t positions, const float *weights, const float *bias,
                                  int64_t output_channels, int64_t first_block,
                                  int64_t block_count, int64_t start, int64_t count,
                                  const float *residual, float clamp_min, float clamp_max,
                                  float *output, const cnk_blocked_tiling *tiling);

/*
 * A depthwise convolution of one channel block (`block` of a tensor of `channels` channels):
 * input is its height x width plane, weights [tap][16], bias [16]; writes output rows
 * first_row..<first_row + row_count. Taps outside the plane read zero.
 */
void cnk_depthwise_blocked_avx512(const float *input, int64_t height, int64_t width,
                                  const float *weights, const float *bias, int64_t block,
                                  int64_t channels, const cnk_window *window, float *output,
                                  int64_t output_height, int64_t output_width,
                                  int64_t first_row, int64_t row_count, float clamp_min,
                                  float clamp_max);

/*
 * A convolution (one group) from an NCHW image of few channels into blocked output: blocks
 * first_block..<first_block + block_count, output rows first_row..<first_row + row_count.
 * Weights are [output block][channel][ky][kx][16]; bias is padded to whole blocks.
 */
void cnk_conv_direct_blocked_avx512(const float *input, int64_t channels, int64_t height,
                                    int64_t width, const float *weights, const float *bias,
                                    int64_t output_channels, const cnk_window *window,
                                    float *output, int64_t output_height, int64_t output_width,
                                    int64_t first_block, int64_t block_count, int64_t first_row,
                                    int64_t row_count, float clamp_min, float clamp_max);

/* The mean of each channel of one blocked image over its positions, written as C floats. */
void cnk_global_average_blocked_avx512(const float *input, int64_t channels, int64_t positions,
                                       float *output);

#endif
