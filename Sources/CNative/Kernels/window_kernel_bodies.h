/*
 * Window kernels over the blocked layout, written once over the vector API the including file
 * defines (see generic_kernel_bodies.h: vf of VL floats, v_zero, v_set1, v_load, v_store,
 * v_add, v_sub, v_mul, v_fma, v_max (NaN in either operand gives NaN), v_clamp, v_keep, TARGET,
 * INLINE). Included by generic_kernel_bodies.h only, whose descriptor names these entry points.
 * No include guard, on purpose.
 *
 * Every function works on whole vectors of one channel block, so it is exact per lane and its
 * cost does not depend on the vector width.
 */

/* MARK: Max pooling */

/*
 * Max pooling of one channel block: input is its height x width plane of vectors; writes output
 * rows first_row..<first_row + row_count. Taps outside the plane are skipped (padding never
 * wins); a window with no tap inside gives -infinity. Lanes at or past `valid_lanes` are
 * written as zero.
 */
TARGET static void max_pool_blocked(
    const float *input, int64_t height, int64_t width, const cnk_window *w, float *output,
    int64_t output_width, int64_t first_row, int64_t row_count, int64_t valid_lanes) {
  for (int64_t oy = first_row; oy < first_row + row_count; oy++) {
    int64_t y0 = oy * w->stride_y - w->pad_top;
    for (int64_t ox = 0; ox < output_width; ox++) {
      int64_t x0 = ox * w->stride_x - w->pad_left;
      vf best = v_set1(-__builtin_inff());
      for (int64_t ky = 0; ky < w->kernel_height; ky++) {
        int64_t y = y0 + ky * w->dilation_y;
        if (y < 0 || y >= height) continue;
        const float *row = input + y * width * VL;
        for (int64_t kx = 0; kx < w->kernel_width; kx++) {
          int64_t x = x0 + kx * w->dilation_x;
          if (x < 0 || x >= width) continue;
          best = v_max(best, v_load(row + x * VL));
        }
      }
      v_store(output + (oy * output_width + ox) * VL, v_keep(best, valid_lanes));
    }
  }
}

/* MARK: Winograd F(4x4, 3x3) */

/*
 * A 3x3, stride-1 convolution as Winograd's F(4x4, 3x3) (Lavin and Gray, 2015): each 4x4 output
 * tile is A^T [(G g G^T) . (B^T d B)] A over the 6x6 input tile d. The caller transforms the
 * weights (G g G^T) once, runs the 36 element-wise products summed over input channels as 36
 * blocked pointwise convolutions (positions = tiles), and calls these two transforms around
 * them. Interpolation points 0, +-1, +-2 and infinity.
 */

/* B^T applied to six vectors (one column or row of a 6x6 tile). */
TARGET INLINE void winograd_input_line(const vf d[6], vf t[6]) {
  vf four = v_set1(4.0f), five = v_set1(5.0f), two = v_set1(2.0f);
  vf d4_minus_d2 = v_sub(d[4], d[2]);
  vf d3_minus_d1 = v_sub(d[3], d[1]);
  t[0] = v_sub(v_add(v_mul(four, d[0]), d[4]), v_mul(five, d[2]));
  t[1] = v_sub(v_add(d[3], d[4]), v_mul(four, v_add(d[1], d[2])));
  t[2] = v_add(v_sub(d[4], d[3]), v_mul(four, v_sub(d[1], d[2])));
  t[3] = v_fma(two, d3_minus_d1, d4_minus_d2);
  t[4] = v_sub(d4_minus_d2, v_mul(two, d3_minus_d1));
  t[5] = v_sub(v_add(v_mul(four, d[1]), d[5]), v_mul(five, d[3]));
}

/*
 * The input transform B^T d B of tiles first_tile..<first_tile + tile_count of one blocked
 * image (channels in ceil(channels / VL) blocks of height x width vectors). Tiles are row-major
 * over tiles_y x tiles_x (tiles in all); tile (ty, tx) reads input rows 4 ty - pad_top ..< +6
 * and columns 4 tx - pad_left ..< +6, zero outside the plane. Point xi (0..<36, row-major over
 * the 6x6 tile) of tile t, block b, goes to transformed + ((xi * blocks + b) * tiles + t) * VL:
 * 36 blocked images of `tiles` positions.
 */
