#!/usr/bin/env bash
# Makes a venv with Pillow and pillow-heif and writes the image-format fixtures (see generate.py):
# WebP files and Pillow's decoding of each as the reference.
# Usage: Scripts/image-fixtures/generate.sh [output-dir]   (default: .cache/image-fixtures)
# The Swift tests look in .cache/image-fixtures (or $IMAGE_FIXTURES_DIR).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/.cache/image-fixtures}"
venv="$root/.cache/image-venv"
[ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" "$here/generate.py" "$root/Samples/coffee.png" "$out"
