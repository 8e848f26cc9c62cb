"""Pairs benchmark rows by name and prints medians and the ratio ours / reference.

Usage: ratios.py OURS.tsv REFERENCE.tsv [REFERENCE.tsv ...]
Each file holds rows `name, median_ms, min_ms, iterations` from one or more rounds (header lines are
skipped); a name measured in several rounds is summarized by the median of its round medians.
A ratio below 1.0 means we are faster.
"""

import statistics
import sys
from collections import defaultdict


def load(path):
    rows = defaultdict(list)
    with open(path) as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 3 or fields[0] == "name" or line.startswith("#"):
                continue
            rows[fields[0]].append(float(fields[1]))
    return {name: statistics.median(values) for name, values in rows.items()}


def main():
    ours = load(sys.argv[1])
    references = {}
    for path in sys.argv[2:]:
        tool = path.rsplit("/", 1)[-1].split(".")[0]
        for name, value in load(path).items():
            references.setdefault(name, []).append((value, tool))
    print(f"{'benchmark':<40} {'ours ms':>10} {'reference ms':>13} {'tool':<14} {'ratio':>7}")
    for name, value in sorted(ours.items()):
        if name not in references:
            print(f"{name:<40} {value:>10.3f} {'-':>13} {'-':<14} {'-':>7}")
            continue
        for reference, tool in sorted(references[name]):
            print(f"{name:<40} {value:>10.3f} {reference:>13.3f} {tool:<14} {value / reference:>7.2f}")


if __name__ == "__main__":
    main()
