/*
 * Every int8 kernel of a variant, written once over the vector API the including file defines
 * (int8_avx512.c, int8_avx2.c, int8_avx_vnni.c, int8_neon.c, int8_neon_dotprod.c,
 * int8_portable.c). Included once per translation unit on purpose: no include guard.
 *
 * The including file defines TARGET, INLINE, VARIANT_NAME and VARIANT(name) (the descriptor's
 * name), and:
 *   VL               int32 lanes of a vector: columns of a packed block, channels of a step;
 *   MR, NV           a qgemm tile's most rows and most vectors of columns;
 *   TWO_FORMS        (a macro, defined or not) when block_form picks one of two packed
 *                    weight forms per block (else every block has form 0);
 *   WEIGHT_BYTES     bytes per packed weight in the widest form;
 *   ACTIVATION_BIAS  what the dot product subtracts from every activation (0, or 128 for
 *                    signed dot products), put back through per-column sums stored at pack
 *                    time;
 *   DW               channels of a depthwise block (VL, or 2 VL when dw_column widens to
 *                    int16 pairs in place and dw_sums restores the channel order);
 *   DW_SLIDE_GROUP   (a macro, defined or not) when rows of 3x3 and 5x5 depthwise kernels
 *                    slide: that many outputs share each input column's widened pairs (their
 *                    accumulators in registers); without it each position widens its taps,
 *                    which is faster where widening is cheap (ymm, NEON);
 *   vi, vf           VL int32 / VL floats;
 *   va, vw           one row's 4 activation bytes (broadcast), one block's weights of 4 k;
 *   bounds           what round_clamp needs (float limits, zero point);
 *   vi_zero, vi_add, vi_load_part, vf_load_part, vf_load_u8, vf_from_vi, vf_set1, vf_mul,
 *   vf_add, vf_zero_nan, bounds_of, round_clamp, store_u8, a_load, w_load, dot4, store_group,
 *   block_form (TWO_FORMS only), and for depthwise vd, vcol, vacc, dw_slot, dw_weights,
 *   dw_zero, dw_column, dw_madd and dw_sums, and lookup_vectors (the table lookups the
 *   variant does in vectors, returning how many bytes it did), documented where each file
 *   defines them.
 *
 * Every variant rounds alike: an int32 sum becomes a float (round to nearest), one multiply
 * (no fused operation anywhere), clamped to [minimum - zero_point, maximum - zero_point] with
 * x86 maxps/minps semantics (a NaN becomes the lower limit), rounded half to even, plus the
 * zero point. Clamping before rounding equals clamping after (the limits are integers), and
 * no conversion overflows.
 */

#include <string.h>

/* Bytes of one group (4 k) of one packed qgemm block, in every form of the variant. */
enum { GROUP_BYTES = VL * 4 * WEIGHT_BYTES, DW_MAX_TAPS = CNK_QDEPTHWISE_MAX_TAPS };

/* MARK: qgemm */

/* The packed weights: a header of per-column int32 sums times ACTIVATION_BIAS and one form
   byte per block, then `blocks` blocks of VL columns, each `groups` groups of 4 k in the
   block's form (zero past k and past the last column). */
typedef struct qgemm_layout {
  int64_t blocks, groups, block_bytes, header;
} qgemm_layout;

static qgemm_layout qgemm_layout_of(int64_t columns, int64_t k) {
  qgemm_layout layout;
  layout.blocks = (columns + VL - 1) / VL;
  layout.groups = (k + 3) / 4;
  layout.block_bytes = layout.groups * GROUP_BYTES;
  layout.header = (layout.blocks * VL * 4 + layout.blocks + 63) / 64 * 64;
  return layout;
}

static int64_t qgemm_packed_bytes(int64_t columns, int64_t k) {
  qgemm_layout layout = qgemm_layout_of(columns, k);
  return layout.header + layout.blocks * layout.block_bytes;
}

