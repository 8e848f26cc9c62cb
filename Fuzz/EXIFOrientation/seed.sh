#!/usr/bin/env bash
# Adds the EXIF blocks of ../shared's orientation examples (JPEG APP1 payloads after `Exif\0\0`),
# each behind a selector byte for the JPEG container.
set -euo pipefail
corpus="$1" shared="$2"
[ -d "$shared/testdata/exif-orientation-examples" ] || exit 0
python3 - "$corpus" "$shared/testdata/exif-orientation-examples" <<'PY'
import pathlib, sys
corpus, examples = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for path in sorted(examples.glob("*.jpg")):
    data = path.read_bytes()
    start = data.find(b"Exif\0\0")
    if start < 6 or data[start - 4:start - 2] != b"\xff\xe1":
        continue
    length = int.from_bytes(data[start - 2:start], "big")
    tiff = data[start + 6:start - 2 + length]
    (corpus / ("shared-" + path.stem)).write_bytes(b"\0" + tiff[:65000])
PY
