/*
 * The element-wise math kernels of a generic set (activations and the functions they are built
 * from), written once over the vector API of generic_kernel_bodies.h plus v_div, v_min,
 * v_select_less and v_pow2i, which each set defines beside the others. Included by
 * generic_kernel_bodies.h, once per set: no include guard.
 *
 * exp is Cephes' expf (range reduction by ln 2 in two parts, a degree-6 polynomial), within 2 ulp
 * of the C library's over the range that does not overflow; the rest are built from it:
 * sigmoid and SiLU 1 / (1 + e^-x); tanh (1 - e^-2|x|) / (1 + e^-2|x|) with the sign put back and
 * its Taylor series near zero; erf the Taylor series below 0.5 and Abramowitz and Stegun's
 * 7.1.26 above (absolute error under 1.5e-7); Mish x * n / (n + 2) with n = e^x (e^x + 2), which
 * is x * tanh(softplus(x)) without a logarithm.
 */

#include <math.h>

/* Parameters broadcast once per call. */
typedef struct activation_parameters {
  vf alpha, beta, low, high;
} activation_parameters;

TARGET INLINE vf v_exp(vf x) {
  /* A clamp keeps NaN (min and max alone may drop it). */
  x = v_clamp(x, v_set1(-87.33654f), v_set1(88.02969f));
  vf n = v_add(v_mul(x, v_set1(1.44269504088896341f)), v_set1(12582912.0f));
  n = v_sub(n, v_set1(12582912.0f));
  vf r = v_fma(n, v_set1(-0.693359375f), x);
  r = v_fma(n, v_set1(2.12194440e-4f), r);
  vf p = v_set1(1.9875691500e-4f);
  p = v_fma(p, r, v_set1(1.3981999507e-3f));
  p = v_fma(p, r, v_set1(8.3334519073e-3f));
  p = v_fma(p, r, v_set1(4.1665795894e-2f));
  p = v_fma(p, r, v_set1(1.6666665459e-1f));
  p = v_fma(p, r, v_set1(5.0000001201e-1f));
  vf y = v_fma(v_mul(p, r), r, v_add(r, v_set1(1.0f)));
  return v_mul(y, v_pow2i(n));
}

TARGET INLINE vf v_sigmoid(vf x) {
  vf one = v_set1(1.0f);
  return v_div(one, v_add(one, v_exp(v_sub(v_zero(), x))));
}

TARGET INLINE vf v_tanh(vf x) {
  vf zero = v_zero(), one = v_set1(1.0f);
  vf negative = v_sub(zero, x);
  vf magnitude = v_max(x, negative);
  vf e = v_exp(v_mul(magnitude, v_set1(-2.0f)));
  vf large = v_div(v_sub(one, e), v_add(one, e));
  large = v_select_less(x, zero, v_sub(zero, large), large);
  vf square = v_mul(x, x);
  vf series = v_fma(square, v_set1(-17.0f / 315.0f), v_set1(2.0f / 15.0f));
  series = v_fma(series, square, v_set1(-1.0f / 3.0f));
  series = v_fma(v_mul(series, square), x, x);
  return v_select_less(magnitude, v_set1(0.0625f), series, large);
}

TARGET INLINE vf v_erf(vf x) {
  vf zero = v_zero(), one = v_set1(1.0f);
  vf magnitude = v_max(x, v_sub(zero, x));
  vf t = v_div(one, v_fma(magnitude, v_set1(0.3275911f), one));
  vf p = v_set1(1.061405429f);
  p = v_fma(p, t, v_set1(-1.453152027f));
  p = v_fma(p, t, v_set1(1.421413741f));
  p = v_fma(p, t, v_set1(-0.284496736f));
  p = v_fma(p, t, v_set1(0.254829592f));
  vf large = v_sub(one, v_mul(v_mul(p, t), v_exp(v_mul(v_sub(zero, magnitude), magnitude))));
  large = v_select_less(x, zero, v_sub(zero, large), large);
  /* 2 / sqrt(pi) * (x - x^3 / 3 + x^5 / 10 - x^7 / 42 + x^9 / 216 - x^11 / 1320 + x^13 / 9360) */
  vf square = v_mul(x, x);
  vf series = v_set1(1.0f / 9360.0f);
  series = v_fma(series, square, v_set1(-1.0f / 1320.0f));
  series = v_fma(series, square, v_set1(1.0f / 216.0f));
  series = v_fma(series, square, v_set1(-1.0f / 42.0f));
  series = v_fma(series, square, v_set1(1.0f / 10.0f));
  series = v_fma(series, square, v_set1(-1.0f / 3.0f));
  series = v_fma(series, square, one);
  series = v_mul(v_mul(series, x), v_set1(1.12837916709551257f));
  return v_select_less(magnitude, v_set1(0.5f), series, large);
}

