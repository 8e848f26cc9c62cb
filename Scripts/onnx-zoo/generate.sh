#!/usr/bin/env bash
# Makes a venv with torch, torchvision, onnx, onnxsim and ONNX Runtime, and exports torchvision's
# classification zoo with ONNX Runtime's reference outputs (see generate.py).
# Usage: Scripts/onnx-zoo/generate.sh [output-dir] [--only NAME ...]   (default: .cache/onnx-zoo)
# Cases already written are kept; the Swift tests look in .cache/onnx-zoo (or $ONNX_ZOO_DIR).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/.cache/onnx-zoo"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then out="$1"; shift; fi
venv="$root/.cache/zoo-venv"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$here/install-requirements.sh" "$venv" "$here/requirements.txt"
"$venv/bin/python" "$here/generate.py" "$out" "$@"
