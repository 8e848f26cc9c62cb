#!/usr/bin/env bash
# Seeds the ONNX corpus from ONNX's backend node tests (made by Scripts/onnx-node-tests/generate.sh,
# which `Scripts/setup --test-tools` runs): every model.onnx and one input .pb per case.
set -euo pipefail
corpus="$1" root="$3"
tests="${ONNX_NODE_TESTS_DIR:-$root/.cache/onnx-node-tests}"
[ -d "$tests" ] || { echo "fuzz: $tests absent, ONNX seeds only from Fuzz/" >&2; exit 0; }
[ -n "$(find "$corpus" -name 'node-*' -print -quit)" ] && exit 0
for case in "$tests"/*/; do
  name="$(basename "$case")"
  [ -f "$case/model.onnx" ] && [ "$(stat -c %s "$case/model.onnx")" -lt 65536 ] \
    && cp "$case/model.onnx" "$corpus/node-$name.onnx"
  input="$(find "$case" -name 'input_0.pb' -size -16k -print -quit)"
  [ -n "$input" ] && cp "$input" "$corpus/node-$name.input.pb"
done
exit 0
