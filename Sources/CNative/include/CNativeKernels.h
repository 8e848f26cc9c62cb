#ifndef CNATIVE_KERNELS_H
#define CNATIVE_KERNELS_H

/*
 * Kernel half of the one C target: single-precision micro-kernels for NeuralCore, grouped in
 * kernel sets. A set is one descriptor (cnk_kernel_set) holding its vector width, its tile sizes
 * and its entry points; Swift asks for the sets this CPU runs once, picks one, and calls only
 * through its descriptor, so no kernel is chosen by a scattered CPU check. Each x86 set is
 * compiled with per-function target attributes (the package needs no unsafeFlags); the NEON set
 * is aarch64's baseline. A set the CPU or the architecture lacks has no descriptor (NULL): no
 * entry point exists that silently does nothing. Sizes are int64_t (Swift Int).
 *
 * The portable, AVX2 and NEON sets are one source (generic_kernel_bodies.h) compiled per target
 * over a small vector API; the AVX-512 set is hand-tuned separately (masks, gathers, permutes).
 * Each set also hands out int8 kernels (cnk_int8_kernels, below), likewise one source
 * (int8_generic_bodies.h) compiled per instruction-set family.
 */

#include <stddef.h>
#include <stdint.h>

/*
 * A 64-byte-aligned workspace of at least `bytes` owned by the calling thread: reused (grown
 * when needed) by later calls on the same thread, freed when the thread exits, and valid until
 * the thread's next call. NULL when it cannot be had.
 */
void *cnk_thread_scratch(size_t bytes);

/* A hint to the CPU that the caller is spinning on a flag (x86 `pause`, ARM `yield`). */
static inline void cnk_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

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
  /* One value per column of C (indexed from the tile's first column, like C), added to every
     row, before the clamp; or NULL. */
  const float *column_bias;
} cnk_epilogue;

/* The geometry of a 2-D window over one plane. */
typedef struct cnk_window {
  int64_t kernel_height, kernel_width;
  int64_t stride_y, stride_x;
  int64_t dilation_y, dilation_x;
  int64_t pad_top, pad_left;
} cnk_window;

/* How a blocked pointwise call walks its work: output blocks per tile (1...3), positions per
   tile (at most the set's accumulators / blocks), and positions per cache chunk. In a set's
   descriptor `chunk` is instead the input floats one chunk should read; the caller divides it
   by the padded input channels. */
typedef struct cnk_blocked_tiling {
  int64_t blocks;
  int64_t positions;
  int64_t chunk;
} cnk_blocked_tiling;

/*
 * Multiplies packed A panels first_panel..<first_panel + panel_count (each k x gemm_row_tile,
 * row r of step p at p * gemm_row_tile + r) by `columns` columns of B and writes them to C.
 * With ldb == 0, B is one packed tile: panels of k x gemm_column_tile, zero-padded. Otherwise B
 * is row-major with row stride ldb and `columns` a multiple of the column tile, read in place.
 * `c` and `residual` point at row 0 of this tile's first column; rows at or past `rows` are not
 * written.
 */
typedef void (*cnk_gemm_tile_fn)(int64_t k, const float *packed_a, int64_t first_panel,
                                 int64_t panel_count, int64_t rows, const float *b, int64_t ldb,
                                 int64_t columns, float *c, int64_t ldc,
                                 const cnk_epilogue *epilogue);

/*
 * Packs positions start..<start + count of X (k rows of positions, row stride ldx) as panels of
 * gemm_row_tile positions: position r of a panel at step p is at p * gemm_row_tile + r,
 * unspecified past `count` (the kernels never read those lanes). The panels take count rounded
 * up to the row tile, times k, floats; nothing past them is written.
 */
typedef void (*cnk_pack_positions_fn)(const float *x, int64_t k, int64_t ldx, int64_t start,
                                      int64_t count, float *packed);

/*
 * A pointwise (1x1) convolution block computed channel-vectorized: output[m * ldo + r] for
 * channels first_channel..<first_channel + channel_count and packed positions r <
 * position_count. Weights are packed as panels of gemm_column_tile channels (channel j of a
 * panel at step p is at p * gemm_column_tile + j); first_channel is a multiple of the column
 * tile. `output` and the epilogue's residual point at position 0 of this block in channel 0's
 * row; the bias is indexed by channel.
 */