/* Packs the `count` columns of one block starting at w (k weights each, ldw apart). */
static void qgemm_pack_block(const int8_t *w, int64_t count, int64_t k, int64_t ldw, int form,
                             int64_t groups, int8_t *block) {
  for (int64_t g = 0; g < groups; g++) {
    int8_t lanes[VL][4] = {{0}};
    for (int64_t lane = 0; lane < count; lane++) {
      for (int64_t i = 0; i < 4 && 4 * g + i < k; i++) lanes[lane][i] = w[lane * ldw + 4 * g + i];
    }
    store_group(block + g * GROUP_BYTES, lanes, form);
  }
}

static void qgemm_pack(const int8_t *w, int64_t columns, int64_t k, int64_t ldw, void *packed) {
  qgemm_layout layout = qgemm_layout_of(columns, k);
  uint8_t *bytes = packed;
  int32_t *sums = packed;
  uint8_t *forms = bytes + layout.blocks * VL * 4;
  memset(packed, 0, (size_t)layout.header);
  for (int64_t n = 0; n < columns; n++) {
    int32_t sum = 0;
    for (int64_t p = 0; p < k; p++) sum += w[n * ldw + p];
    sums[n] = ACTIVATION_BIAS * sum;
  }
  for (int64_t b = 0; b < layout.blocks; b++) {
    int64_t first = b * VL, count = columns - first < VL ? columns - first : VL;
#if defined(TWO_FORMS)
    int form = block_form(w + first * ldw, count, k, ldw);
#else
    int form = 0;
#endif
    forms[b] = (uint8_t)form;
    qgemm_pack_block(w + first * ldw, count, k, ldw, form, layout.groups,
                     (int8_t *)(bytes + layout.header + b * layout.block_bytes));
  }
}

/* What every tile of one qgemm call shares. */
typedef struct qgemm_call {
  const uint8_t *a;
  int64_t lda;
  const uint8_t *blocks;
  const uint8_t *forms;
  const int32_t *sums;
  qgemm_layout layout;
  int64_t columns;
  const cnk_requantization *requantization;
  bounds limits;
  uint8_t *c;
  int64_t ldc;
} qgemm_call;

/* The columns of block `block` that exist (VL, or fewer in the last block). */
static inline int64_t block_columns(const qgemm_call *call, int64_t block) {
  int64_t rest = call->columns - block * VL;
  return rest < VL ? rest : VL;
}

/* Requantizes and writes a tile's accumulators (which started at the bias): `vectors` blocks
   from `block` of `rows` rows from `row`. */
TARGET INLINE void qgemm_store(const int rows, const int vectors, const qgemm_call *call,
                               int64_t row, int64_t block, vi accumulators[MR][NV]) {
  for (int v = 0; v < vectors; v++) {
    int64_t n = (block + v) * VL, count = block_columns(call, block + v);
    vf scale = vf_load_part(call->requantization->scale + n, count);
    for (int r = 0; r < rows; r++) {
      vf x = vf_mul(vf_from_vi(accumulators[r][v]), scale);
      store_u8(call->c + (row + r) * call->ldc + n, round_clamp(x, call->limits), count);
    }
  }
}

/* One register tile: rows x vectors accumulators over all of k, in one weight form (all three
   are constants once inlined, so the accumulators live in registers). The accumulators start
   at the bias (plus the dot product's correction), which saves an add per output vector. */
TARGET INLINE void qgemm_tile(const int rows, const int vectors, const int form,
                              const qgemm_call *call, int64_t row, int64_t block) {
  vi accumulators[MR][NV];
  for (int v = 0; v < vectors; v++) {
    int64_t n = (block + v) * VL, count = block_columns(call, block + v);
    vi start = vi_load_part(call->requantization->bias + n, count);
    if (ACTIVATION_BIAS) start = vi_add(start, vi_load_part(call->sums + n, count));
    for (int r = 0; r < rows; r++) accumulators[r][v] = start;
  }
  const uint8_t *a = call->a + row * call->lda;
  const int8_t *w = (const int8_t *)(call->blocks + block * call->layout.block_bytes);
  int64_t block_bytes = call->layout.block_bytes;
  for (int64_t g = 0; g < call->layout.groups; g++) {
    vw weights[NV];
    for (int v = 0; v < vectors; v++) {
      weights[v] = w_load(w + v * block_bytes + g * GROUP_BYTES, form);
    }
    for (int r = 0; r < rows; r++) {
      va x = a_load(a + r * call->lda + 4 * g);
      for (int v = 0; v < vectors; v++) {
        accumulators[r][v] = dot4(accumulators[r][v], x, weights[v], form);
      }
    }
  }
  qgemm_store(rows, vectors, call, row, block, accumulators);
}

