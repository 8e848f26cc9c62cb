#!/usr/bin/env bash
# Installs ONNX Runtime in a venv and runs onnxruntime_bench.py with the given arguments.
# Usage: Benchmarks/Scripts/onnxruntime_bench.sh [--ours "COMMAND"] [--models DIR] [--runs N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.cache/ort-venv"
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/onnxruntime_requirements.txt"
exec "$venv/bin/python" "$here/onnxruntime_bench.py" "$@"
