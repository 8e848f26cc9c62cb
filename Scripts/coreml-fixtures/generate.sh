#!/usr/bin/env bash
# Makes a venv with coremltools 9.0 (numpy 2.3.5), torch and torchvision, and builds the Core ML
# test fixtures with PyTorch's reference outputs (see generate.py).
# Usage: Scripts/coreml-fixtures/generate.sh [output-dir]   (default: .cache/coreml-fixtures)
# The photos: Samples/coffee.png, and ../shared/models/photos when it is there.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/.cache/coreml-fixtures}"
venv="$root/.cache/coreml-venv"
python="${PYTHON:-python3}"
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$root/Scripts/onnx-zoo/install-requirements.sh" "$venv" "$here/requirements.txt"
photos=("$root/Samples/coffee.png")
shared="$root/../shared/models/photos"
if [ -d "$shared" ]; then
  for photo in "$shared"/*.jpg "$shared"/*.png; do
    [ "$(basename "$photo")" = coffee.png ] || photos+=("$photo")
  done
fi
# coremltools reports every pass and layer; keep the script's own lines and real errors.
"$venv/bin/python" "$here/generate.py" "$out" "${photos[@]}" 2>&1 | { grep -v -E \
  'Running MIL|Translating MIL|Converting PyTorch|Quantizing layer|Optimizing Neural|libcoremlpython|not been tested with coremltools|^\s*$' || true; } >&2
