#include "generic_kernels.h"

/* The registry of kernel sets: which ones this CPU runs, each as one descriptor. */

const cnk_kernel_set *cnk_kernel_set_portable(void) { return &cnk_generic_set_portable; }

#if defined(__x86_64__)
#include <cpuid.h>

/* The OS state-saving bits (XCR0) that must all be set for a set's registers. */
enum { XMM_YMM = 0x6u, AVX512_STATE = 0xE6u };

/* XCR0 when the OS saves extended state (OSXSAVE), else 0. */
static unsigned enabled_state(void) {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  if (!(ecx & (1u << 27))) return 0;
  unsigned low, high;
  __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  (void)high;
  return low;
}

static int detect_avx512(void) {
  unsigned eax, ebx, ecx, edx;
  /* XMM, YMM, opmask, ZMM_Hi256 and Hi16_ZMM state all enabled by the OS. */
  if ((enabled_state() & AVX512_STATE) != AVX512_STATE) return 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
  return (ebx & (1u << 16)) != 0;
}

static int detect_avx2(void) {
  unsigned eax, ebx, ecx, edx;
  if ((enabled_state() & XMM_YMM) != XMM_YMM) return 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  /* FMA (leaf 1, ECX bit 12) and AVX (bit 28). */
  if (!(ecx & (1u << 12)) || !(ecx & (1u << 28))) return 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
  return (ebx & (1u << 5)) != 0;
}

/* Asks the CPU once; later calls read the cached answer. */
static int cached(int *slot, int (*detect)(void)) {
  int value = __atomic_load_n(slot, __ATOMIC_RELAXED);
  if (value < 0) {
    value = detect();
    __atomic_store_n(slot, value, __ATOMIC_RELAXED);
  }
  return value;
}

const cnk_kernel_set *cnk_kernel_set_avx512(void) {
  static int slot = -1;
  return cached(&slot, detect_avx512) ? &cnk_generic_set_avx512 : 0;
}

const cnk_kernel_set *cnk_kernel_set_avx2(void) {
  static int slot = -1;
  return cached(&slot, detect_avx2) ? &cnk_generic_set_avx2 : 0;
}

const cnk_kernel_set *cnk_kernel_set_neon(void) { return 0; }

#elif defined(__aarch64__)
const cnk_kernel_set *cnk_kernel_set_avx512(void) { return 0; }
const cnk_kernel_set *cnk_kernel_set_avx2(void) { return 0; }
const cnk_kernel_set *cnk_kernel_set_neon(void) { return &cnk_generic_set_neon; }
#else
const cnk_kernel_set *cnk_kernel_set_avx512(void) { return 0; }
const cnk_kernel_set *cnk_kernel_set_avx2(void) { return 0; }
const cnk_kernel_set *cnk_kernel_set_neon(void) { return 0; }
#endif
