#!/usr/bin/env bash
# Classifies the photos of a folder in N shards that GNU parallel runs, on this host or over ssh
# on several, and keeps one JSON Lines file per shard:
#
#   Samples/Sharding/classify-parallel.sh DIR N OUT [CLASSIFY_OPTIONS...]
#   Samples/Sharding/merge.sh OUT DIR > all.jsonl
#
# Shard i runs `vision-catalog classify DIR --shard i/N` and writes OUT/shard-i.jsonl (its
# progress and errors in OUT/shard-i.jsonl.err); OUT/parallel.log has one line per shard (host,
# run time, exit status). Exit status: how many shards failed (a shard with a photo that cannot be
# decoded counts, though its other photos are in its file). Environment:
#   VISION_CATALOG  the command to run (default: vision-catalog on PATH); on other hosts, its path
#                   there
#   JOBS            shards run at once on each host (default: one per core, parallel's 100%)
#   THREADS         --threads of each shard (default: 1, so JOBS x THREADS fills the cores)
#   SSHLOGIN        parallel's --sshlogin, e.g. "2/alice@node1,2/node2,:" (":" is this host);
#                   DIR, OUT's parent and VISION_CATALOG must then be the same paths on every
#                   host (a shared file system): the output comes back over ssh, the photos do not
#                   travel
# More shards than job slots balance uneven hosts better; each shard loads the model once.
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: $0 DIR N OUT [CLASSIFY_OPTIONS...]" >&2
  exit 2
fi
# An absolute folder, so every shard on every host lists the same paths and merge.sh can check them.
dir=$(cd "$1" && pwd)
count=$2
out=$3
shift 3
case $count in '' | *[!0-9]* | 0)
  echo "$0: N must be a positive integer, not '$count'" >&2
  exit 2
  ;;
esac
mkdir -p "$out"

ssh=()
if [ -n "${SSHLOGIN:-}" ]; then ssh=(--sshlogin "$SSHLOGIN"); fi
status=0
# -q quotes the command for the shell (and for ssh), so DIR may hold spaces. --results keeps each
# job's standard output in the file it names, also for jobs run on another host; parallel would
# print it as well, hence the redirection.
parallel -q --jobs "${JOBS:-100%}" "${ssh[@]}" --joblog "$out/parallel.log" \
  --results "$out/shard-{}.jsonl" \
  "${VISION_CATALOG:-vision-catalog}" classify "$dir" --shard "{}/$count" \
  --threads "${THREADS:-1}" "$@" ::: $(seq "$count") >/dev/null || status=$?
echo "$0: $count shards in $out ($status failed); merge with merge.sh $out $dir" >&2
exit "$status"
