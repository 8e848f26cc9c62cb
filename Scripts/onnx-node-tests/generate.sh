#!/usr/bin/env bash
# Makes a venv with the pinned onnx package and writes ONNX's backend node test cases.
# Usage: Scripts/onnx-node-tests/generate.sh [output-dir]   (default: .cache/onnx-node-tests)
# The Swift tests look for the cases in .cache/onnx-node-tests (or $ONNX_NODE_TESTS_DIR).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/.cache/onnx-node-tests}"
venv="$root/.cache/venv"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" "$here/generate.py" "$out"