TARGET INLINE void qgemm_tile_form(const int rows, const int vectors, int form,
                                   const qgemm_call *call, int64_t row, int64_t block) {
#if defined(TWO_FORMS)
  if (form) {
    qgemm_tile(rows, vectors, 1, call, row, block);
    return;
  }
#else
  (void)form;
#endif
  qgemm_tile(rows, vectors, 0, call, row, block);
}

/* One strip of `rows` rows across every column: runs of up to NV blocks of one form. */
TARGET INLINE void qgemm_strip(const int rows, const qgemm_call *call, int64_t row) {
  int64_t blocks = call->layout.blocks;
  for (int64_t block = 0; block < blocks;) {
    int form = call->forms[block];
    int vectors = 1;
    while (vectors < NV && block + vectors < blocks && call->forms[block + vectors] == form)
      vectors++;
    switch (vectors) {
#define VECTORS_CASE(V)                                                                            \
  case V:                                                                                          \
    if (V <= NV) qgemm_tile_form(rows, V, form, call, row, block);                                 \
    break;
      VECTORS_CASE(1)
      VECTORS_CASE(2)
      VECTORS_CASE(3)
      VECTORS_CASE(4)
#undef VECTORS_CASE
    }
    block += vectors;
  }
}

/* A strip of 1...MR rows (one instantiation per count, so partial strips stay in registers). */
TARGET static void qgemm_rows(int rows, const qgemm_call *call, int64_t row) {
  switch (rows) {
#define ROWS_CASE(R)                                                                               \
  case R:                                                                                          \
    if (R <= MR) qgemm_strip(R, call, row);                                                        \
    break;
    ROWS_CASE(1)
    ROWS_CASE(2)
    ROWS_CASE(3)
    ROWS_CASE(4)
    ROWS_CASE(5)
    ROWS_CASE(6)
    ROWS_CASE(7)
    ROWS_CASE(8)
#undef ROWS_CASE
  }
}

TARGET static void qgemm(int64_t rows, int64_t k, const uint8_t *a, int64_t lda,
                         const void *packed, int64_t columns,
                         const cnk_requantization *requantization, uint8_t *c, int64_t ldc) {
  qgemm_layout layout = qgemm_layout_of(columns, k);
  const uint8_t *bytes = packed;
  qgemm_call call = {
      .a = a,
      .lda = lda,
      .blocks = bytes + layout.header,
      .forms = bytes + layout.blocks * VL * 4,
      .sums = packed,
      .layout = layout,
      .columns = columns,
      .requantization = requantization,
      .limits = bounds_of(requantization->zero_point, requantization->minimum,
                          requantization->maximum),
      .c = c,
      .ldc = ldc,
  };
  for (int64_t row = 0; row < rows; row += MR) {
    qgemm_rows(rows - row < MR ? (int)(rows - row) : MR, &call, row);
  }
}

/* MARK: qdepthwise */

/* Which taps one int16 pair of weights multiplies. Where rows slide, a 3x3 or 5x5 kernel (9 or
   25 taps) pairs down its columns, so a run of outputs can reuse a column's widened pairs:
   pair kx * row_pairs + p holds rows 2p and 2p + 1 of column kx (the last row of an odd column
   alone). Any other kernel, or any kernel where rows do not slide, pairs taps in order. A
   missing second tap is -1. */
#if defined(DW_SLIDE_GROUP)
static int64_t kernel_side(int64_t taps) { return taps == 9 ? 3 : taps == 25 ? 5 : 0; }
#else
static int64_t kernel_side(int64_t taps) {
  (void)taps;
  return 0;
}
#endif
static int64_t row_pairs(int64_t side) { return (side + 1) / 2; }

