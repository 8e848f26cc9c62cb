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
# torch's CPU-only wheel (torch==2.13.0+cpu) when pip can find it (a local wheel or PyTorch's CPU
# index in pip's configuration); otherwise PyPI's torch 2.13.0, which also runs on the CPU.
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"; then
  echo "generate.sh: torch==2.13.0+cpu not found; using PyPI's torch==2.13.0" >&2
  sed 's/^torch==2.13.0+cpu$/torch==2.13.0/' "$here/requirements.txt" >"$venv/requirements.txt"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$venv/requirements.txt"
fi
"$venv/bin/python" "$here/generate.py" "$out" "$@"