typedef void (*cnk_pointwise_tile_fn)(int64_t k, const float *packed_positions,
                                      int64_t position_count, const float *packed_weights,
                                      int64_t first_channel, int64_t channel_count,
                                      float *output, int64_t ldo, const cnk_epilogue *epilogue);

/*
 * Convolves `planes` consecutive height x width planes, each with its own kernel
 * (kernel_height x kernel_width weights per plane, consecutive) and bias, clamps, and writes
 * output_height x output_width values per plane. Taps outside a plane read zero.
 */
typedef void (*cnk_depthwise_fn)(const float *input, int64_t planes, int64_t height,
                                 int64_t width, const float *weights, const float *bias,
                                 const cnk_window *window, float *output, int64_t output_height,
                                 int64_t output_width, float clamp_min, float clamp_max);

/*
 * c[j] (+)= alpha * sum over p < k of a[p * a_stride] * b[p * ldb + j], for j < n: one row of
 * a matrix product whose B rows are contiguous (a classifier head at batch 1). When
 * `accumulate` is 0, c is overwritten.
 */
typedef void (*cnk_row_times_matrix_fn)(int64_t k, int64_t n, float alpha, const float *a,
                                        int64_t a_stride, const float *b, int64_t ldb, float *c,
                                        int accumulate);

/*
 * Writes im2col columns start..<start + count of a convolution over `channels` planes of
 * height x width as packed B panels of gemm_column_tile columns (row p = channel, ky, kx of the
 * window; column = output y * output_width + output x), zero where a tap falls outside.
 */
typedef void (*cnk_im2col_panels_fn)(const float *input, int64_t channels, int64_t height,
                                     int64_t width, const cnk_window *window,
                                     int64_t output_width, int64_t start, int64_t count,
                                     float *destination);

/*
 * The blocked channel layout (NCHWxc, x = the set's lanes): an image of C channels is
 * ceil(C / lanes) blocks, each a plane of positions x lanes floats (one lane per channel).
 * Lanes past the last channel are zero in every tensor the blocked kernels write.
 */

/*
 * A pointwise (1x1) convolution of one blocked image: output blocks first_block..<first_block +
 * block_count at positions start..<start + count. Weights are [output block][input channel,
 * padded to whole blocks][lanes]; bias is one value per output channel padded to whole blocks.
 * `residual` (or NULL) is a blocked image like the output, added before the clamp.
 */
typedef void (*cnk_pointwise_blocked_fn)(const float *input, int64_t input_channels,
                                         int64_t positions, const float *weights,
                                         const float *bias, int64_t output_channels,
                                         int64_t first_block, int64_t block_count,
                                         int64_t start, int64_t count, const float *residual,
                                         float clamp_min, float clamp_max, float *output,
                                         const cnk_blocked_tiling *tiling);

/*
 * A depthwise convolution of one channel block (`block` of a tensor of `channels` channels):
 * input is its height x width plane, weights [tap][lanes], bias [lanes]; writes output rows
 * first_row..<first_row + row_count. Taps outside the plane read zero.
 */
typedef void (*cnk_depthwise_blocked_fn)(const float *input, int64_t height, int64_t width,
                                         const float *weights, const float *bias, int64_t block,
                                         int64_t channels, const cnk_window *window,
                                         float *output, int64_t output_height,
                                         int64_t output_width, int64_t first_row,
                                         int64_t row_count, float clamp_min, float clamp_max);

/*
 * A convolution (one group) from an NCHW image of few channels into blocked output: blocks
 * first_block..<first_block + block_count, output rows first_row..<first_row + row_count.
 * Weights are [output block][channel][ky][kx][lanes]; bias is padded to whole blocks.
 */
typedef void (*cnk_conv_direct_blocked_fn)(const float *input, int64_t channels, int64_t height,
                                           int64_t width, const float *weights,
                                           const float *bias, int64_t output_channels,
                                           const cnk_window *window, float *output,
                                           int64_t output_height, int64_t output_width,
                                           int64_t first_block, int64_t block_count,
                                           int64_t first_row, int64_t row_count,
                                           float clamp_min, float clamp_max);

/*
 * Linear quantization of `count` floats: round_half_even(x / scale) + zero_point clamped to
 * [low, high] (a NaN gives the zero point), stored as int32: ONNX QuantizeLinear.
 */
