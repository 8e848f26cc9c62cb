#!/usr/bin/env bash
# Builds the DocC documentation of every library module with warnings as errors, into
# .build/docs/<Module>.doccarchive. Usage: Scripts/build-docs.sh [Module ...]
set -euo pipefail
cd "$(dirname "$0")/.."
modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
  for catalog in Sources/*/Documentation.docc; do
    modules+=("$(basename "$(dirname "$catalog")")")
  done
fi
graphs=.build/symbol-graphs
rm -rf "$graphs"
swift package dump-symbol-graph --minimum-access-level public >/dev/null
found="$(swift build --show-bin-path)/../symbolgraph"
mkdir -p "$graphs" .build/docs
for module in "${modules[@]}"; do
  mkdir -p "$graphs/$module"
  cp "$found/$module".symbols.json "$found/$module"@*.symbols.json "$graphs/$module/" 2>/dev/null || true
  echo "docs: $module" >&2
  docc convert "Sources/$module/Documentation.docc" \
    --fallback-display-name "$module" --fallback-bundle-identifier "vision-catalog.$module" \
    --additional-symbol-graph-dir "$graphs/$module" \
    --output-path ".build/docs/$module.doccarchive" --warnings-as-errors >/dev/null
done
echo "docs: .build/docs" >&2