static int64_t pair_count(int64_t taps) {
  int64_t side = kernel_side(taps);
  return side ? side * row_pairs(side) : (taps + 1) / 2;
}

static int64_t paired_tap(int64_t taps, int64_t pair, int64_t which) {
  int64_t side = kernel_side(taps);
  if (!side) return 2 * pair + which < taps ? 2 * pair + which : -1;
  int64_t row = 2 * (pair % row_pairs(side)) + which;
  return row < side ? row * side + pair / row_pairs(side) : -1;
}

/* Packed depthwise weights: blocks of DW channels, each pair_count(taps) pairs, each DW int16
   pairs (first tap, second tap) in the variant's slot order (dw_slot); zero for a missing
   tap or past the last channel. */
static int64_t qdepthwise_packed_bytes(int64_t channels, int64_t taps) {
  return (channels + DW - 1) / DW * pair_count(taps) * DW * 2 * (int64_t)sizeof(int16_t);
}

static void qdepthwise_pack(const int8_t *w, int64_t channels, int64_t taps, void *packed) {
  int16_t *out = packed;
  int64_t blocks = (channels + DW - 1) / DW, pairs = pair_count(taps);
  for (int64_t b = 0; b < blocks; b++) {
    for (int64_t i = 0; i < pairs; i++, out += DW * 2) {
      for (int64_t lane = 0; lane < DW; lane++) {
        for (int64_t j = 0; j < 2; j++) {
          int64_t c = b * DW + lane, t = paired_tap(taps, i, j);
          out[dw_slot(lane) * 2 + j] = (int16_t)(c < channels && t >= 0 ? w[c * taps + t] : 0);
        }
      }
    }
  }
}

/* What every position of one qdepthwise call shares. */
typedef struct depthwise_call {
  const uint8_t *input;
  int64_t height, width, channels, input_stride;
  int64_t output_width, output_stride;
  const int16_t *weights;
  const cnk_window *window;
  int64_t taps;
  const uint8_t *padding;
  const cnk_requantization *requantization;
  bounds limits;
} depthwise_call;

/* Where the taps of a run of output positions read, in pair order: tap slot u (2 * pair +
   which) of position x reads channel c at source[u] + ((x * step + c) & keep[u]). A tap outside
   the image reads `padding` (the zero point) with keep 0; a missing second tap repeats the
   first (its weights are zero). */
typedef struct tap_sources {
  const uint8_t *source[DW_MAX_TAPS + 1];
  int64_t keep[DW_MAX_TAPS + 1];
  int64_t step;
} tap_sources;

/* The taps of output position (oy, ox); `step` is the input distance to the next position. */
static void gather_taps(const depthwise_call *call, int64_t oy, int64_t ox, int64_t step,
                        tap_sources *taps) {
  const cnk_window *w = call->window;
  const uint8_t *source[DW_MAX_TAPS];
  for (int64_t t = 0; t < call->taps; t++) {
    int64_t y = oy * w->stride_y + t / w->kernel_width * w->dilation_y - w->pad_top;
    int64_t x = ox * w->stride_x + t % w->kernel_width * w->dilation_x - w->pad_left;
    int inside = y >= 0 && y < call->height && x >= 0 && x < call->width;
    source[t] = inside ? call->input + (y * call->width + x) * call->input_stride : 0;
  }
  for (int64_t u = 0; u < 2 * pair_count(call->taps); u++) {
    int64_t t = paired_tap(call->taps, u / 2, u % 2);
    t = t >= 0 ? t : paired_tap(call->taps, u / 2, 0);
    taps->source[u] = source[t] ? source[t] : call->padding;
    taps->keep[u] = source[t] ? -1 : 0;
  }
  taps->step = step;
}

/* The requantization of one block: bias and scale of its DW channels, in channel order. */
typedef struct block_requantization {
  vi bias[DW / VL];
  vf scale[DW / VL];
  int64_t count[DW / VL];
} block_requantization;