typedef void (*cnk_quantize_linear_fn)(const float *input, int64_t count, float scale,
                                       float zero_point, float low, float high, int32_t *output);

/* The same with round_half_even(x * multiplier): integer sums computed in float, requantized
   to an int8 operator's output (the descriptor's requantize_linear). */

/*
 * (x - zero_point) * scale of `count` int32 values, each and the zero point within +/-2^24 (so
 * that their difference is exact in float): ONNX DequantizeLinear of 2- to 16-bit types.
 */
typedef void (*cnk_dequantize_linear_fn)(const int32_t *input, int64_t count, float zero_point,
                                         float scale, float *output);

/* The arithmetic of cnk_binary_fn, one per ONNX operator it serves; booleans are 1 and 0. */
typedef enum cnk_binary_operation {
  CNK_BINARY_ADD = 0,
  CNK_BINARY_SUBTRACT = 1,
  CNK_BINARY_MULTIPLY = 2,
  CNK_BINARY_DIVIDE = 3,
  /* a where a >= 0, else a * b (PRelu). */
  CNK_BINARY_PRELU = 4,
  /* powf(a, b). */
  CNK_BINARY_POWER = 5,
  /* fmodf(a, b): truncated, a's sign (Mod with fmod 1). */
  CNK_BINARY_REMAINDER = 6,
  /* fmodf(a, b) moved to b's sign (Mod with fmod 0). */
  CNK_BINARY_MODULO = 7,
  /* b > a || b is NaN ? b : a. */
  CNK_BINARY_MAXIMUM = 8,
  /* b < a || b is NaN ? b : a. */
  CNK_BINARY_MINIMUM = 9,
  CNK_BINARY_EQUAL = 10,
  CNK_BINARY_LESS = 11,
  CNK_BINARY_GREATER = 12,
  CNK_BINARY_LESS_OR_EQUAL = 13,
  CNK_BINARY_GREATER_OR_EQUAL = 14,
  CNK_BINARY_AND = 15,
  CNK_BINARY_OR = 16,
  CNK_BINARY_XOR = 17,
} cnk_binary_operation;

/*
 * One line of broadcasting arithmetic: y[i] = a[i * a_stride] OP b[i * b_stride], count
 * elements, each operation rounded once as its C expression is (no fused multiply-add). Strides
 * 0 and 1 of add, subtract, multiply, divide and PRelu run in vectors; the rest one value at a
 * time. An unknown operation writes a NaN.
 */
typedef void (*cnk_binary_fn)(int32_t operation, const float *a, int64_t a_stride,
                              const float *b, int64_t b_stride, float *y, int64_t count);

/*
 * A grouped convolution into output block `block` (of a tensor of `channels` channels) whose
 * groups lie within `span` consecutive input blocks: `input` points at the first of them (each
 * a height x width plane of vectors). Weights are [input block of the span][ky][kx][input
 * lane][lanes], zero where an input lane is outside an output lane's group; bias [lanes].
 * Writes output rows first_row..<first_row + row_count. Taps outside the plane read zero.
 */
typedef void (*cnk_grouped_blocked_fn)(const float *input, int64_t height, int64_t width,
                                       int64_t span, const float *weights, const float *bias,
                                       int64_t block, int64_t channels, const cnk_window *window,
                                       float *output, int64_t output_height,
                                       int64_t output_width, int64_t first_row,
                                       int64_t row_count, float clamp_min, float clamp_max);

/* The mean of each of `planes` planes of `count` floats (an NCHW global average pool); 0 for
   empty planes. */
typedef void (*cnk_plane_means_fn)(const float *input, int64_t planes, int64_t count,
                                   float *output);

/* The mean of each channel of one blocked image over its positions, written as C floats. */
typedef void (*cnk_global_average_blocked_fn)(const float *input, int64_t channels,
                                              int64_t positions, float *output);

/*
 * Max pooling of one channel block (its height x width plane of vectors) into output rows
 * first_row..<first_row + row_count of output_width positions. Taps outside the plane are skipped; a window with none
 * inside gives -infinity; NaN wins. Lanes at or past `valid_lanes` are written as zero.
 */
typedef void (*cnk_max_pool_blocked_fn)(const float *input, int64_t height, int64_t width,
                                        const cnk_window *window, float *output,
                                        int64_t output_width, int64_t first_row,
                                        int64_t row_count, int64_t valid_lanes);

