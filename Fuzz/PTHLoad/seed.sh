#!/usr/bin/env bash
# Seeds the checkpoint corpus with both torch.save layouts, written by the standard-library-only
# Scripts/make-checkpoint-fixtures.py.
set -euo pipefail
corpus="$1" root="$3"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
python3 "$root/Scripts/make-checkpoint-fixtures.py" "$scratch" >/dev/null
cp -n "$scratch/zip.pth" "$scratch/legacy.pth" "$corpus/"
