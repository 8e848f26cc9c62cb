"""The visual-search case of `Benchmarks/compare --filter Search`: exact top-10 over N random unit
vectors of dimension D on one thread, `vision-catalog similar --embedding` against FAISS's
`IndexFlatIP` (faiss-cpu), alternating query by query in one run.

Usage: search_bench.py --bin DIR --ours-out FILE [--filter TEXT] [--count N] [--dimensions D]
       [--queries Q] [--runs R]

The vectors (float32, seeded, L2-normalized) are written once to .cache/bench-inputs/search as an
.npy file with their ids and indexed by `vision-catalog index --embeddings` (half floats, the
index's default; 1M x 1280 is 5.1 GB of .npy and a 2.6 GB index). Each query is searched R times by
each tool; the row is the median over queries of each tool's median milliseconds. FAISS's answers
are the reference for our recall@10, printed on standard error with the index's build time (half
floats can swap two vectors whose scores differ by less than 1e-3).

Rows (`name, median_ms, min_ms, iterations, tool`, for ratios.py): ours go to --ours-out, FAISS's
to standard output.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent.parent
NAME = "VisualSearch.flat.{count}x{dimensions}.top10.threads1"


def unit_vectors(count, dimensions, seed):
    generator = np.random.default_rng(seed)
    data = np.empty((count, dimensions), dtype=np.float32)
    for start in range(0, count, 65536):
        rows = min(65536, count - start)
        block = generator.standard_normal((rows, dimensions), dtype=np.float32)
        data[start:start + rows] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return data


def prepare(tool, folder, count, dimensions):
    """The vectors (memory-mapped) and our index of them, made once."""
    stem = folder / f"e-{count}x{dimensions}"
    embeddings, ids, index = (Path(f"{stem}.npy"), Path(f"{stem}.ids"), Path(f"{stem}.vcindex"))
    if not embeddings.exists():
        folder.mkdir(parents=True, exist_ok=True)
        partial = Path(f"{stem}.partial.npy")
        np.save(partial, unit_vectors(count, dimensions, seed=7))
        partial.rename(embeddings)
        ids.write_text("".join(f"V{i}\n" for i in range(count)))
    if not index.exists():
        started = time.monotonic()
        subprocess.run([tool, "index", "--embeddings", str(embeddings), "--ids", str(ids),
                        "--out", str(index)], check=True, stdout=sys.stderr)
        print(f"{NAME.format(count=count, dimensions=dimensions)}: indexed in "
              f"{time.monotonic() - started:.1f} s, {index.stat().st_size / 1e9:.2f} GB",
              file=sys.stderr)
    return np.load(embeddings, mmap_mode="r"), index


def ours(tool, index, query_file, runs):
    """Our median and fastest milliseconds and the ten ids found."""
    result = subprocess.run(
        [tool, "similar", "--index", str(index), "--embedding", str(query_file), "--top", "10",
         "--runs", str(runs), "--threads", "1", "--json"],
        check=True, capture_output=True, text=True)
    median = float(re.search(r"median_ms=([0-9.]+)", result.stderr).group(1))
    fastest = float(re.search(r"min_ms=([0-9.]+)", result.stderr).group(1))
    found = [int(match["productId"][1:]) for match in json.loads(result.stdout)["matches"]]
    return median, fastest, found


def faiss_times(flat, query, runs):
    """FAISS's median and fastest milliseconds and its ten ids."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        _, reference = flat.search(query[None, :], 10)
        samples.append((time.perf_counter() - started) * 1e3)
    return statistics.median(samples), min(samples), reference[0].tolist()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--ours-out", required=True)
    parser.add_argument("--filter", default="")
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--dimensions", type=int, default=1280)
    parser.add_argument("--queries", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    name = NAME.format(count=arguments.count, dimensions=arguments.dimensions)
    if arguments.filter not in name:
        return
    try:
        import faiss
    except ImportError:
        print(f"# {name} skipped: faiss-cpu is not installed (Benchmarks/Scripts/requirements.txt)",
              file=sys.stderr)
        return
    faiss.omp_set_num_threads(1)
    tool = str(Path(arguments.bin) / "vision-catalog")
    folder = ROOT / ".cache/bench-inputs/search"
    data, index = prepare(tool, folder, arguments.count, arguments.dimensions)
    flat = faiss.IndexFlatIP(arguments.dimensions)
    for start in range(0, len(data), 65536):
        flat.add(np.ascontiguousarray(data[start:start + 65536]))
    rows = {"ours": [], "faiss": []}
    recalls = []
    for number, query in enumerate(unit_vectors(arguments.queries, arguments.dimensions, 99)):
        path = folder / f"q{number}-{arguments.dimensions}.npy"
        np.save(path, query)
        median, fastest, found = ours(tool, index, path, arguments.runs)
        rows["ours"].append((median, fastest))
        median, fastest, reference = faiss_times(flat, query, arguments.runs)
        rows["faiss"].append((median, fastest))
        recalls.append(len(set(found) & set(reference)) / 10)
    print(f"{name}: recall@10 of ours against FAISS {statistics.mean(recalls):.3f}",
          file=sys.stderr)
    iterations = arguments.queries * arguments.runs

    def row(samples, tool_name):
        return (f"{name}\t{statistics.median(m for m, _ in samples):.3f}\t"
                f"{min(f for _, f in samples):.3f}\t{iterations}\t{tool_name}")

    with open(arguments.ours_out, "a") as handle:
        print(row(rows["ours"], "ours"), file=handle)
    print("name\tmedian_ms\tmin_ms\titerations\ttool")
    print(row(rows["faiss"], f"faiss-cpu {faiss.__version__} IndexFlatIP"))


if __name__ == "__main__":
    main()