TARGET INLINE block_requantization block_requantization_of(const cnk_requantization *q,
                                                          int64_t c, int64_t channels) {
  block_requantization block;
  for (int v = 0; v < DW / VL; v++) {
    block.count[v] = channels - v * VL < 0 ? 0 : channels - v * VL;
    block.bias[v] = vi_load_part(q->bias + c + v * VL, block.count[v]);
    block.scale[v] = vf_load_part(q->scale + c + v * VL, block.count[v]);
  }
  return block;
}

/* Requantizes one position's block sums and writes its channels. */
TARGET INLINE void dw_store(vacc sum, const block_requantization *block, bounds limits,
                            uint8_t *out) {
  vi sums[DW / VL];
  dw_sums(sum, sums);
  for (int v = 0; v < DW / VL; v++) {
    vf value = vf_mul(vf_from_vi(vi_add(sums[v], block->bias[v])), block->scale[v]);
    store_u8(out + v * VL, round_clamp(value, limits), block->count[v]);
  }
}

/* `count` positions of a run (out_step bytes apart) that share tap sources, one block of
   `channels` channels (at most DW) from channel c. `tap_count` and `inside` (every tap in the
   image: no keep masks) are constants once inlined, so the pairs unroll. */
TARGET INLINE void qdepthwise_block(const int64_t tap_count, const int inside,
                                    const depthwise_call *call, const tap_sources *taps,
                                    int64_t count, int64_t c, int64_t channels, uint8_t *out,
                                    int64_t out_step) {
  int64_t pairs = pair_count(tap_count);
  const int16_t *weights = call->weights + c * pairs * 2;
  block_requantization block = block_requantization_of(call->requantization, c, channels);
  for (int64_t x = 0; x < count; x++) {
    int64_t offset = x * taps->step + c;
    vacc sum = dw_zero();
    for (int64_t u = 0; u < 2 * pairs; u += 2) {
      int64_t first_offset = inside ? offset : offset & taps->keep[u];
      int64_t second_offset = inside ? offset : offset & taps->keep[u + 1];
      vcol column = dw_column(taps->source[u] + first_offset,
                              taps->source[u + 1] + second_offset, channels);
      sum = dw_madd(sum, column, dw_weights(weights + u * DW));
    }
    dw_store(sum, &block, call->limits, out + x * out_step + c);
  }
}

/* Every block of `count` positions: whole blocks, then a partial one. */
TARGET INLINE void qdepthwise_run(const int64_t tap_count, const int inside,
                                  const depthwise_call *call, const tap_sources *taps,
                                  int64_t count, uint8_t *out, int64_t out_step) {
  int64_t c = 0;
  for (; c + DW <= call->channels; c += DW)
    qdepthwise_block(tap_count, inside, call, taps, count, c, DW, out, out_step);
  if (c < call->channels)
    qdepthwise_block(tap_count, inside, call, taps, count, c, call->channels - c, out, out_step);
}

/* Runs `count` positions sharing tap sources; `inside` when every tap of them is in the image
   (then 3x3 and 5x5 kernels unroll). */
TARGET static void qdepthwise_positions(const depthwise_call *call, const tap_sources *taps,
                                        int inside, int64_t count, uint8_t *out,
                                        int64_t out_step) {
  if (inside && call->taps == 9) {
    qdepthwise_run(9, 1, call, taps, count, out, out_step);
  } else if (inside && call->taps == 25) {
    qdepthwise_run(25, 1, call, taps, count, out, out_step);
  } else {
    qdepthwise_run(call->taps, inside, call, taps, count, out, out_step);
  }
}

#if defined(DW_SLIDE_GROUP)
/* The input rows of one output row of a side x side kernel (dilation 1): tap row r starts at
   row[r], or is NULL outside the image. */
typedef struct slide_rows {
  const uint8_t *row[5];
} slide_rows;

/* Where a tap row reads input column x, channel c: the padding outside the image. */
static inline const uint8_t *slide_source(const depthwise_call *call, const uint8_t *row,
                                          int64_t x, int64_t c) {
  int inside = row && x >= 0 && x < call->width;
  return inside ? row + x * call->input_stride + c : call->padding;
}

