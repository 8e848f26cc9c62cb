#ifndef CNATIVE_GENERIC_KERNELS_H
#define CNATIVE_GENERIC_KERNELS_H

/* The kernel sets compiled from one source over the vector width (generic_kernel_bodies.h):
   AVX-512 (kernels_avx512.c) and AVX2 + FMA (kernels_avx2.c) on x86-64, NEON on aarch64
   (kernels_neon.c), each only on its architecture, and the portable set (kernels_portable.c)
   on every architecture. */

#include "CNativeKernels.h"

extern const cnk_kernel_set cnk_generic_set_portable;
#if defined(__x86_64__)
extern const cnk_kernel_set cnk_generic_set_avx512;
extern const cnk_kernel_set cnk_generic_set_avx2;
#endif
#if defined(__aarch64__)
extern const cnk_kernel_set cnk_generic_set_neon;
#endif

#endif