/*
 * The input transform of Winograd's F(4x4, 3x3) for a 3x3, stride-1 convolution: B^T d B of
 * each 6x6 input tile d, for tiles first_tile..<first_tile + tile_count of one blocked image.
 * Tiles are row-major over tiles_y x tiles_x (`tiles` in all); tile (ty, tx) reads rows
 * 4 ty - pad_top ..< +6 and columns 4 tx - pad_left ..< +6, zero outside the plane. Point xi
 * (row-major over the 6x6 tile) of tile t, block b, is written at
 * transformed + ((xi * blocks + b) * tiles + t) * lanes: 36 blocked images of `tiles` positions,
 * ready for the blocked pointwise kernel.
 */
typedef void (*cnk_winograd_input_fn)(const float *input, int64_t channels, int64_t height,
                                      int64_t width, int64_t pad_top, int64_t pad_left,
                                      int64_t tiles_x, int64_t tiles, int64_t first_tile,
                                      int64_t tile_count, float *transformed);

/*
 * The output transform of Winograd's F(4x4, 3x3): A^T m A of the 36 products of each tile
 * (laid out as cnk_winograd_input_fn writes them, with the output's channels), plus bias (padded
 * to whole blocks) and `residual` (a blocked image like the output, or NULL), clamped, written
 * where the tile's 4x4 positions fall inside the blocked output; lanes past the last channel
 * are zero.
 */
typedef void (*cnk_winograd_output_fn)(const float *transformed, int64_t channels,
                                       int64_t tiles_x, int64_t tiles, const float *bias,
                                       const float *residual, float clamp_min, float clamp_max,
                                       float *output, int64_t output_height,
                                       int64_t output_width, int64_t first_tile,
                                       int64_t tile_count);

/* The element-wise functions cnk_activate_fn computes (cnk_activation.kind). */
enum {
  CNK_ACTIVATION_IDENTITY = 0,
  /* min(max(x, low), high): ReLU, ReLU6, Clip; NaN stays NaN. */
  CNK_ACTIVATION_CLAMP = 1,
  /* 1 / (1 + e^-x). */
  CNK_ACTIVATION_SIGMOID = 2,
  /* x * sigmoid(x) (Swish). */
  CNK_ACTIVATION_SILU = 3,
  /* max(0, min(1, alpha * x + beta)). */
  CNK_ACTIVATION_HARD_SIGMOID = 4,
  /* x * max(0, min(1, x / 6 + 1 / 2)). */
  CNK_ACTIVATION_HARD_SWISH = 5,
  CNK_ACTIVATION_TANH = 6,
  CNK_ACTIVATION_ERF = 7,
  /* x * Phi(x), the normal CDF from erf. */
  CNK_ACTIVATION_GELU = 8,
  /* GELU with tanh's approximation of Phi. */
  CNK_ACTIVATION_GELU_TANH = 9,
  /* x * tanh(softplus(x)). */
  CNK_ACTIVATION_MISH = 10,
  CNK_ACTIVATION_EXP = 11,
};

/* One element-wise function: its kind and the parameters it reads (alpha and beta for hard
   sigmoid, low and high for the clamp). Results are within a few ulp of the C library's
   functions (erf: 1.5e-7 absolute); every set computes the same formula. */
typedef struct cnk_activation {
  int32_t kind;
  float alpha, beta;
  float low, high;
} cnk_activation;

/* y[i] = f(x[i]) for i < count; x may be y. An unknown kind copies. */
typedef void (*cnk_activate_fn)(const cnk_activation *activation, const float *x, float *y,
                                int64_t count);

/* Applies f in place to `positions` consecutive vectors of the set's lanes (one channel block
   of a blocked image) and writes lanes at or past `valid_lanes` as zero, as the blocked layout
   keeps its padding channels. */
typedef void (*cnk_activate_blocked_fn)(const cnk_activation *activation, float *values,
                                        int64_t positions, int64_t valid_lanes);

/* Packs rows 0..<rows of a row-major matrix A (k columns, row stride lda) times `scale` as the
   GEMM's A panels (gemm_row_tile rows each: element (row, p) of a panel at p * gemm_row_tile +
   row % gemm_row_tile), zero past the last row. */
typedef void (*cnk_pack_rows_fn)(const float *a, int64_t rows, int64_t k, int64_t lda,
                                 float scale, float *packed);