/* `outputs` consecutive output positions from ox of one row, one block of `channels` channels
   from c: each input column's tap pairs are widened once and multiplied into every output
   that covers them. side, stride and outputs are constants once inlined. */
TARGET INLINE void qdepthwise_slide(const int64_t side, const int64_t stride, const int outputs,
                                    const depthwise_call *call, const slide_rows *rows,
                                    int64_t ox, int64_t c, int64_t channels,
                                    const int16_t *weights, const block_requantization *block,
                                    uint8_t *out) {
  vacc sums[DW_SLIDE_GROUP];
  for (int o = 0; o < outputs; o++) sums[o] = dw_zero();
  int64_t left = ox * stride - call->window->pad_left;
  for (int64_t column = 0; column < (outputs - 1) * stride + side; column++) {
    for (int64_t p = 0; p < row_pairs(side); p++) {
      int64_t top = 2 * p, bottom = 2 * p + 1 < side ? 2 * p + 1 : 2 * p;
      vcol taps = dw_column(slide_source(call, rows->row[top], left + column, c),
                            slide_source(call, rows->row[bottom], left + column, c), channels);
      for (int o = 0; o < outputs; o++) {
        int64_t kx = column - o * stride;
        if (kx < 0 || kx >= side) continue;
        vd w = dw_weights(weights + (kx * row_pairs(side) + p) * DW * 2);
        sums[o] = dw_madd(sums[o], taps, w);
      }
    }
  }
  int64_t out_step = call->output_stride;
  for (int o = 0; o < outputs; o++) dw_store(sums[o], block, call->limits, out + o * out_step);
}

/* One block of output row oy (`channels` channels from c, a constant for whole blocks once
   inlined), DW_SLIDE_GROUP positions at a time, then one at a time. */
TARGET INLINE void qdepthwise_slide_block(const int64_t side, const int64_t stride,
                                          const depthwise_call *call, const slide_rows *rows,
                                          int64_t c, int64_t channels, uint8_t *row) {
  const int16_t *weights = call->weights + c * side * row_pairs(side) * 2;
  block_requantization block = block_requantization_of(call->requantization, c, channels);
  int64_t ox = 0, width = call->output_width;
  for (; ox + DW_SLIDE_GROUP <= width; ox += DW_SLIDE_GROUP) {
    qdepthwise_slide(side, stride, DW_SLIDE_GROUP, call, rows, ox, c, channels, weights, &block,
                     row + ox * call->output_stride + c);
  }
  for (; ox < width; ox++) {
    qdepthwise_slide(side, stride, 1, call, rows, ox, c, channels, weights, &block,
                     row + ox * call->output_stride + c);
  }
}

/* Output row oy of a side x side kernel (dilation 1, column stride 1 or 2): whole blocks, then
   a partial one. */
TARGET INLINE void qdepthwise_slide_row(const int64_t side, const int64_t stride,
                                        const depthwise_call *call, int64_t oy, uint8_t *row) {
  slide_rows rows;
  for (int64_t r = 0; r < side; r++) {
    int64_t y = oy * call->window->stride_y + r - call->window->pad_top;
    int inside = y >= 0 && y < call->height;
    rows.row[r] = inside ? call->input + y * call->width * call->input_stride : 0;
  }
  int64_t c = 0;
  for (; c + DW <= call->channels; c += DW)
    qdepthwise_slide_block(side, stride, call, &rows, c, DW, row);
  if (c < call->channels)
    qdepthwise_slide_block(side, stride, call, &rows, c, call->channels - c, row);
}

/* One output row of a 3x3 or 5x5 kernel with dilation 1 and column stride 1 or 2 (0 when the
   window is another). */
static int slide_kind(const cnk_window *w, int64_t taps) {
  int64_t side = w->kernel_height == w->kernel_width ? kernel_side(taps) : 0;
  int dense = w->dilation_y == 1 && w->dilation_x == 1;
  if (!side || !dense || (w->stride_x != 1 && w->stride_x != 2)) return 0;
  return (int)(side * 10 + w->stride_x);
}

