#!/usr/bin/env bash
# Times `vision-catalog train` on the 1,000-photo benchmark set (10 labels x 100 JPEGs,
# .cache/trainer-reference/bench-1000) against the same work in Python, alternating rounds, and
# prints the medians and the ratio ours / reference (below 1.0 we are faster):
# - ours, cold: `train DATA --out X.onnx --no-cache --force --threads 2` (release build): reads,
#   decodes and prepares every photo, runs the backbone in batches of 8 at 2 threads, holds out
#   Create ML's automatic validation split (5 % at 1,000 photos: 50 photos, whose features are
#   extracted too), fits the head on the other 950, scores both sets and writes MODEL.onnx + .json;
# - ours, warm: the same with `--cache DIR` after a run that filled DIR (features from the cache);
# - reference (Benchmarks/Scripts/train_reference.py, one process): the fastest preprocessing
#   recipe (picked once before the rounds, untimed), ONNX Runtime features (batch 8, 2 threads, no
#   spinning) and scikit-learn LogisticRegression(C=1, max_iter=100) on all 1,000 photos.
# Each is timed as a whole process (wall clock, start-up and model loading included).
#   Benchmarks/Scripts/train_bench.sh [--rounds N] [--bin DIR] [--kernels SET] [--data DIR]
# --bin names the folder of a release vision-catalog (default: build one, in $SCRATCH when set).
set -euo pipefail
cd "$(dirname "$0")/../.."

rounds=3
bin=""
data=.cache/trainer-reference/bench-1000
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --kernels) export VISION_CATALOG_KERNELS="$2"; shift 2 ;;
    --data) data="$2"; shift 2 ;;
    *) echo "usage: Benchmarks/Scripts/train_bench.sh [--rounds N] [--bin DIR] [--kernels SET] [--data DIR]" >&2; exit 2 ;;
  esac
done

models=../shared/models
if [ "$(find "$data" -name '*.jpg' 2>/dev/null | wc -l)" -lt 1000 ]; then
  echo "training benchmark skipped: $data does not hold the 1,000 JPEGs (run Scripts/trainer-reference/generate.sh)"
  exit 0
fi
if [ ! -f "$models/onnx/efficientnet-lite0.onnx" ]; then
  echo "training benchmark skipped: $models/onnx/efficientnet-lite0.onnx is absent"
  exit 0
fi
venv=.cache/bench-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q -r Benchmarks/Scripts/requirements.txt
if [ -z "$bin" ]; then
  scratch=()
  if [ -n "${SCRATCH:-}" ]; then scratch=(--scratch-path "$SCRATCH"); fi
  swift build -c release --product vision-catalog "${scratch[@]}" >&2
  bin="$(swift build -c release --show-bin-path "${scratch[@]}")"
fi
vc="$bin/vision-catalog"
if ! "$vc" train --help >/dev/null 2>&1; then
  echo "training benchmark skipped: $vc cannot run train"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seconds() { # runs "$@" quietly, prints its wall time in seconds; its stderr goes to $work/last.err
  local start end
  start=$(date +%s%N)
  if ! "$@" >"$work/last.out" 2>"$work/last.err"; then
    echo "failed: $*" >&2
    tail -5 "$work/last.err" >&2
    return 1
  fi
  end=$(date +%s%N)
  awk -v start="$start" -v end="$end" 'BEGIN { printf "%.3f\n", (end - start) / 1e9 }'
}

recipe=$("$venv/bin/python" Benchmarks/Scripts/train_reference.py --pick-recipe 2>"$work/pick.err")
cat "$work/pick.err" >&2
echo "filling the feature cache for the warm runs" >&2
fill=$(seconds "$vc" train "$data" --out "$work/warm.onnx" --cache "$work/cache" --force --threads 2)
echo "  filling run ${fill} s" >&2
for round in $(seq "$rounds"); do
  echo "training round $round of $rounds" >&2
  cold=$(seconds "$vc" train "$data" --out "$work/cold.onnx" --no-cache --force --threads 2)
  summary=$(head -1 "$work/last.out")
  reference=$(seconds "$venv/bin/python" Benchmarks/Scripts/train_reference.py "$data" --recipe "$recipe")
  phases=$(grep '^# reference' "$work/last.err" || true)
  warm=$(seconds "$vc" train "$data" --out "$work/warm.onnx" --cache "$work/cache" --force --threads 2)
  printf '%s\t%s\t%s\n' "$cold" "$reference" "$warm" >>"$work/times.tsv"
  echo "  ours cold ${cold} s ($summary); reference ${reference} s; ours warm ${warm} s" >&2
  echo "  ${phases}" >&2
done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
"$vc" infer --model "$models/onnx/efficientnet-lite0.onnx" \
  --input "$models/ref/efficientnet-lite0/chelsea.input.npy" --output "$work/logits.npy" \
  --runs 1 2>&1 >/dev/null | grep '^kernels=' || true
"$venv/bin/python" - "$work/times.tsv" "$recipe" <<'EOF'
import statistics
import sys

rows = [[float(value) for value in line.split("\t")] for line in open(sys.argv[1])]
cold, reference, warm = (statistics.median(column) for column in zip(*rows))
print(f"train bench-1000 (1,000 photos, 10 labels), medians of {len(rows)} rounds:")
print(f"  ours, cold (--no-cache)         {cold:7.2f} s")
print(f"  reference (ONNX Runtime + {sys.argv[2]} + scikit-learn) {reference:7.2f} s   ratio {cold / reference:.2f}")
print(f"  ours, warm (--cache, filled)    {warm:7.2f} s")
print("  rounds (cold, reference, warm): " + "; ".join(" / ".join(f"{v:.2f}" for v in row) for row in rows))
EOF
