#ifndef CNATIVE_HALF_FLOAT_H
#define CNATIVE_HALF_FLOAT_H

/* IEEE binary16 <-> binary32 in plain C, exact (subnormals, infinities and NaN included), for
   the portable set's lanes and every set's tails. */

#include <stdint.h>
#include <string.h>

static inline float cnk_half_to_float(uint16_t half) {
  uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1Fu;
  uint32_t mantissa = half & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1Fu) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    /* A subnormal half: normalize its mantissa. */
    exponent = 113u;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      exponent--;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3FFu) << 13);
  }
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static inline uint16_t cnk_float_to_half(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return (uint16_t)(sign | 0x7E00u | ((magnitude >> 13) & 0x3FFu));
  if (magnitude >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u); /* rounds past 65504 */
  if (magnitude < 0x38800000u) {
    /* A half subnormal (or zero): scale to units of 2^-24 and round to nearest even. */
    if (magnitude < 0x33000000u) return sign; /* below half of the smallest subnormal */
    uint32_t shift = 126u - (magnitude >> 23);
    uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
    uint32_t half_value = mantissa >> (shift);
    uint32_t rest = mantissa & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (half_value & 1u))) half_value++;
    return (uint16_t)(sign | half_value);
  }
  /* Normal: rebias the exponent and round the mantissa to 10 bits, ties to even (a carry into
     the exponent is the right result, up to infinity). */
  uint32_t rounded = magnitude - 0x38000000u;
  uint32_t rest = rounded & 0x1FFFu;
  rounded >>= 13;
  if (rest > 0x1000u || (rest == 0x1000u && (rounded & 1u))) rounded++;
  return (uint16_t)(sign | rounded);
}

#endif