/* Layer normalization of `rows` lines of `length` floats (ONNX LayerNormalization): each line
   minus its mean (taken as 0 without `centering`: RMS normalization), times 1 / sqrt(variance +
   epsilon) (two passes over the line), times scale[i] (1 when NULL), plus bias[i] (0 when
   NULL). mean and inverse_deviation, when not NULL, receive one value per line. */
typedef void (*cnk_layer_norm_fn)(const float *x, int64_t rows, int64_t length, float epsilon,
                                  const float *scale, const float *bias, float *y, float *mean,
                                  float *inverse_deviation, int centering);

/* Multiplies one channel block of a blocked image (`positions` vectors of the set's lanes) by
   one factor per lane (`scales`, one vector: a squeeze-excitation gate's block). input may be
   output. */
typedef void (*cnk_scale_blocked_fn)(const float *input, const float *scales, int64_t positions,
                                     float *output);

/* The softmax of each of `rows` consecutive lines of `length` floats: exp(x - max) / sum, with
   the set's exp; a line holding NaN gives NaN. x may be y. */
typedef void (*cnk_softmax_fn)(const float *x, float *y, int64_t rows, int64_t length);

/*
 * Similarity search (feature-print indexes): stored vectors are rows of `dimensions` values,
 * `stride` elements apart, as IEEE half floats (binary16 bits) or as int8 with one scale per row.
 * Products are summed in float with the set's fused multiply-add, in vector partial sums, so
 * sets differ in the last bits only.
 */

/* scores[i] = sum over d < dimensions of query[d] * half(rows[i * stride + d]), i < count. */
typedef void (*cnk_dot_half_fn)(const float *query, const uint16_t *rows, int64_t count,
                                int64_t dimensions, int64_t stride, float *scores);

/* scores[i] = scales[i] * sum over d < dimensions of query[d] * rows[i * stride + d]. */
typedef void (*cnk_dot_int8_fn)(const float *query, const int8_t *rows, int64_t count,
                                int64_t dimensions, int64_t stride, const float *scales,
                                float *scores);

/* y[i] = x[i] as a half float (round to nearest even; beyond the half range: infinity). */
typedef void (*cnk_to_half_fn)(const float *x, int64_t count, uint16_t *y);

/* y[i] = clamp(round_half_even(x[i] * multiplier), -127, 127); NaN gives 0. */
typedef void (*cnk_to_int8_fn)(const float *x, int64_t count, float multiplier, int8_t *y);

/*
 * The `k` largest of `count` scores, best first (equal scores: the smaller index first), into
 * indices and values; a NaN score and a row whose `allowed` byte is 0 (when allowed is not NULL)
 * are never chosen. Returns how many were written: min(k, the rows that may be chosen).
 * Time O(count log k), no allocation: the output arrays are the heap while it runs.
 */
int64_t cnk_top_k(const float *scores, int64_t count, const uint8_t *allowed, int64_t k,
                  int64_t *indices, float *values);

/*
 * Int8 kernels (quantized inference). Quantized activations are held as UINT8 in channels-last
 * images: the channels of one position are consecutive, positions `stride` bytes apart (stride
 * >= channels rounded up to 4; the engine uses channels rounded up to 16). A signed int8 tensor
 * is held shifted by 128 (stored = value + 128, zero point + 128), which is exact, so every
 * kernel multiplies UNSIGNED activations by SIGNED int8 weights. Sums are exact int32 (no
 * saturation anywhere, whatever the weights: -128...127 and activations 0...255), and every
 * variant of every set gives bit-identical outputs (the float steps are the same operations in
 * the same order).
 */

/* Turns int32 sums into uint8 outputs, per output channel n:
 *   y = clamp(round_half_even((float)(sum + bias[n]) * scale[n]) + zero_point, minimum, maximum)
 * where (float) is the round-to-nearest int32 -> float conversion (cvtdq2ps) and the product is
 * one float multiply (ONNX Runtime's MlasRequantizeOutput computes exactly this). The kernels
 * clamp the product to [minimum - zero_point, maximum - zero_point] before rounding, which gives
 * the same bytes and never overflows a conversion; a NaN product (a NaN scale) gives minimum. */