TARGET static void winograd_input(
    const float *input, int64_t channels, int64_t height, int64_t width, int64_t pad_top,
    int64_t pad_left, int64_t tiles_x, int64_t tiles, int64_t first_tile, int64_t tile_count,
    float *transformed) {
  int64_t blocks = (channels + VL - 1) / VL;
  int64_t point_stride = blocks * tiles * VL;
  for (int64_t t = first_tile; t < first_tile + tile_count; t++) {
    int64_t y0 = (t / tiles_x) * 4 - pad_top;
    int64_t x0 = (t % tiles_x) * 4 - pad_left;
    int inside = y0 >= 0 && x0 >= 0 && y0 + 6 <= height && x0 + 6 <= width;
    for (int64_t b = 0; b < blocks; b++) {
      const float *plane = input + b * height * width * VL;
      vf rows[6][6];
      for (int i = 0; i < 6; i++) {
        vf d[6];
        int64_t y = y0 + i;
        for (int j = 0; j < 6; j++) {
          int64_t x = x0 + j;
          d[j] = inside || (y >= 0 && y < height && x >= 0 && x < width)
                     ? v_load(plane + (y * width + x) * VL)
                     : v_zero();
        }
        winograd_input_line(d, rows[i]);
      }
      float *target = transformed + (b * tiles + t) * VL;
      for (int j = 0; j < 6; j++) {
        vf column[6], out[6];
        for (int i = 0; i < 6; i++) column[i] = rows[i][j];
        winograd_input_line(column, out);
        for (int i = 0; i < 6; i++) v_store(target + (i * 6 + j) * point_stride, out[i]);
      }
    }
  }
}

/* A^T applied to six vectors: four outputs. */
TARGET INLINE void winograd_output_line(const vf m[6], vf o[4]) {
  vf two = v_set1(2.0f), four = v_set1(4.0f), eight = v_set1(8.0f);
  vf sum12 = v_add(m[1], m[2]), diff12 = v_sub(m[1], m[2]);
  vf sum34 = v_add(m[3], m[4]), diff34 = v_sub(m[3], m[4]);
  o[0] = v_add(v_add(m[0], sum12), sum34);
  o[1] = v_fma(two, diff34, diff12);
  o[2] = v_fma(four, sum34, sum12);
  o[3] = v_add(v_fma(eight, diff34, diff12), m[5]);
}

/*
 * The output transform of tiles first_tile..<first_tile + tile_count: reads the 36 blocked
 * images of products laid out as winograd_input writes them (channels = the output's), applies
 * A^T m A, adds bias (one value per channel, padded to whole blocks) and `residual` (a blocked
 * image like the output, or NULL), clamps, zeroes lanes past the last channel, and writes the
 * tile's positions that fall inside the output_height x output_width blocked output.
 */
TARGET static void winograd_output(
    const float *transformed, int64_t channels, int64_t tiles_x, int64_t tiles,
    const float *bias, const float *residual, float clamp_min, float clamp_max, float *output,
    int64_t output_height, int64_t output_width, int64_t first_tile, int64_t tile_count) {
  int64_t blocks = (channels + VL - 1) / VL;
  int64_t point_stride = blocks * tiles * VL;
  int64_t plane = output_height * output_width * VL;
  vf low = v_set1(clamp_min), high = v_set1(clamp_max);
  for (int64_t t = first_tile; t < first_tile + tile_count; t++) {
    int64_t y0 = (t / tiles_x) * 4, x0 = (t % tiles_x) * 4;
    int64_t rows = output_height - y0 < 4 ? output_height - y0 : 4;
    int64_t columns = output_width - x0 < 4 ? output_width - x0 : 4;
    for (int64_t b = 0; b < blocks; b++) {
      const float *source = transformed + (b * tiles + t) * VL;
      vf half[4][6];
      for (int j = 0; j < 6; j++) {
        vf m[6], o[4];
        for (int i = 0; i < 6; i++) m[i] = v_load(source + (i * 6 + j) * point_stride);
        winograd_output_line(m, o);
        for (int i = 0; i < 4; i++) half[i][j] = o[i];
      }
      vf shift = v_load(bias + b * VL);
      int64_t valid = channels - b * VL;
      for (int64_t i = 0; i < rows; i++) {
        vf o[4];
        winograd_output_line(half[i], o);
        int64_t offset = b * plane + ((y0 + i) * output_width + x0) * VL;
        for (int64_t j = 0; j < columns; j++) {
          vf value = v_add(o[j], shift);
          if (residual) value = v_add(value, v_load(residual + offset + j * VL));
          v_store(output + offset + j * VL, v_keep(v_clamp(value, low, high), valid));
        }
      }
    }
  }
}
