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
# The whole zoo (no --only or --tier) as one process per core (ZOO_JOBS to choose), each writing
# every n-th case into the same folder; the manifest is updated under a lock.
jobs="${ZOO_JOBS:-$(nproc)}"
if [ $# -eq 0 ] && [ "$jobs" -gt 1 ]; then
  pids=()
  for shard in $(seq 0 $((jobs - 1))); do
    "$python" "$here/generate.py" "$out" --shard "$shard/$jobs" &
    pids+=($!)
  done
  status=0
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  exit "$status"
fi
"$python" "$here/generate.py" "$out" "$@"
