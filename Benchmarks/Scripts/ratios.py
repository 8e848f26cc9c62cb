"""Pairs benchmark rows by name and prints medians and the ratio ours / fastest reference.

Usage: ratios.py OURS.tsv REFERENCE.tsv [REFERENCE.tsv ...]
Each file holds rows `name, median_ms, min_ms, iterations[, tool]` from one or more rounds (header
and `#` lines are skipped); the tool is the fifth column, or the file's name without extension.
A (name, tool) measured in several rounds is summarized by the median of its round medians. For
each of our cases the ratio is against the FASTEST reference for it; the other references follow
on indented lines. A ratio below 1.0 means we are faster.
"""

import statistics
import sys
from collections import defaultdict


def load(path, default_tool):
    rows = defaultdict(list)
    with open(path) as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 3 or fields[0] == "name" or line.startswith("#"):
                continue
            tool = fields[4] if len(fields) > 4 else default_tool
            rows[(fields[0], tool)].append(float(fields[1]))
    return {key: statistics.median(values) for key, values in rows.items()}


def main():
    ours = {name: value for (name, _), value in load(sys.argv[1], "ours").items()}
    references = defaultdict(list)
    for path in sys.argv[2:]:
        default_tool = path.rsplit("/", 1)[-1].split(".")[0]
        for (name, tool), value in load(path, default_tool).items():
            references[name].append((value, tool))
    print(f"{'benchmark':<40} {'ours ms':>9} {'fastest ref ms':>15} {'reference':<36} {'ratio':>6}")
    for name, value in sorted(ours.items()):
        if name not in references:
            print(f"{name:<40} {value:>9.3f} {'-':>15} {'-':<36} {'-':>6}")
            continue
        ranked = sorted(references[name])
        best, tool = ranked[0]
        print(f"{name:<40} {value:>9.3f} {best:>15.3f} {tool:<36} {value / best:>6.2f}")
        for other, other_tool in ranked[1:]:
            print(f"{'':<40} {'':>9} {other:>15.3f} {other_tool:<36} {value / other:>6.2f}")


if __name__ == "__main__":
    main()
