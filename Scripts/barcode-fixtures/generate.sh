#!/usr/bin/env bash
# Makes .cache/barcode-venv (requirements.txt: zxing-cpp's Python binding, NumPy, Pillow,
# scikit-image) and writes the barcode reader's test material (issue 42) into OUT:
# - about 165 synthetic phone photos of every symbology the reader reads, and of codes it must
#   refuse, with expected.json and positions.json (generate.py);
# - zxing-cpp's reads of them (reference.json) and of the committed sample photos in
#   Tests/BarcodesTests/Photos (samples-reference.json), with per-photo read times (reference.py);
#   their summaries go to stdout.
# Usage: Scripts/barcode-fixtures/generate.sh [OUT]   (default: .cache/barcode-fixtures)
# Kept as they are while the scripts, requirements and committed photos are unchanged (a stamp of
# their hashes); about 1.5 minutes and 100 MB from scratch on 2 cores.
set -euo pipefail
export LC_ALL=C PYTHONDONTWRITEBYTECODE=1
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/.cache/barcode-fixtures}"
photos="$root/Tests/BarcodesTests/Photos"
venv="$root/.cache/barcode-venv"
[ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
stamp="$(cat "$here"/requirements.txt "$here"/{generate,gs1,reference}.py "$here"/generate.sh \
  "$photos"/expected.json "$photos"/*.jpg "$photos"/*.png "$photos"/*.webp | sha256sum | cut -d' ' -f1)"
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ]; then
  echo "barcode fixtures: up to date in $out" >&2
  exit 0
fi
# Written beside the old tree and swapped in whole, so an interrupted run leaves the old one.
rm -rf "$out.partial"
"$venv/bin/python" "$here/generate.py" "$out.partial"
"$venv/bin/python" "$here/reference.py" "$out.partial"
"$venv/bin/python" "$here/reference.py" "$photos" --out "$out.partial/samples-reference.json"
echo "$stamp" >"$out.partial/stamp"
rm -rf "$out"
mv "$out.partial" "$out"