TARGET static void qdepthwise_slide_rows(const depthwise_call *call, int kind, int64_t oy,
                                         uint8_t *row) {
  switch (kind) {
  case 31: qdepthwise_slide_row(3, 1, call, oy, row); break;
  case 32: qdepthwise_slide_row(3, 2, call, oy, row); break;
  case 51: qdepthwise_slide_row(5, 1, call, oy, row); break;
  case 52: qdepthwise_slide_row(5, 2, call, oy, row); break;
  }
}
#endif

/* The output columns [first, end) whose taps all fall inside the image's columns. */
static void inner_columns(const cnk_window *w, int64_t width, int64_t output_width,
                          int64_t *first, int64_t *end) {
  int64_t span = (w->kernel_width - 1) * w->dilation_x;
  *first = (w->pad_left + w->stride_x - 1) / w->stride_x;
  int64_t limit = width - 1 - span + w->pad_left;
  *end = limit < 0 ? 0 : limit / w->stride_x + 1;
  *end = *end > output_width ? output_width : *end;
  *first = *first > *end ? *end : *first;
}

TARGET static void qdepthwise(const uint8_t *input, int64_t height, int64_t width,
                              int64_t channels, int64_t input_stride, const void *packed,
                              int32_t input_zero_point, const cnk_window *window,
                              const cnk_requantization *requantization, uint8_t *output,
                              int64_t output_height, int64_t output_width,
                              int64_t output_stride, int64_t first_row, int64_t row_count) {
  (void)output_height;
  uint8_t padding[64];
  memset(padding, input_zero_point, sizeof padding);
  depthwise_call call = {
      .input = input,
      .height = height,
      .width = width,
      .channels = channels,
      .input_stride = input_stride,
      .output_width = output_width,
      .output_stride = output_stride,
      .weights = packed,
      .window = window,
      .taps = window->kernel_height * window->kernel_width,
      .padding = padding,
      .requantization = requantization,
      .limits = bounds_of(requantization->zero_point, requantization->minimum,
                          requantization->maximum),
  };
  int64_t first, end;
  inner_columns(window, width, output_width, &first, &end);
  int64_t step = window->stride_x * input_stride;
  tap_sources taps;
  for (int64_t oy = first_row; oy < first_row + row_count; oy++) {
    uint8_t *row = output + oy * output_width * output_stride;
#if defined(DW_SLIDE_GROUP)
    if (slide_kind(window, call.taps)) {
      qdepthwise_slide_rows(&call, slide_kind(window, call.taps), oy, row);
      continue;
    }
#endif
    int64_t top = oy * window->stride_y - window->pad_top;
    int inner_row = top >= 0 && top + (window->kernel_height - 1) * window->dilation_y < height;
    /* Columns whose taps cross the left or right edge one at a time; the inner ones as one run
       (a tap row outside the image reads padding for the whole run: step 0 under keep 0). */
    for (int64_t ox = 0; ox < output_width; ox++) {
      int inner = ox == first && first < end;
      gather_taps(&call, oy, ox, inner ? step : 0, &taps);
      int64_t count = inner ? end - first : 1;
      qdepthwise_positions(&call, &taps, inner && inner_row, count, row + ox * output_stride,
                           output_stride);
      ox += count - 1;
    }
  }
}

/* MARK: Element-wise */

TARGET static void qadd(const uint8_t *a, const uint8_t *b, int64_t count, float a_scale,
                        float b_scale, float offset, int32_t minimum, int32_t maximum,
                        uint8_t *y) {
  bounds limits = bounds_of(0, minimum, maximum);
  vf as = vf_set1(a_scale), bs = vf_set1(b_scale), shift = vf_set1(offset);
  for (int64_t i = 0; i < count; i += VL) {
    int64_t n = count - i < VL ? count - i : VL;
    vf sum = vf_add(vf_mul(vf_load_u8(a + i, n), as), vf_mul(vf_load_u8(b + i, n), bs));
    store_u8(y + i, round_clamp(vf_add(sum, shift), limits), n);
  }
}

