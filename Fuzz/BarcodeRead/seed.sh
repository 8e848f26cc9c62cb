#!/usr/bin/env bash
# Seeds the barcode corpus with the committed sample photos (each prefixed with the byte that
# selects the photo mode), scaled down under 64 KiB where the fuzzer's byte budget needs it.
set -euo pipefail
corpus="$1" root="$3"
for file in "$root"/Tests/BarcodesTests/Photos/*.{jpg,png,webp}; do
  [ -f "$file" ] || continue
  [ "$(stat -c %s "$file")" -le 65536 ] || continue
  { printf '\x00'; cat "$file"; } >"$corpus/$(basename "$file").seed"
done
