#include "CNativeKernels.h"

#if defined(__x86_64__)
#include <cpuid.h>

static int detect_avx512(void) {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  /* OSXSAVE: the OS saves extended state, so xgetbv may be asked which. */
  if (!(ecx & (1u << 27))) return 0;
  unsigned low, high;
  __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  (void)high;
  /* XMM, YMM, opmask, ZMM_Hi256 and Hi16_ZMM state all enabled by the OS. */
  if ((low & 0xE6u) != 0xE6u) return 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
  return (ebx & (1u << 16)) != 0;
}

int cnk_has_avx512(void) {
  static int cached = -1;
  int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (value < 0) {
    value = detect_avx512();
    __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
  }
  return value;
}
#else
int cnk_has_avx512(void) { return 0; }
#endif
