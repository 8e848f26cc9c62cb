#!/usr/bin/env bash
# Makes a venv with Pillow and pillow-heif (and numpy and pypng, which decoding-corpus.sh uses from
# the same venv) and writes the image-format fixtures (see generate.py): WebP, HEIC and AVIF files
# and a reference decoding of each (Pillow, pillow-heif).
# Usage: Scripts/image-fixtures/generate.sh [output-dir]   (default: .cache/image-fixtures)
# The Swift tests look in .cache/image-fixtures (or $IMAGE_FIXTURES_DIR).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/.cache/image-fixtures}"
venv="$root/.cache/image-venv"
[ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
# pillow-heif's source distribution holds real HEIF files (an iPhone photo among them).
sdist_dir="$root/.cache/pillow-heif-sdist"
version="$(sed -n 's/^pillow-heif==//p' "$here/requirements.txt")"
sdist="$sdist_dir/pillow_heif-$version.tar.gz"
if [ ! -f "$sdist" ]; then
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-binary :all: --no-deps \
    -d "$sdist_dir" "pillow-heif==$version"
fi
"$venv/bin/python" "$here/generate.py" "$root/Samples/coffee.png" "$out" "$sdist"
