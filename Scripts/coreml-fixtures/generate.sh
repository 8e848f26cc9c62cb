#!/usr/bin/env bash
# In the shared torch venv (Scripts/torch-venv: coremltools 9.0, torch, torchvision), builds the Core ML
# test fixtures with PyTorch's reference outputs (see generate.py).
# Usage: Scripts/coreml-fixtures/generate.sh [output-dir]   (default: .cache/coreml-fixtures)
# The photos: Samples/coffee.png, and ../shared/models/photos when it is there.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/.cache/coreml-fixtures}"
python="$("$root/Scripts/torch-venv/make.sh")"
photos=("$root/Samples/coffee.png")
shared="${VISION_CATALOG_SHARED_ROOT:-$root/../shared}/models/photos"
if [ -d "$shared" ]; then
  for photo in "$shared"/*.jpg "$shared"/*.png; do
    [ "$(basename "$photo")" = coffee.png ] || photos+=("$photo")
  done
fi
# coremltools reports every pass and layer; keep the script's own lines and real errors.
"$python" "$here/generate.py" "$out" "${photos[@]}" 2>&1 | { grep -v -E \
  'Running MIL|Translating MIL|Converting PyTorch|Quantizing layer|Optimizing Neural|libcoremlpython|not been tested with coremltools|^\s*$' || true; } >&2
