#!/usr/bin/env bash
# Checks that client code cannot change the storage whose size the pointer code relies on:
# `RasterImage.pixels` (ImagePipeline) and `Tensor.scalars` (NeuralCore). Type-checks small
# snippets against the built modules: a control that reads both and sets `orientation` must
# compile (so a broken search path cannot pass for success), and each mutation must FAIL with an
# error about the setter or immutability.
# Usage: Scripts/check-immutable-storage.sh [bin-dir]   (default .build/debug; build first with
#   `swift build --target ImagePipeline --target NeuralCore` or any build that includes them)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-.build/debug}"
for module in ImagePipeline NeuralCore; do
  if [ ! -e "$bin/Modules/$module.swiftmodule" ]; then
    echo "check-immutable-storage: $bin/Modules/$module.swiftmodule is missing; build first" >&2
    exit 2
  fi
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The modules import the CNative C target internally; the client needs its module map to load them.
flags=(-typecheck -swift-version 6 -I "$bin/Modules"
  -Xcc "-fmodule-map-file=$bin/CNative.build/module.modulemap")

cat >"$work/control.swift" <<'EOF'
import ImagePipeline
import NeuralCore

func control(_ image: inout RasterImage, _ tensor: Tensor) -> Int {
  image.orientation = .left
  return image.pixels.count + tensor.scalars.count
}
EOF
if ! swiftc "${flags[@]}" "$work/control.swift" >"$work/control.log" 2>&1; then
  cat "$work/control.log" >&2
  echo "check-immutable-storage: FAIL: the control snippet does not compile" >&2
  exit 1
fi
echo "ok: reading pixels and scalars and setting orientation compiles"

failures=0
# expect_rejected NAME PROPERTY SOURCE: SOURCE must fail to compile with an error on PROPERTY's
# setter or mutability.
expect_rejected() {
  local name="$1" property="$2" source="$3"
  printf '%s\n' "$source" >"$work/$name.swift"
  if swiftc "${flags[@]}" "$work/$name.swift" >"$work/$name.log" 2>&1; then
    echo "FAIL: compiles, but must not: ${source##*$'\n'}"
    failures=$((failures + 1))
  elif grep -Eq "error: .*'$property' (setter is inaccessible|is a 'let' constant)" "$work/$name.log"
  then
    echo "ok: rejected: ${source##*$'\n'}"
    echo "    $(grep -Em1 "error: .*'$property'" "$work/$name.log" | sed 's/^.*error: /error: /')"
  else
    cat "$work/$name.log"
    echo "FAIL: rejected for another reason than '$property' being read-only"
    failures=$((failures + 1))
  fi
}

expect_rejected pixels pixels 'import ImagePipeline
func mutate(_ image: inout RasterImage) { image.pixels = [1, 2, 3] }'
expect_rejected scalars scalars 'import NeuralCore
func mutate(_ tensor: inout Tensor) { tensor.scalars.append(1) }'

if [ "$failures" -ne 0 ]; then
  echo "check-immutable-storage: $failures check(s) failed" >&2
  exit 1
fi
echo "check-immutable-storage: storage is read-only outside its module"
