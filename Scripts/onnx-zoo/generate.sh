#!/usr/bin/env bash
# In the shared torch venv (Scripts/torch-venv), exports torchvision's classification zoo with
# ONNX Runtime's reference outputs (see generate.py).
# Usage: Scripts/onnx-zoo/generate.sh [output-dir] [--only NAME ... | --tier debug]
#   (default: .cache/onnx-zoo; --tier debug writes only the small cases the debug tests run)
# Cases already written are kept; the Swift tests look in .cache/onnx-zoo (or $ONNX_ZOO_DIR).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/.cache/onnx-zoo"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then out="$1"; shift; fi
python="$("$root/Scripts/torch-venv/make.sh")"
"$python" "$here/generate.py" "$out" "$@"
