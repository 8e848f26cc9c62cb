#!/usr/bin/env bash
# Seeds the Core ML corpus from the small fixtures Scripts/coreml-fixtures/generate.sh writes
# (`Scripts/setup --test-tools` runs it): the hand-built layer networks and the Create ML pipeline.
set -euo pipefail
corpus="$1" root="$3"
fixtures="${COREML_FIXTURES_DIR:-$root/.cache/coreml-fixtures}"
[ -d "$fixtures" ] || { echo "fuzz: $fixtures absent, Core ML seeds only from Fuzz/" >&2; exit 0; }
for model in "$fixtures"/*.mlmodel; do
  [ "$(stat -c %s "$model")" -lt 65536 ] && cp -n "$model" "$corpus/"
done
exit 0
