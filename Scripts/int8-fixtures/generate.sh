#!/usr/bin/env bash
# Quantizes EfficientNet-Lite0 (from ../shared/models, or its rebuild), a seeded torchvision
# MobileNet v2 and a seeded PP-LCNet to int8 with ONNX Runtime's quantizer (QDQ and QOperator, static and dynamic), and
# writes ONNX Runtime's outputs for them, optimized and unoptimized, beside the fp32 outputs and a
# manifest (see generate.py). Uses the zoo's venv (Scripts/onnx-zoo/generate.sh makes it).
# Usage: Scripts/int8-fixtures/generate.sh [output-dir] [--benchmark]
#   (default: .cache/int8-fixtures; --benchmark prints ORT's per-image latency on stdout)
# Fixtures already written by the same generator are kept. About a minute from scratch.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/.cache/int8-fixtures"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then out="$1"; shift; fi
python="$("$root/Scripts/torch-venv/make.sh")"
# ../shared/models, or its rebuild from PyPI (Scripts/reference-models) where it is absent.
shared="${VISION_CATALOG_SHARED_ROOT:-$root/../shared}/models"
[ -f "$shared/ref/manifest.json" ] || shared="$root/.cache/reference-models"
arguments=("$out")
if [ -f "$shared/ref/manifest.json" ]; then
  arguments+=(--shared "$(cd "$shared" && pwd)")
  for photo in "$shared"/photos/*.jpg "$shared"/photos/*.png; do arguments+=("$photo"); done
else
  arguments+=("$root/Samples/coffee.png")
fi
"$python" "$here/generate.py" "${arguments[@]}" "$@"