TARGET INLINE vf f_identity(vf x, const activation_parameters *p) {
  (void)p;
  return x;
}
TARGET INLINE vf f_clamp(vf x, const activation_parameters *p) {
  return v_clamp(x, p->low, p->high);
}
TARGET INLINE vf f_sigmoid(vf x, const activation_parameters *p) {
  (void)p;
  return v_sigmoid(x);
}
TARGET INLINE vf f_silu(vf x, const activation_parameters *p) {
  (void)p;
  return v_mul(x, v_sigmoid(x));
}
TARGET INLINE vf f_hard_sigmoid(vf x, const activation_parameters *p) {
  return v_clamp(v_fma(x, p->alpha, p->beta), v_zero(), v_set1(1.0f));
}
TARGET INLINE vf f_hard_swish(vf x, const activation_parameters *p) {
  (void)p;
  return v_mul(x, v_clamp(v_fma(x, v_set1(1.0f / 6.0f), v_set1(0.5f)), v_zero(), v_set1(1.0f)));
}
TARGET INLINE vf f_tanh(vf x, const activation_parameters *p) {
  (void)p;
  return v_tanh(x);
}
TARGET INLINE vf f_erf(vf x, const activation_parameters *p) {
  (void)p;
  return v_erf(x);
}
TARGET INLINE vf f_gelu(vf x, const activation_parameters *p) {
  (void)p;
  vf half = v_mul(x, v_set1(0.5f));
  return v_fma(half, v_erf(v_mul(x, v_set1(0.70710678118654752f))), half);
}
TARGET INLINE vf f_gelu_tanh(vf x, const activation_parameters *p) {
  (void)p;
  vf half = v_mul(x, v_set1(0.5f));
  vf cube = v_mul(v_mul(x, x), x);
  vf inner = v_mul(v_fma(cube, v_set1(0.044715f), x), v_set1(0.79788456080286536f));
  return v_fma(half, v_tanh(inner), half);
}
TARGET INLINE vf f_mish(vf x, const activation_parameters *p) {
  (void)p;
  vf e = v_exp(v_min(x, v_set1(20.0f)));
  vf n = v_mul(e, v_add(e, v_set1(2.0f)));
  return v_mul(x, v_div(n, v_add(n, v_set1(2.0f))));
}
TARGET INLINE vf f_exp(vf x, const activation_parameters *p) {
  (void)p;
  return v_exp(x);
}

/* y = F(x) over count floats, whole vectors then one partial one. */
#define ACTIVATE_RUN(F)                                                                          \
  do {                                                                                           \
    int64_t i = 0;                                                                               \
    for (; i + LANES <= count; i += LANES) v_store(y + i, F(v_load(x + i), &p));                 \
    if (i < count) v_store_part(y + i, F(v_load_part(x + i, count - i), &p), count - i);         \
  } while (0)

/* F applied in place to `positions` vectors, lanes at or past `valid` written as zero. */
#define ACTIVATE_BLOCKED_RUN(F)                                                                  \
  do {                                                                                           \
    for (int64_t i = 0; i < positions; i++) {                                                    \
      float *v = values + i * LANES;                                                             \
      v_store(v, v_keep(F(v_load(v), &p), valid));                                               \
    }                                                                                            \
  } while (0)