typedef struct cnk_requantization {
  const int32_t *bias;   /* one per output channel (the engine folds zero-point terms in) */
  const float *scale;    /* one per output channel */
  int32_t zero_point;    /* 0...255 */
  int32_t minimum;       /* 0...255, minimum <= maximum: the fused activation's clamp */
  int32_t maximum;
} cnk_requantization;

/* Bytes the packed form of a [columns][k] int8 weight matrix takes in this set. */
typedef int64_t (*cnk_qgemm_packed_bytes_fn)(int64_t columns, int64_t k);

/* Packs weights w (row n = output channel n, k values, row stride ldw) into `packed`
 * (qgemm_packed_bytes(columns, k) bytes, 64-byte aligned by the caller). The layout is the
 * variant's own (it may store per-column sums the kernel needs, e.g. NEON's sdot compensation,
 * or per-block forms, e.g. AVX2's), so weights are packed by the variant that runs them. */
typedef void (*cnk_qgemm_pack_fn)(const int8_t *w, int64_t columns, int64_t k, int64_t ldw,
                                  void *packed);

/* For rows r < rows and columns n < columns:
 *   c[r * ldc + n] = requantize(sum over p < k of a[r * lda + p] * w[n][p])
 * `a` rows may be read up to k rounded up to 4 bytes (the caller guarantees those bytes are
 * readable; they meet zero weights); nothing at or past column `columns` of c is written.
 * rows is any count >= 0 (the caller splits rows across threads). */
typedef void (*cnk_qgemm_fn)(int64_t rows, int64_t k, const uint8_t *a, int64_t lda,
                             const void *packed, int64_t columns,
                             const cnk_requantization *requantization, uint8_t *c, int64_t ldc);

/* Bytes the packed depthwise weights of `channels` channels of `taps` taps take
 * (taps <= CNK_QDEPTHWISE_MAX_TAPS). */
typedef int64_t (*cnk_qdepthwise_packed_bytes_fn)(int64_t channels, int64_t taps);

/* Packs depthwise weights w ([channel][tap], ONNX order: taps = kernel_height * kernel_width,
 * row-major) into the variant's layout (qdepthwise_packed_bytes(channels, taps) bytes, 64-byte
 * aligned by the caller). */
typedef void (*cnk_qdepthwise_pack_fn)(const int8_t *w, int64_t channels, int64_t taps,
                                       void *packed);

/* The most taps (kernel_height * kernel_width) a qdepthwise call takes (an 8 x 8 kernel). */
#define CNK_QDEPTHWISE_MAX_TAPS 64

/* Depthwise convolution of a channels-last uint8 image (height x width positions, `channels`
 * channels, input positions input_stride bytes apart), output rows first_row..<first_row +
 * row_count of an output_height x output_width image (positions output_stride bytes apart):
 *   out[(y, x), c] = requantize(sum over taps of in[(iy, ix), c] * w[c][tap])
 * where a tap outside the image reads `input_zero_point` (so it contributes zero once the
 * engine's bias folds -input_zero_point * sum(w[c])). Any window (kernel, stride, dilation,
 * padding) with at most CNK_QDEPTHWISE_MAX_TAPS taps; 3x3 and 5x5 without dilation are the
 * fast ones. Reads only the `channels` bytes of each input position; writes only the `channels`
 * bytes of each output position. */
typedef void (*cnk_qdepthwise_fn)(const uint8_t *input, int64_t height, int64_t width,
                                  int64_t channels, int64_t input_stride, const void *packed,
                                  int32_t input_zero_point, const cnk_window *window,
                                  const cnk_requantization *requantization, uint8_t *output,
                                  int64_t output_height, int64_t output_width,
                                  int64_t output_stride, int64_t first_row, int64_t row_count);

/* Element-wise sum of two uint8 tensors (QLinearAdd), count elements:
 *   y = clamp(round_half_even(a * a_scale + b * b_scale + offset), minimum, maximum)
 * in float, each operation rounded in this order: (a * a_scale + b * b_scale) + offset, no
 * fused multiply-add (the engine precomputes a_scale = sa / sy, b_scale = sb / sy,
 * offset = zy - za * a_scale - zb * b_scale; minimum/maximum 0...255). */
typedef void (*cnk_qadd_fn)(const uint8_t *a, const uint8_t *b, int64_t count, float a_scale,
                            float b_scale, float offset, int32_t minimum, int32_t maximum,
                            uint8_t *y);

