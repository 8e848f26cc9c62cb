#!/usr/bin/env bash
# Seeds the PNG corpus from ../shared's PNG corpora (files under 64 KiB), when present.
set -euo pipefail
corpus="$1" shared="$2"
[ -d "$shared/testdata" ] || { echo "fuzz: $shared/testdata absent, PNG seeds only from Fuzz/" >&2; exit 0; }
find "$shared/testdata/pngsuite" "$shared/testdata/image-png-tests-fuzz" \
  "$shared/testdata/pillow-tests-images" -type f -iname '*.png' -size -64k 2>/dev/null \
  | while read -r file; do cp -n "$file" "$corpus/$(echo "$file" | md5sum | cut -c1-16).png"; done
