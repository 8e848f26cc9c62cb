#!/usr/bin/env bash
# Measures the accuracy cost of the default DCT-domain JPEG scaling against exact (full-size)
# decoding with the default model: per photo top-1 agreement, top-5 overlap, mean and max
# absolute logit difference, and decode+preprocess milliseconds of each mode.
#   Scripts/measure-dct-accuracy.sh [SHARED_DIR]      (default ../shared)
# Photos: the reference photos, the benchmark inputs, large upscaled versions of the reference
# photos (12 MP with EXIF 6, and 1800 px), and the real large JPEGs of the shared test data.
# Needs the default model (Scripts/fetch-default-model.sh) and Pillow (installed in
# .cache/bench-venv from Benchmarks/Scripts/requirements.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${1:-../shared}"

venv=.cache/bench-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q -r Benchmarks/Scripts/requirements.txt

swift build -c release --product Benchmarks >&2
bench="$(swift build -c release --show-bin-path)/Benchmarks"
inputs=.cache/bench-inputs
"$bench" --make-inputs "$inputs" >&2
large=.cache/dct-photos
"$venv/bin/python" Benchmarks/Scripts/make_large_photos.py "$shared/models/photos" "$large"

real=()
for file in "$shared"/testdata/exif-orientation-examples/*.jpg \
  "$shared"/testdata/pillow-tests-images/xmp_test.jpg; do
  [ -f "$file" ] && real+=("$file")
done
echo "# reference photos"
"$bench" --dct-accuracy "$shared"/models/photos/*.jpg "$shared"/models/photos/*.png
echo "# benchmark inputs and upscaled reference photos"
"$bench" --dct-accuracy "$inputs"/*.jpg "$large"/*-12mp-o6.jpg "$large"/*-2mp.jpg
if [ ${#real[@]} -gt 0 ]; then
  echo "# real large photos from the shared test data"
  "$bench" --dct-accuracy "${real[@]}"
fi