/* Runs RUN(F) with the F of the activation's kind; an unknown kind copies (identity). */
#define ACTIVATE_DISPATCH(RUN)                                                                   \
  switch (activation->kind) {                                                                    \
  case CNK_ACTIVATION_CLAMP: RUN(f_clamp); break;                                                \
  case CNK_ACTIVATION_SIGMOID: RUN(f_sigmoid); break;                                            \
  case CNK_ACTIVATION_SILU: RUN(f_silu); break;                                                  \
  case CNK_ACTIVATION_HARD_SIGMOID: RUN(f_hard_sigmoid); break;                                  \
  case CNK_ACTIVATION_HARD_SWISH: RUN(f_hard_swish); break;                                      \
  case CNK_ACTIVATION_TANH: RUN(f_tanh); break;                                                  \
  case CNK_ACTIVATION_ERF: RUN(f_erf); break;                                                    \
  case CNK_ACTIVATION_GELU: RUN(f_gelu); break;                                                  \
  case CNK_ACTIVATION_GELU_TANH: RUN(f_gelu_tanh); break;                                        \
  case CNK_ACTIVATION_MISH: RUN(f_mish); break;                                                  \
  case CNK_ACTIVATION_EXP: RUN(f_exp); break;                                                    \
  default: RUN(f_identity); break;                                                               \
  }

TARGET INLINE activation_parameters activation_broadcast(const cnk_activation *activation) {
  activation_parameters p = {v_set1(activation->alpha), v_set1(activation->beta),
                             v_set1(activation->low), v_set1(activation->high)};
  return p;
}

TARGET static void activate(const cnk_activation *activation, const float *x, float *y,
                            int64_t count) {
  activation_parameters p = activation_broadcast(activation);
  ACTIVATE_DISPATCH(ACTIVATE_RUN)
}

TARGET static void activate_blocked(const cnk_activation *activation, float *values,
                                    int64_t positions, int64_t valid) {
  activation_parameters p = activation_broadcast(activation);
  ACTIVATE_DISPATCH(ACTIVATE_BLOCKED_RUN)
}

/* The sum of a vector's lanes. */
TARGET INLINE float lane_total(vf value) {
  float lanes[LANES];
  v_store(lanes, value);
  float total = 0;
  for (int l = 0; l < LANES; l++) total += lanes[l];
  return total;
}

/* The largest of `count` floats (NaN when any is) and, after it, the sum of exp(x - largest)
   written to y: one line of a softmax. */
TARGET INLINE float softmax_line(const float *x, float *y, int64_t count) {
  float lanes[LANES];
  vf top = v_set1(-INFINITY);
  int64_t i = 0;
  for (; i + LANES <= count; i += LANES) top = v_max(v_load(x + i), top);
  v_store(lanes, top);
  float largest = -INFINITY;
  for (int l = 0; l < LANES; l++) {
    largest = lanes[l] > largest || lanes[l] != lanes[l] ? lanes[l] : largest;
  }
  for (; i < count; i++) largest = x[i] > largest || x[i] != x[i] ? x[i] : largest;
  vf shift = v_set1(largest), sum = v_zero();
  for (i = 0; i + LANES <= count; i += LANES) {
    vf e = v_exp(v_sub(v_load(x + i), shift));
    v_store(y + i, e);
    sum = v_add(sum, e);
  }
  if (i < count) {
    vf e = v_keep(v_exp(v_sub(v_load_part(x + i, count - i), shift)), count - i);
    v_store_part(y + i, e, count - i);
    sum = v_add(sum, e);
  }
  return lane_total(sum);
}

TARGET static void softmax(const float *x, float *y, int64_t rows, int64_t length) {
  for (int64_t row = 0; row < rows; row++) {
    const float *in = x + row * length;
    float *out = y + row * length;
    vf scale = v_set1(1.0f / softmax_line(in, out, length));
    int64_t i = 0;
    for (; i + LANES <= length; i += LANES) v_store(out + i, v_mul(v_load(out + i), scale));
    if (i < length) {
      v_store_part(out + i, v_mul(v_load_part(out + i, length - i), scale), length - i);
    }
  }
}

/* The sum of x - shift (of its squares when `squares`) over `count` floats: vector partial
   sums, then the lanes. */