/* Quantizes floats as QuantizeLinear does: y = clamp(round_half_even(x / scale) + zero_point,
 * minimum, maximum), count elements, a true division; NaN gives zero_point clamped. */
typedef void (*cnk_quantize_fn)(const float *x, int64_t count, float scale, int32_t zero_point,
                                int32_t minimum, int32_t maximum, uint8_t *y);

/* Maps bytes through a table (QuantizedLookup, an element-wise region of a quantized model
 * tabulated): y[i] = table[x[i]], count elements; y may be x. */
typedef void (*cnk_lookup_fn)(const uint8_t *x, int64_t count, const uint8_t *table, uint8_t *y);

/* Per-channel affine map of a channels-last image (QLinearMul by a per-channel tensor, such as
 * a squeeze-excitation gate): for each of `positions` rows of `channels` bytes, `stride` bytes
 * apart,
 *   y[p * stride + c] = clamp(round_half_even(x[p * stride + c] * scale[c] + offset[c]),
 *                             minimum, maximum)
 * each operation rounded in this order, no fused multiply-add. Writes only the `channels` bytes
 * of each row; y may be x. */
typedef void (*cnk_qscale_channels_fn)(const uint8_t *x, int64_t positions, int64_t channels,
                                       int64_t stride, const float *scale, const float *offset,
                                       int32_t minimum, int32_t maximum, uint8_t *y);

/* Quantizes positions first..<first + count of a blocked float image (`lanes` channels per
 * block, blocks of `positions` vectors) into channels-last bytes, `stride` bytes a position:
 * y[p * stride + c] = clamp(round_half_even(x / scale) + zero_point, minimum, maximum), a true
 * division, NaN giving zero_point clamped. Writes only the `channels` bytes of each position. */
typedef void (*cnk_quantize_blocked_fn)(const float *x, int64_t lanes, int64_t channels,
                                        int64_t positions, int64_t first, int64_t count,
                                        float scale, int32_t zero_point, int32_t minimum,
                                        int32_t maximum, uint8_t *y, int64_t stride);

/* Sums each channel of a channels-last image over its positions (QLinearGlobalAveragePool):
 * for `positions` rows of `channels` bytes, `stride` bytes apart,
 *   sums[c] = sum over p of x[p * stride + c]
 * exact in int32: the engine calls it with positions * 255 <= INT32_MAX. */
typedef void (*cnk_channel_sums_fn)(const uint8_t *x, int64_t positions, int64_t channels,
                                    int64_t stride, int32_t *sums);

/* One int8 variant's entry points, all non-NULL: what a set's int8 entry chooses for this CPU
 * (AVX-512 + VNNI, AVX-VNNI, AVX2, NEON with or without dot product, portable). Every variant
 * computes the same bytes; only the packed layouts differ between variants. */
typedef struct cnk_int8_kernels {
  /* "avx512-vnni", "avx-vnni", "avx2", "neon-dotprod", "neon", "portable" */
  const char *name;
  cnk_qgemm_packed_bytes_fn qgemm_packed_bytes;
  cnk_qgemm_pack_fn qgemm_pack;
  cnk_qgemm_fn qgemm;
  cnk_qdepthwise_packed_bytes_fn qdepthwise_packed_bytes;
  cnk_qdepthwise_pack_fn qdepthwise_pack;
  cnk_qdepthwise_fn qdepthwise;
  cnk_qadd_fn qadd;
  cnk_quantize_fn quantize;
  cnk_lookup_fn lookup;
  cnk_qscale_channels_fn qscale_channels;
  cnk_quantize_blocked_fn quantize_blocked;
  cnk_channel_sums_fn channel_sums;
} cnk_int8_kernels;

