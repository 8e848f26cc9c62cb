#ifndef CNATIVE_SCALAR_KERNELS_H
#define CNATIVE_SCALAR_KERNELS_H

/* Scalar kernels every set falls back to for shapes its vector code does not take. */

#include "CNativeKernels.h"

/* cnk_depthwise_fn's contract, one output at a time, any window. */
void cnk_depthwise_scalar_planes(const float *input, int64_t planes, int64_t height,
                                 int64_t width, const float *weights, const float *bias,
                                 const cnk_window *window, float *output, int64_t output_height,
                                 int64_t output_width, float clamp_min, float clamp_max);

#endif