TARGET static void quantize(const float *x, int64_t count, float scale, int32_t zero_point,
                            int32_t minimum, int32_t maximum, uint8_t *y) {
  bounds limits = bounds_of(zero_point, minimum, maximum);
  vf divisor = vf_set1(scale);
  for (int64_t i = 0; i < count; i += VL) {
    int64_t n = count - i < VL ? count - i : VL;
    vf value = vf_div(vf_zero_nan(vf_load_part(x + i, n)), divisor);
    store_u8(y + i, round_clamp(value, limits), n);
  }
}

TARGET static void qscale_channels(const uint8_t *x, int64_t positions, int64_t channels,
                                   int64_t stride, const float *scale, const float *offset,
                                   int32_t minimum, int32_t maximum, uint8_t *y) {
  bounds limits = bounds_of(0, minimum, maximum);
  for (int64_t p = 0; p < positions; p++) {
    const uint8_t *row = x + p * stride;
    uint8_t *out = y + p * stride;
    for (int64_t c = 0; c < channels; c += VL) {
      int64_t n = channels - c < VL ? channels - c : VL;
      vf value = vf_add(vf_mul(vf_load_u8(row + c, n), vf_load_part(scale + c, n)),
                        vf_load_part(offset + c, n));
      store_u8(out + c, round_clamp(value, limits), n);
    }
  }
}

TARGET static void lookup(const uint8_t *x, int64_t count, const uint8_t *table, uint8_t *y) {
  for (int64_t i = lookup_vectors(x, count, table, y); i < count; i++) y[i] = table[x[i]];
}

TARGET static void quantize_blocked(const float *x, int64_t lanes, int64_t channels,
                                    int64_t positions, int64_t first, int64_t count,
                                    float scale, int32_t zero_point, int32_t minimum,
                                    int32_t maximum, uint8_t *y, int64_t stride) {
  bounds limits = bounds_of(zero_point, minimum, maximum);
  vf divisor = vf_set1(scale);
  int64_t blocks = (channels + lanes - 1) / lanes;
  for (int64_t p = first; p < first + count; p++) {
    for (int64_t b = 0; b < blocks; b++) {
      int64_t valid = channels - b * lanes < lanes ? channels - b * lanes : lanes;
      const float *source = x + (b * positions + p) * lanes;
      uint8_t *target = y + p * stride + b * lanes;
      for (int64_t i = 0; i < valid; i += VL) {
        int64_t n = valid - i < VL ? valid - i : VL;
        vf value = vf_div(vf_zero_nan(vf_load_part(source + i, n)), divisor);
        store_u8(target + i, round_clamp(value, limits), n);
      }
    }
  }
}

/* MARK: Pooling */

/* Integer sums, one row at a time into the sums (an L1-resident row the compiler vectorizes
   as widening adds under each variant's TARGET). */
TARGET static void channel_sums(const uint8_t *x, int64_t positions, int64_t channels,
                                int64_t stride, int32_t *sums) {
  for (int64_t c = 0; c < channels; c++) sums[c] = 0;
  for (int64_t p = 0; p < positions; p++) {
    const uint8_t *row = x + p * stride;
    for (int64_t c = 0; c < channels; c++) sums[c] += row[c];
  }
}

/* MARK: Descriptor */

const cnk_int8_kernels VARIANT(cnk_int8) = {
    .name = VARIANT_NAME,
    .qgemm_packed_bytes = qgemm_packed_bytes,
    .qgemm_pack = qgemm_pack,
    .qgemm = qgemm,
    .qdepthwise_packed_bytes = qdepthwise_packed_bytes,
    .qdepthwise_pack = qdepthwise_pack,
    .qdepthwise = qdepthwise,
    .qadd = qadd,
    .quantize = quantize,
    .lookup = lookup,
    .qscale_channels = qscale_channels,
    .quantize_blocked = quantize_blocked,
    .channel_sums = channel_sums,
};
