#!/usr/bin/env bash
# Seeds the ML package corpus from the small ML Programs Scripts/coreml-fixtures/generate.sh
# writes: each package's model.mlmodel and weights/weight.bin.
set -euo pipefail
corpus="$1" root="$3"
fixtures="${COREML_FIXTURES_DIR:-$root/.cache/coreml-fixtures}"
[ -d "$fixtures" ] || { echo "fuzz: $fixtures absent, ML package seeds only from Fuzz/" >&2; exit 0; }
for package in "$fixtures"/small_cnn-mlprogram-*.mlpackage; do
  [ -d "$package" ] || continue
  name="$(basename "$package" .mlpackage)"
  cp -n "$package/Data/com.apple.CoreML/model.mlmodel" "$corpus/$name.mlmodel"
  cp -n "$package/Data/com.apple.CoreML/weights/weight.bin" "$corpus/$name.weight.bin"
done
exit 0
