#include "generic_kernels.h"
#include "int8_kernels.h"

#include <string.h>

/* The registry of kernel sets: which ones this CPU runs, each as one descriptor. */

const cnk_kernel_set *cnk_kernel_set_portable(void) { return &cnk_generic_set_portable; }

/* An int8 variant this build has, and whether this CPU runs it. */
typedef struct int8_variant {
  const cnk_int8_kernels *kernels;
  int (*runs)(void);
} int8_variant;

static int always(void) { return 1; }

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

/* AVX-512 F, BW, VL and VNNI (leaf 7 EBX bits 16, 30, 31; ECX bit 11), zmm state enabled. */
static int detect_avx512_vnni(void) {
  unsigned eax, ebx, ecx, edx;
  if (!detect_avx512()) return 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
  unsigned bw_vl = (1u << 30) | (1u << 31);
  return (ebx & bw_vl) == bw_vl && (ecx & (1u << 11)) != 0;
}

static int detect_avx2(void) {
  unsigned eax, ebx, ecx, edx;
  if ((enabled_state() & XMM_YMM) != XMM_YMM) return 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  /* FMA (leaf 1, ECX bit 12), AVX (bit 28) and F16C (bit 29). */
  if (!(ecx & (1u << 12)) || !(ecx & (1u << 28)) || !(ecx & (1u << 29))) return 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
  return (ebx & (1u << 5)) != 0;
}

/* The VEX-encoded VNNI (leaf 7 subleaf 1, EAX bit 4) beside AVX2. */
static int detect_avx_vnni(void) {
  unsigned eax, ebx, ecx, edx;
  if (!detect_avx2()) return 0;
  if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) return 0;
  return (eax & (1u << 4)) != 0;
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

static int has_avx512_vnni(void) {
  static int slot = -1;
  return cached(&slot, detect_avx512_vnni);
}

static int has_avx_vnni(void) {
  static int slot = -1;
  return cached(&slot, detect_avx_vnni);
}

static int has_avx2(void) { return cnk_kernel_set_avx2() != 0; }

/* The AVX2 set's int8 variant; also the AVX-512 set's on a CPU without AVX-512 VNNI. */
const cnk_int8_kernels *cnk_int8_for_avx2(void) {
  return has_avx_vnni() ? &cnk_int8_avx_vnni : &cnk_int8_avx2;
}

const cnk_int8_kernels *cnk_int8_for_avx512(void) {
  return has_avx512_vnni() ? &cnk_int8_avx512_vnni : cnk_int8_for_avx2();
}

static const int8_variant int8_variants[] = {
    {&cnk_int8_avx512_vnni, has_avx512_vnni},
    {&cnk_int8_avx_vnni, has_avx_vnni},
    {&cnk_int8_avx2, has_avx2},
    {&cnk_int8_portable, always},
};

#elif defined(__aarch64__)
#include <sys/auxv.h>

/* Linux's HWCAP bit for the ARMv8.2 dot product (asm/hwcap.h), for C libraries without it. */
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1ul << 20)
#endif

const cnk_kernel_set *cnk_kernel_set_avx512(void) { return 0; }
const cnk_kernel_set *cnk_kernel_set_avx2(void) { return 0; }
const cnk_kernel_set *cnk_kernel_set_neon(void) { return &cnk_generic_set_neon; }

static int has_dotprod(void) { return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0; }

const cnk_int8_kernels *cnk_int8_for_neon(void) {
  return has_dotprod() ? &cnk_int8_neon_dotprod : &cnk_int8_neon;
}

static const int8_variant int8_variants[] = {
    {&cnk_int8_neon_dotprod, has_dotprod},
    {&cnk_int8_neon, always},
    {&cnk_int8_portable, always},
};

#else
const cnk_kernel_set *cnk_kernel_set_avx512(void) { return 0; }
const cnk_kernel_set *cnk_kernel_set_avx2(void) { return 0; }
const cnk_kernel_set *cnk_kernel_set_neon(void) { return 0; }

static const int8_variant int8_variants[] = {{&cnk_int8_portable, always}};
#endif

const cnk_int8_kernels *cnk_int8_for_portable(void) { return &cnk_int8_portable; }

const cnk_int8_kernels *cnk_int8_kernels_variant(const char *name) {
  for (size_t i = 0; i < sizeof int8_variants / sizeof int8_variants[0]; i++) {
    const cnk_int8_kernels *kernels = int8_variants[i].kernels;
    if (strcmp(name, kernels->name) == 0 && int8_variants[i].runs()) return kernels;
  }
  return 0;
}
