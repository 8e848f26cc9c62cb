#ifndef CNATIVE_H
#define CNATIVE_H

/*
 * The one C target of VisionCatalog. It holds what Swift cannot express:
 * - codec entry points for libpng (with a libdeflate fast path) and libjpeg-turbo, where every
 *   setjmp/longjmp lives (CNativeCodecs.h);
 * - SIMD kernel sets (AVX-512, AVX2 + FMA, NEON), each one descriptor chosen at run time from
 *   the CPU, which a plain Swift package (no unsafeFlags) cannot target (CNativeKernels.h);
 * - file-system calls Foundation lacks, such as an atomic replace (CNativeFiles.h).
 */

#include "CNativeCodecs.h"
#include "CNativeKernels.h"
#include "CNativeFiles.h"

#endif