/* One kernel set: its geometry and every entry point, all non-NULL. */
typedef struct cnk_kernel_set {
  /* "portable", "avx512", "avx2" or "neon". */
  const char *name;
  /* Floats per vector register, and channels per block of the blocked layout. */
  int64_t lanes;
  /* Rows (packed A panel height) and columns (packed B panel width) of a GEMM micro-tile. */
  int64_t gemm_row_tile;
  int64_t gemm_column_tile;
  /* Vector accumulators a blocked pointwise tile may hold (blocks x positions). */
  int64_t pointwise_accumulators;
  /* The blocked pointwise tilings the set prefers: for planes whose size is a multiple of 7
     (every plane of a 224-input EfficientNet or MobileNet), and for any other. */
  cnk_blocked_tiling pointwise_tiling_sevens;
  cnk_blocked_tiling pointwise_tiling_other;
  cnk_gemm_tile_fn gemm_tile;
  cnk_pack_positions_fn pack_positions;
  cnk_pointwise_tile_fn pointwise_tile;
  cnk_depthwise_fn depthwise;
  cnk_row_times_matrix_fn row_times_matrix;
  cnk_im2col_panels_fn im2col_panels;
  cnk_pointwise_blocked_fn pointwise_blocked;
  cnk_depthwise_blocked_fn depthwise_blocked;
  cnk_conv_direct_blocked_fn conv_direct_blocked;
  cnk_grouped_blocked_fn grouped_blocked;
  cnk_global_average_blocked_fn global_average_blocked;
  cnk_max_pool_blocked_fn max_pool_blocked;
  cnk_winograd_input_fn winograd_input;
  cnk_winograd_output_fn winograd_output;
  cnk_activate_fn activate;
  cnk_activate_blocked_fn activate_blocked;
  cnk_softmax_fn softmax;
  cnk_scale_blocked_fn scale_blocked;
  cnk_layer_norm_fn layer_norm;
  cnk_pack_rows_fn pack_rows;
  cnk_quantize_linear_fn quantize_linear;
  cnk_quantize_linear_fn requantize_linear;
  cnk_dequantize_linear_fn dequantize_linear;
  cnk_binary_fn binary;
  cnk_plane_means_fn plane_means;
  cnk_dot_half_fn dot_half;
  cnk_dot_int8_fn dot_int8;
  cnk_to_half_fn to_half;
  cnk_to_int8_fn to_int8;
  /* The best int8 entry points of this set on this CPU (never NULL). */
  const cnk_int8_kernels *(*int8)(void);
} cnk_kernel_set;

/* The portable set (4-float vectors, baseline instructions): on every CPU, never NULL. */
const cnk_kernel_set *cnk_kernel_set_portable(void);
/* The AVX-512F set when this is x86-64 and the CPU and OS support it, else NULL. */
const cnk_kernel_set *cnk_kernel_set_avx512(void);
/* The AVX2 + FMA (+ F16C) set when this is x86-64 and the CPU and OS support it, else NULL. */
const cnk_kernel_set *cnk_kernel_set_avx2(void);
/* The NEON set on aarch64 (where NEON is baseline), else NULL. */
const cnk_kernel_set *cnk_kernel_set_neon(void);

/*
 * One int8 variant by name ("avx512-vnni", "avx-vnni", "avx2", "neon-dotprod", "neon",
 * "portable") when this build and CPU run it, else NULL: for tests and benchmarks that compare
 * variants, or to force one (a set's int8 entry already returns the best of that set; the
 * AVX-512 set's falls back to AVX-VNNI, then AVX2, on a CPU without AVX-512 VNNI).
 */
const cnk_int8_kernels *cnk_int8_kernels_variant(const char *name);

/* Copies blocks first_block..<first_block + block_count of an NCHW image into blocked layout
   with `lanes` channels per block. */
void cnk_to_blocked(const float *input, int64_t channels, int64_t positions, int64_t lanes,
                    int64_t first_block, int64_t block_count, float *output);

/* Copies blocks first_block..<first_block + block_count of a blocked image (`lanes` channels
   per block) back to NCHW. */
void cnk_from_blocked(const float *input, int64_t channels, int64_t positions, int64_t lanes,
                      int64_t first_block, int64_t block_count, float *output);

/* Copies positions first_position..<first_position + count of a blocked image (`lanes`
   channels per block) to channels-last order (NHWC: `channels` floats per position). */
void cnk_blocked_to_channels_last(const float *input, int64_t channels, int64_t positions,
                                  int64_t lanes, int64_t first_position, int64_t count,
                                  float *output);

/* Copies blocks first_block..<first_block + block_count of a channels-last image (NHWC:
   `channels` floats per position) into blocked layout, zeroing the lanes past the last
   channel. */
void cnk_channels_last_to_blocked(const float *input, int64_t channels, int64_t positions,
                                  int64_t lanes, int64_t first_block, int64_t block_count,
                                  float *output);

#endif
