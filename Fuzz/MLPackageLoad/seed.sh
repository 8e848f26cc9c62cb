#!/usr/bin/env bash
# Seeds the ML package corpus from the ML Programs Scripts/coreml-fixtures/generate.sh writes:
# per package, its model.mlmodel and the first 64 KiB of its weights/weight.bin framed as the
# harness reads them (4-byte little-endian model length, model, blob file), and each file alone.
set -euo pipefail
corpus="$1" root="$3"
fixtures="${COREML_FIXTURES_DIR:-$root/.cache/coreml-fixtures}"
[ -d "$fixtures" ] || { echo "fuzz: $fixtures absent, ML package seeds only from Fuzz/" >&2; exit 0; }
for package in "$fixtures"/small_cnn-mlprogram-*.mlpackage "$fixtures"/mlprogram-layers_*.mlpackage \
  "$fixtures"/mlprogram-vit-fp16-rgb.mlpackage "$fixtures"/mlprogram-mobilenet_v2-pal4-rgb.mlpackage; do
  [ -d "$package" ] || continue
  name="$(basename "$package" .mlpackage)"
  model="$package/Data/com.apple.CoreML/model.mlmodel"
  weights="$package/Data/com.apple.CoreML/weights/weight.bin"
  cp -n "$model" "$corpus/$name.mlmodel"
  [ -f "$weights" ] || continue
  head -c 65536 "$weights" >"$corpus/$name.weight.bin"
  python3 - "$model" "$corpus/$name.weight.bin" "$corpus/$name.framed" <<'PY'
import struct, sys
model = open(sys.argv[1], "rb").read()
blob = open(sys.argv[2], "rb").read()
open(sys.argv[3], "wb").write(struct.pack("<I", len(model)) + model + blob)
PY
done
exit 0
