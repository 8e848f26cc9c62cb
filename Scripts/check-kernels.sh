#!/usr/bin/env bash
# Differential test of the C kernel sets (Tests/CKernelCheck/kernel_check.c) and their int8
# variants (int8_check.c) against scalar references: built for this machine and run for every
# set and variant its CPU supports, then cross-built for aarch64 and run under qemu-user (the
# NEON and portable sets, int8 with and without dot product), since this machine cannot run
# Swift for aarch64. Needs clang (the Swift toolchain's), and for aarch64 qemu-user-static,
# libc6-dev-arm64-cross and libgcc-12-dev-arm64-cross (Scripts/setup --test-tools).
#   Scripts/check-kernels.sh [--host-only]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
out=.build/kernel-check
mkdir -p "$out"
sources=(Tests/CKernelCheck/kernel_check.c Tests/CKernelCheck/int8_check.c
  Sources/CNative/Kernels/*.c)
flags=(-std=gnu11 -O2 -Wall -Wextra -Werror -ISources/CNative/include -ISources/CNative/Kernels
  -ITests/CKernelCheck)

echo "== kernel sets on this CPU ($(uname -m)), with AddressSanitizer and UBSan"
clang "${flags[@]}" -g -fsanitize=address,undefined -fno-sanitize-recover=all -fuse-ld=lld \
  -o "$out/kernel_check" "${sources[@]}" -lm -lpthread
ASAN_OPTIONS=detect_leaks=0 "$out/kernel_check"

[ "${1:-}" = "--host-only" ] && exit 0
if [ "$(uname -m)" = aarch64 ]; then exit 0; fi
echo "== NEON and portable sets, int8 with and without dot product (aarch64 under qemu)"
if ! command -v qemu-aarch64-static >/dev/null || [ ! -d /usr/aarch64-linux-gnu/include ]; then
  echo "error: qemu-user-static and libc6-dev-arm64-cross are missing (Scripts/setup --test-tools)" >&2
  exit 1
fi
clang --target=aarch64-linux-gnu --sysroot=/usr/aarch64-linux-gnu --gcc-toolchain=/usr \
  -fuse-ld=lld -static "${flags[@]}" -o "$out/kernel_check-aarch64" "${sources[@]}" -lm -lpthread
# -cpu max has the dot product (HWCAP_ASIMDDP); the variant without it is forced by name.
qemu-aarch64-static -cpu max "$out/kernel_check-aarch64" neon portable neon-dotprod