TARGET INLINE float line_sum(const float *x, int64_t count, float shift, int squares) {
  vf sum = v_zero(), center = v_set1(shift);
  int64_t i = 0;
  for (; i + LANES <= count; i += LANES) {
    vf d = v_sub(v_load(x + i), center);
    sum = squares ? v_fma(d, d, sum) : v_add(sum, d);
  }
  if (i < count) {
    vf d = v_keep(v_sub(v_load_part(x + i, count - i), center), count - i);
    sum = squares ? v_fma(d, d, sum) : v_add(sum, d);
  }
  return lane_total(sum);
}

TARGET static void layer_norm(const float *x, int64_t rows, int64_t length, float epsilon,
                              const float *scale, const float *bias, float *y, float *mean,
                              float *inverse_deviation, int centering) {
  for (int64_t row = 0; row < rows; row++) {
    const float *in = x + row * length;
    float *out = y + row * length;
    float average = centering && length > 0 ? line_sum(in, length, 0.0f, 0) / (float)length : 0.0f;
    float variance = length > 0 ? line_sum(in, length, average, 1) / (float)length : 0.0f;
    float inverse = 1.0f / sqrtf(variance + epsilon);
    vf center = v_set1(average), factor = v_set1(inverse), one = v_set1(1.0f), zero = v_zero();
    int64_t i = 0;
    for (; i + LANES <= length; i += LANES) {
      vf g = scale ? v_load(scale + i) : one, b = bias ? v_load(bias + i) : zero;
      v_store(out + i, v_fma(v_mul(v_sub(v_load(in + i), center), factor), g, b));
    }
    if (i < length) {
      int64_t n = length - i;
      vf g = scale ? v_load_part(scale + i, n) : one, b = bias ? v_load_part(bias + i, n) : zero;
      v_store_part(out + i, v_fma(v_mul(v_sub(v_load_part(in + i, n), center), factor), g, b), n);
    }
    if (mean) mean[row] = average;
    if (inverse_deviation) inverse_deviation[row] = inverse;
  }
}

/* MARK: Linear quantization */

/* clamp(round_half_even(x / factor or x * factor) + zero_point, low, high), NaN to the zero
   point, as int32: DIVIDE is a constant at both call sites. */
TARGET INLINE void linear_quantization(const float *input, int64_t count, float factor,
                                       float zero_point, float low, float high, int32_t *output,
                                       const int DIVIDE) {
  vf scale = v_set1(factor), shift = v_set1(zero_point), floor = v_set1(low);
  vf ceiling = v_set1(high), infinity = v_set1(INFINITY);
  int64_t i = 0;
  for (; i + LANES <= count; i += LANES) {
    vf x = v_load(input + i);
    vf q = v_round_even(DIVIDE ? v_div(x, scale) : v_mul(x, scale));
    q = v_clamp(v_add(q, shift), floor, ceiling);
    /* A NaN stays NaN through the clamp and fails the comparison: it gives the zero point. */
    v_store_int32(output + i, v_select_less(q, infinity, q, shift));
  }
  for (; i < count; i++) {
    float q = rintf(DIVIDE ? input[i] / factor : input[i] * factor) + zero_point;
    q = q != q ? zero_point : q;
    q = q < low ? low : (q > high ? high : q);
    output[i] = (int32_t)q;
  }
}

TARGET static void quantize_linear(const float *input, int64_t count, float scale,
                                   float zero_point, float low, float high, int32_t *output) {
  linear_quantization(input, count, scale, zero_point, low, high, output, 1);
}

TARGET static void requantize_linear(const float *input, int64_t count, float multiplier,
                                     float zero_point, float low, float high, int32_t *output) {
  linear_quantization(input, count, multiplier, zero_point, low, high, output, 0);
}

TARGET static void dequantize_linear(const int32_t *input, int64_t count, float zero_point,
                                     float scale, float *output) {
  vf shift = v_set1(zero_point), factor = v_set1(scale);
  int64_t i = 0;
  for (; i + LANES <= count; i += LANES) {
    v_store(output + i, v_mul(v_sub(v_load_int32(input + i), shift), factor));
  }
  for (; i < count; i++) output[i] = ((float)input[i] - zero_point) * scale;
}

/* MARK: Broadcasting arithmetic */

