#!/usr/bin/env bash
# Builds the libFuzzer harnesses under Fuzz/ and runs each for a given time.
#
# Usage: Scripts/fuzz.sh [seconds-per-harness] [harness...]   (default 120 s, every harness)
#
# Each harness is compiled with `swiftc -sanitize=fuzzer,address` together with the module
# sources it needs (and the C target CNative, built with clang's fuzzer-no-link,address),
# so Package.swift and `swift build` are untouched. Independent modules, and then the harnesses,
# build side by side (as many at a time as there are cores). Working corpora live in
# .cache/fuzz/corpus/, seeded from Fuzz/<Harness>/seeds, ../shared (when present) and
# Fuzz/Regressions/<Harness>.
# Crashers, hangs (-timeout=2) and leaks are kept in .cache/fuzz/artifacts/<Harness>/ and make the
# script exit non-zero; minimize one with `-minimize_crash=1` and commit it to
# Fuzz/Regressions/<Harness>/ together with the fix and a unit test.
# Environment: FUZZ_JOBS (default 1: one in-process fuzzer) sets libFuzzer's -jobs and -workers;
# SWIFT_BIN overrides the toolchain directory (default: where `swiftc` on PATH lives, else
# /opt/swift/usr/bin).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

seconds="${1:-120}"
shift || true
all_harnesses=(PNGDecode JPEGDecode WebPDecode HEIFDecode EXIFOrientation ONNXLoad CoreMLDecode MLPackageLoad PTHLoad NPYDecode ODataJSON ODataMetadata QueryRoundTrip BarcodeRead IndexOpen)
if [ $# -gt 0 ]; then harnesses=("$@"); else harnesses=("${all_harnesses[@]}"); fi

if [ -z "${SWIFT_BIN:-}" ]; then
  if command -v swiftc >/dev/null; then SWIFT_BIN="$(dirname "$(command -v swiftc)")"
  else SWIFT_BIN=/opt/swift/usr/bin; fi
fi
swiftc="$SWIFT_BIN/swiftc"
clang="$SWIFT_BIN/clang"
jobs="${FUZZ_JOBS:-1}"
shared="$(cd "$root/.." && pwd)/shared"

build="$root/.cache/fuzz/build"
mkdir -p "$build/c" "$build/cxx" "$build/modules" "$build/bin" "$build/modulemap/CNative"
# One package name for the modules and the harnesses, as SwiftPM gives its targets, so a harness
# can reach the `package` declarations (ONNXTensor, the ONNX object model) that it fuzzes.
swift_flags=(-use-ld=lld -swift-version 6 -parse-as-library -O -g -sanitize=fuzzer,address
  -package-name vision_catalog
  -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
  -enable-upcoming-feature MemberImportVisibility -I "$build/modules"
  -I "$root/Sources/CLibPNG" -I "$root/Sources/CLibJPEG" -I "$root/Sources/CLibDeflate"
  -I "$root/Sources/CLibWebP" -I "$root/Sources/CLibHeif"
  -Xcc "-fmodule-map-file=$build/modulemap/CNative/module.modulemap"
  -Xcc "-fmodule-map-file=$root/Sources/CBarcodes/include/module.modulemap"
  -Xcc "-fmodule-map-file=$root/Sources/CPostgres/include/module.modulemap"
  $(pkg-config --cflags-only-I libpng libjpeg libdeflate libwebpdemux libheif | sed 's/-I/-Xcc -I/g'))

# Rebuilds only when an input is newer than the output.
stale() {
  local output="$1"; shift
  [ ! -e "$output" ] && return 0
  [ -n "$(find "$@" -newer "$output" -print -quit 2>/dev/null)" ]
}

write_modulemap() {
  cat >"$build/modulemap/CNative/module.modulemap" <<MAP
module CNative {
  header "$root/Sources/CNative/include/CNative.h"
  export *
}
MAP
}

build_c() {
  local file object
  # CBarcodes: the barcode reader's C interface over zxing-cpp, for the Barcodes harness.
  object="$build/cxx/barcode_reader.o"
  if stale "$object" "$root/Sources/CBarcodes"; then
    "$clang" -x c++ -std=c++17 -c -O1 -g -fsanitize=fuzzer-no-link,address \
      -I "$root/Sources/CBarcodes/include" "$root/Sources/CBarcodes/barcode_reader.cpp" -o "$object"
  fi
  # CPostgres: libpq behind a deadline, which VisualSearch links for its pgvector store.
  object="$build/cxx/postgres_client.o"
  if stale "$object" "$root/Sources/CPostgres"; then
    "$clang" -c -O1 -g -fsanitize=fuzzer-no-link,address -I "$root/Sources/CPostgres/include" \
      "$root/Sources/CPostgres/postgres_client.c" -o "$object"
  fi
  for file in "$root"/Sources/CNative/*/*.c; do
    object="$build/c/$(basename "$file" .c).o"
    if stale "$object" "$root/Sources/CNative"; then
      "$clang" -c -O1 -g -fsanitize=fuzzer-no-link,address -I "$root/Sources/CNative/include" \
        $(pkg-config --cflags libpng libjpeg libdeflate libwebpdemux libheif) "$file" -o "$object"
    fi
  done
}

# build_module NAME [DEPENDENCY...]: a static library and module interface from Sources/NAME,
# rebuilt when its sources, CNative or a dependency's library (built before it) changed.
build_module() {
  local name="$1" dependency
  shift
  local library="$build/modules/lib$name.a"
  local sources=() dependencies=()
  for dependency in "$@"; do dependencies+=("$build/modules/lib$dependency.a"); done
  mapfile -t sources < <(find "$root/Sources/$name" -name '*.swift' | sort)
  if stale "$library" "$root/Sources/$name" "$root/Sources/CNative" "${dependencies[@]}"; then
    echo "fuzz: building $name" >&2
    (cd "$build/modules" && "$swiftc" "${swift_flags[@]}" -module-name "$name" \
      -emit-module -emit-module-path "$build/modules/$name.swiftmodule" \
      -emit-library -static -o "$library" "${sources[@]}")
  fi
}

# The modules each harness imports, lowest first (the first line of Fuzz/<Harness>/MODULE,
# names separated by spaces; each module depends on those before it).
modules_of() { head -n 1 "$root/Fuzz/$1/MODULE"; }

build_harness() {
  local harness="$1" module modules
  read -r -a modules <<<"$(modules_of "$harness")"
  local binary="$build/bin/$harness"
  local link=() shared=() native=false barcodes=false postgres=false
  for module in "${modules[@]}"; do
    link+=("$build/modules/lib$module.a")
    if [ "$module" = ImagePipeline ] || [ "$module" = NeuralCore ]; then native=true; fi
    if [ "$module" = Barcodes ]; then barcodes=true; fi
    if [ "$module" = VisualSearch ]; then postgres=true; fi
  done
  if [ "$barcodes" = true ]; then link+=("$build/cxx/barcode_reader.o"); fi
  if [ "$postgres" = true ]; then link+=("$build/cxx/postgres_client.o"); fi
  if stale "$binary" "$root/Fuzz/$harness" "$root/Fuzz/Shared" "${link[@]}"; then
    echo "fuzz: building harness $harness" >&2
    if [ "$native" = true ]; then
      # CNative: the codecs and the kernels (a harness that plans a network reaches them).
      link+=("$build"/c/*.o $(pkg-config --libs libpng libjpeg libdeflate libwebpdemux libheif libde265))
    fi
    if [ "$barcodes" = true ]; then link+=(-lZXing -ldmtx -lzbar -lstdc++); fi
    if [ "$postgres" = true ]; then link+=(-lpq); fi
    [ "${modules[0]}" = ImagePipeline ] && shared=("$root/Fuzz/Shared/ImageDecoding.swift")
    "$swiftc" "${swift_flags[@]}" -module-name "${harness}Fuzz" \
      "$root"/Fuzz/"$harness"/*.swift "${shared[@]}" "${link[@]}" -o "$binary"
  fi
}

# seed_corpus HARNESS DIR: copies seeds into a fresh working corpus once.
seed_corpus() {
  local harness="$1" corpus="$2"
  mkdir -p "$corpus"
  [ -d "$root/Fuzz/$harness/seeds" ] && cp -n "$root/Fuzz/$harness/seeds/"* "$corpus/" 2>/dev/null || true
  [ -d "$root/Fuzz/Regressions/$harness" ] && cp -n "$root/Fuzz/Regressions/$harness/"* "$corpus/" 2>/dev/null || true
  if [ -x "$root/Fuzz/$harness/seed.sh" ]; then
    "$root/Fuzz/$harness/seed.sh" "$corpus" "$shared" "$root"
  fi
}

# build_chain LINES: each module of the newline-separated MODULE lines once, after the modules
# before it on its line.
build_chain() {
  local -A seen=()
  local line module index modules
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    read -r -a modules <<<"$line"
    for index in "${!modules[@]}"; do
      module="${modules[$index]}"
      [ -n "${seen[$module]:-}" ] && continue
      build_module "$module" "${modules[@]:0:$index}"
      seen[$module]=1
    done
  done <<<"$1"
}

# wait_all PID...: waits for every job; fails if any failed.
wait_all() {
  local pid failed=0
  for pid in "$@"; do wait "$pid" || failed=1; done
  return $failed
}

# The MODULE lines grouped by their first module: groups share no module (each module's line
# starts at the lowest module it needs), so they build side by side, beside the C objects.
declare -A chains=()
for harness in "${harnesses[@]}"; do
  [ -f "$root/Fuzz/$harness/MODULE" ] || { echo "fuzz: no harness $harness" >&2; exit 2; }
  line="$(modules_of "$harness")"
  chains[${line%% *}]+="$line"$'\n'
done
write_modulemap
jobs_running=()
build_c &
jobs_running+=($!)
for first in "${!chains[@]}"; do
  build_chain "${chains[$first]}" &
  jobs_running+=($!)
done
wait_all "${jobs_running[@]}" || { echo "fuzz: a module failed to build" >&2; exit 1; }
# The harnesses, as many at a time as there are cores.
cores="$(nproc)"
for ((first = 0; first < ${#harnesses[@]}; first += cores)); do
  jobs_running=()
  for harness in "${harnesses[@]:first:cores}"; do
    build_harness "$harness" &
    jobs_running+=($!)
  done
  wait_all "${jobs_running[@]}" || { echo "fuzz: a harness failed to build" >&2; exit 1; }
done

status=0
summary=()
for harness in "${harnesses[@]}"; do
  corpus="$root/.cache/fuzz/corpus/$harness"
  artifacts="$root/.cache/fuzz/artifacts/$harness"
  mkdir -p "$artifacts"
  seed_corpus "$harness" "$corpus"
  log="$root/.cache/fuzz/$harness.log"
  dictionary=()
  [ -f "$root/Fuzz/$harness/dictionary.txt" ] && dictionary=(-dict="$root/Fuzz/$harness/dictionary.txt")
  echo "fuzz: running $harness for $seconds s" >&2
  started=$(date +%s)
  parallel=()
  [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
  set +e
  # libFuzzer writes fuzz-<n>.log files into the working directory when it runs jobs.
  (cd "$root/.cache/fuzz" && ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
    LSAN_OPTIONS="suppressions=$root/Fuzz/lsan-suppressions.txt" \
    "$build/bin/$harness" "$corpus" -max_total_time="$seconds" -timeout=2 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${parallel[@]}" "${dictionary[@]}" \
    >"$log" 2>&1)
  result=$?
  set -e
  if [ "$jobs" -gt 1 ]; then
    cat "$root"/.cache/fuzz/fuzz-*.log >>"$log" 2>/dev/null || true
    rm -f "$root"/.cache/fuzz/fuzz-*.log
  fi
  elapsed=$(( $(date +%s) - started ))
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s+=$2} END {print s+0}')
  files=$(find "$corpus" -type f | wc -l)
  bytes=$(du -sk "$corpus" | cut -f1)
  per_second=$(( elapsed > 0 ? runs / elapsed : runs ))
  found=$(find "$artifacts" -type f -newermt "@$started" | wc -l)
  verdict=ok
  if [ $result -ne 0 ] || [ "$found" -gt 0 ]; then
    verdict="FAILED (exit $result, $found new artifacts; see $log)"
    status=1
  fi
  summary+=("$(printf '%-16s %8s s %10s runs %8s exec/s %6s files %7s KiB  %s' \
    "$harness" "$elapsed" "$runs" "$per_second" "$files" "$bytes" "$verdict")")
done

echo "fuzz summary (${seconds} s per harness):"
printf '%s\n' "${summary[@]}"
exit $status
