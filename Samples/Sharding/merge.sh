#!/usr/bin/env bash
# Joins the shard files of classify-parallel.sh or classify-slurm.sbatch into the JSON Lines an
# unsharded `vision-catalog classify DIR` prints (same lines, same order) and checks that every
# photo of DIR is in it exactly once:
#
#   Samples/Sharding/merge.sh OUT DIR > all.jsonl
#
# OUT holds shard-1.jsonl ... shard-N.jsonl. The joined lines always go to standard output; the
# exit status is 1, with the problems on standard error, when a shard file is missing, a photo
# appears twice (a shard counted twice, or shards of runs with different N mixed), a photo of DIR
# is missing, or a line names a file classify would not pick. A summary goes to standard error.
# Photos that were found but could not be classified are lines with "error"; they are counted,
# not failures of the merge. Needs only POSIX tools (no jq).
set -euo pipefail
export LC_ALL=C

if [ $# -ne 2 ]; then
  echo "usage: $0 OUT DIR > all.jsonl" >&2
  exit 2
fi
out=$1
dir=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
problems=0
problem() {
  echo "$0: $*" >&2
  problems=$((problems + 1))
}

# N is the highest shard number present; each of 1...N must be there.
count=0
for file in "$out"/shard-*.jsonl; do
  number=${file##*/shard-}
  number=${number%.jsonl}
  case $number in '' | *[!0-9]*) continue ;; esac
  if [ "$number" -gt "$count" ]; then count=$number; fi
done
if [ "$count" -eq 0 ]; then
  echo "$0: no shard-I.jsonl files in $out" >&2
  exit 1
fi
: >"$work/merged"
for index in $(seq "$count"); do
  if [ -f "$out/shard-$index.jsonl" ]; then
    cat "$out/shard-$index.jsonl" >>"$work/merged"
  else
    problem "shard $index of $count is missing ($out/shard-$index.jsonl)"
  fi
done

# The "file" value of each line. The CLI writes keys sorted and slashes unescaped; a quote or
# backslash in a name is escaped (\" and \\), which is undone here.
if grep -qvE '[{,]"file":"' "$work/merged"; then
  problem "$(grep -cvE '[{,]"file":"' "$work/merged") lines name no file"
fi
sed -nE 's/^.*[{,]"file":"(([^"\\]|\\.)*)".*$/\1/p' "$work/merged" \
  | sed -e 's/\\"/"/g' -e 's/\\\\/\\/g' | sort >"$work/found"
uniq -d "$work/found" >"$work/twice"
if [ -s "$work/twice" ]; then
  problem "$(wc -l <"$work/twice") photos appear more than once, such as $(head -n 1 "$work/twice")"
fi

# The photos classify picks in DIR: these extensions (ImageFormat.fileExtensions, any case),
# subfolders included, hidden files and folders skipped.
find "$dir" -mindepth 1 -name '.*' -prune -o -type f -print \
  | grep -iE '\.(png|jpg|jpeg|jpe|heic|heif|hif|avif|webp)$' | sort >"$work/expected" || true
sort -u "$work/found" >"$work/unique"
comm -23 "$work/expected" "$work/unique" >"$work/missing"
comm -13 "$work/expected" "$work/unique" >"$work/unexpected"
if [ -s "$work/missing" ]; then
  problem "$(wc -l <"$work/missing") photos of $dir are missing, such as $(head -n 1 "$work/missing")"
fi
if [ -s "$work/unexpected" ]; then
  problem "$(wc -l <"$work/unexpected") lines name files that are not photos of $dir, such as" \
    "$(head -n 1 "$work/unexpected")"
fi

cat "$work/merged"
failed=$(grep -cE '^\{"error":' "$work/merged" || true)
echo "$0: $(wc -l <"$work/merged") lines from $count shards, $(wc -l <"$work/expected") photos" \
  "in $dir, $failed could not be classified" >&2
if [ "$problems" -gt 0 ]; then exit 1; fi