TARGET INLINE float binary_value(int32_t operation, float a, float b) {
  switch (operation) {
  case CNK_BINARY_ADD: return a + b;
  case CNK_BINARY_SUBTRACT: return a - b;
  case CNK_BINARY_MULTIPLY: return a * b;
  case CNK_BINARY_DIVIDE: return a / b;
  case CNK_BINARY_PRELU: return a < 0 ? a * b : a;
  case CNK_BINARY_POWER: return powf(a, b);
  case CNK_BINARY_REMAINDER: return fmodf(a, b);
  case CNK_BINARY_MODULO: {
    float remainder = fmodf(a, b);
    return remainder != 0 && (remainder < 0) != (b < 0) ? remainder + b : remainder;
  }
  case CNK_BINARY_MAXIMUM: return b > a || b != b ? b : a;
  case CNK_BINARY_MINIMUM: return b < a || b != b ? b : a;
  case CNK_BINARY_EQUAL: return a == b ? 1.0f : 0.0f;
  case CNK_BINARY_LESS: return a < b ? 1.0f : 0.0f;
  case CNK_BINARY_GREATER: return a > b ? 1.0f : 0.0f;
  case CNK_BINARY_LESS_OR_EQUAL: return a <= b ? 1.0f : 0.0f;
  case CNK_BINARY_GREATER_OR_EQUAL: return a >= b ? 1.0f : 0.0f;
  case CNK_BINARY_AND: return a != 0 && b != 0 ? 1.0f : 0.0f;
  case CNK_BINARY_OR: return a != 0 || b != 0 ? 1.0f : 0.0f;
  case CNK_BINARY_XOR: return (a != 0) != (b != 0) ? 1.0f : 0.0f;
  default: return NAN;
  }
}

TARGET INLINE vf v_prelu(vf a, vf b) { return v_select_less(a, v_zero(), v_mul(a, b), a); }

/* y = F(a, b) in vectors for operand strides 0 (one value, broadcast) or 1; returns how many
   elements it wrote (whole vectors only). */
#define BINARY_VECTORS(F)                                                                        \
  do {                                                                                           \
    if (a_stride == 1 && b_stride == 1) {                                                        \
      for (; i + LANES <= count; i += LANES) v_store(y + i, F(v_load(a + i), v_load(b + i)));    \
    } else if (a_stride == 1) {                                                                  \
      vf right = v_set1(b[0]);                                                                   \
      for (; i + LANES <= count; i += LANES) v_store(y + i, F(v_load(a + i), right));            \
    } else {                                                                                     \
      vf left = v_set1(a[0]);                                                                    \
      for (; i + LANES <= count; i += LANES) v_store(y + i, F(left, v_load(b + i)));             \
    }                                                                                            \
  } while (0)

TARGET static void binary(int32_t operation, const float *a, int64_t a_stride, const float *b,
                          int64_t b_stride, float *y, int64_t count) {
  int64_t i = 0;
  int vectors = (a_stride == 0 || a_stride == 1) && (b_stride == 0 || b_stride == 1) &&
                (a_stride | b_stride) != 0;
  if (vectors) {
    switch (operation) {
    case CNK_BINARY_ADD: BINARY_VECTORS(v_add); break;
    case CNK_BINARY_SUBTRACT: BINARY_VECTORS(v_sub); break;
    case CNK_BINARY_MULTIPLY: BINARY_VECTORS(v_mul); break;
    case CNK_BINARY_DIVIDE: BINARY_VECTORS(v_div); break;
    case CNK_BINARY_PRELU: BINARY_VECTORS(v_prelu); break;
    default: break;
    }
  }
  for (; i < count; i++) y[i] = binary_value(operation, a[i * a_stride], b[i * b_stride]);
}

#undef BINARY_VECTORS

TARGET static void plane_means(const float *input, int64_t planes, int64_t count, float *output) {
  for (int64_t plane = 0; plane < planes; plane++) {
    const float *x = input + plane * count;
    vf sums = v_zero();
    int64_t i = 0;
    for (; i + LANES <= count; i += LANES) sums = v_add(sums, v_load(x + i));
    float sum = lane_total(sums);
    for (; i < count; i++) sum += x[i];
    output[plane] = count > 0 ? sum / (float)count : 0.0f;
  }
}
#undef ACTIVATE_RUN
#undef ACTIVATE_BLOCKED_RUN
#undef ACTIVATE_DISPATCH
