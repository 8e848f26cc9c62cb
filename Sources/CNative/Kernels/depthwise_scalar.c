#include "scalar_kernels.h"

/* Any window: one output at a time, taps outside the plane skipped. */
static void depthwise_scalar(const float *input, int64_t height, int64_t width,
                             const float *weights, float bias, const cnk_window *w,
                             float *output, int64_t output_height, int64_t output_width,
                             float clamp_min, float clamp_max) {
  for (int64_t oy = 0; oy < output_height; oy++) {
    for (int64_t ox = 0; ox < output_width; ox++) {
      float sum = bias;
      for (int64_t ky = 0; ky < w->kernel_height; ky++) {
        int64_t y = oy * w->stride_y + ky * w->dilation_y - w->pad_top;
        if (y < 0 || y >= height) continue;
        for (int64_t kx = 0; kx < w->kernel_width; kx++) {
          int64_t x = ox * w->stride_x + kx * w->dilation_x - w->pad_left;
          if (x < 0 || x >= width) continue;
          sum += input[y * width + x] * weights[ky * w->kernel_width + kx];
        }
      }
      sum = sum < clamp_min ? clamp_min : sum;
      output[oy * output_width + ox] = sum > clamp_max ? clamp_max : sum;
    }
  }
}

/* The scalar kernel over `planes` consecutive planes, each with its own kernel and bias. */
void cnk_depthwise_scalar_planes(const float *input, int64_t planes, int64_t height,
                                    int64_t width, const float *weights, const float *bias,
                                    const cnk_window *w, float *output, int64_t output_height,
                                    int64_t output_width, float clamp_min, float clamp_max) {
  int64_t taps = w->kernel_height * w->kernel_width;
  for (int64_t plane = 0; plane < planes; plane++) {
    depthwise_scalar(input + plane * height * width, height, width, weights + plane * taps,
                     bias[plane], w, output + plane * output_height * output_width,
                     output_height, output_width, clamp_min, clamp_max);
  }
}
