#!/usr/bin/env bash
# Seeds the JPEG corpus from ../shared's JPEG corpora (files under 64 KiB), when present.
set -euo pipefail
corpus="$1" shared="$2"
[ -d "$shared/testdata" ] || { echo "fuzz: $shared/testdata absent, JPEG seeds only from Fuzz/" >&2; exit 0; }
find "$shared/testdata/jpeg-decoder-tests" "$shared/testdata/libjpeg-turbo-testimages" \
  "$shared/testdata/pillow-tests-images" "$shared/testdata/exif-orientation-examples" -type f \
  \( -iname '*.jpg' -o -iname '*.jpeg' \) -size -64k 2>/dev/null \
  | while read -r file; do cp -n "$file" "$corpus/$(echo "$file" | md5sum | cut -c1-16).jpg"; done
