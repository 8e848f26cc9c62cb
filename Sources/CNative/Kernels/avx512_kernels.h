#ifndef CNATIVE_AVX512_KERNELS_H
#define CNATIVE_AVX512_KERNELS_H

/* The entry points of the hand-tuned AVX-512 set, reached only through its descriptor
   (kernel_sets.c). Declared on x86-64 only: nothing here exists elsewhere. */

#include "CNativeKernels.h"

/* Rows of C one GEMM micro-kernel call produces (the height of a packed A panel). */
#define CNK_GEMM_ROW_TILE 12
/* Columns of C one GEMM micro-kernel call produces (the width of a packed B panel). */
#define CNK_GEMM_COLUMN_TILE 32
/* Channels per block of the blocked layout: one AVX-512 vector of floats. */
#define CNK_BLOCK_LANES 16

#if defined(__x86_64__)
void cnk_gemm_tile_avx512(int64_t k, const float *packed_a, int64_t first_panel,
                          int64_t panel_count, int64_t rows, const float *b, int64_t ldb,
                          int64_t columns, float *c, int64_t ldc, const cnk_epilogue *epilogue);
void cnk_pack_positions_avx512(const float *x, int64_t k, int64_t ldx, int64_t start,
                               int64_t count, float *packed);
void cnk_pointwise_tile_avx512(int64_t k, const float *packed_positions,
                               int64_t position_count, const float *packed_weights,
                               int64_t first_channel, int64_t channel_count, float *output,
                               int64_t ldo, const cnk_epilogue *epilogue);
void cnk_depthwise_avx512(const float *input, int64_t planes, int64_t height, int64_t width,
                          const float *weights, const float *bias, const cnk_window *window,
                          float *output, int64_t output_height, int64_t output_width,
                          float clamp_min, float clamp_max);
void cnk_row_times_matrix_avx512(int64_t k, int64_t n, float alpha, const float *a,
                                 int64_t a_stride, const float *b, int64_t ldb, float *c,
                                 int accumulate);
void cnk_im2col_panels_avx512(const float *input, int64_t channels, int64_t height,
                              int64_t width, const cnk_window *window, int64_t output_width,
                              int64_t start, int64_t count, float *destination);
void cnk_pointwise_blocked_avx512(const float *input, int64_t input_channels,
                                  int64_t positions, const float *weights, const float *bias,
                                  int64_t output_channels, int64_t first_block,
                                  int64_t block_count, int64_t start, int64_t count,
                                  const float *residual, float clamp_min, float clamp_max,
                                  float *output, const cnk_blocked_tiling *tiling);
void cnk_depthwise_blocked_avx512(const float *input, int64_t height, int64_t width,
                                  const float *weights, const float *bias, int64_t block,
                                  int64_t channels, const cnk_window *window, float *output,
                                  int64_t output_height, int64_t output_width,
                                  int64_t first_row, int64_t row_count, float clamp_min,
                                  float clamp_max);
void cnk_conv_direct_blocked_avx512(const float *input, int64_t channels, int64_t height,
                                    int64_t width, const float *weights, const float *bias,
                                    int64_t output_channels, const cnk_window *window,
                                    float *output, int64_t output_height, int64_t output_width,
                                    int64_t first_block, int64_t block_count, int64_t first_row,
                                    int64_t row_count, float clamp_min, float clamp_max);
void cnk_global_average_blocked_avx512(const float *input, int64_t channels, int64_t positions,
                                       float *output);
void cnk_max_pool_blocked_avx512(const float *input, int64_t height, int64_t width,
                                 const cnk_window *window, float *output, int64_t output_width,
                                 int64_t first_row, int64_t row_count, int64_t valid_lanes);
void cnk_winograd_input_avx512(const float *input, int64_t channels, int64_t height,
                               int64_t width, int64_t pad_top, int64_t pad_left, int64_t tiles_x,
                               int64_t tiles, int64_t first_tile, int64_t tile_count,
                               float *transformed);
void cnk_winograd_output_avx512(const float *transformed, int64_t channels, int64_t tiles_x,
                                int64_t tiles, const float *bias, const float *residual,
                                float clamp_min, float clamp_max, float *output,
                                int64_t output_height, int64_t output_width, int64_t first_tile,
                                int64_t tile_count);
#endif

#endif
