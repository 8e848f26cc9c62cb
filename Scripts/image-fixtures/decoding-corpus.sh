#!/usr/bin/env bash
# Writes the decoding corpus (see decoding_corpus.py) with the image-fixtures venv: PNGs of every
# colour type and bit depth with pypng's decodings, JPEGs with Pillow's, photos in every EXIF
# orientation, and damaged copies of them with the errors they must give. It stands in for
# ../shared's PngSuite, JPEG and EXIF corpora where those are absent; jpegtran
# (libjpeg-turbo-progs) writes its arithmetic-coded JPEGs.
# Usage: Scripts/image-fixtures/decoding-corpus.sh [output-dir]   (default: .cache/decoding-corpus)
# The Swift tests look in .cache/decoding-corpus (or $DECODING_CORPUS_DIR).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/.cache/decoding-corpus}"
venv="$root/.cache/image-venv"
[ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" "$here/decoding_corpus.py" "$root/Samples/coffee.png" "$out"
