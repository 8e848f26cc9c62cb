"""Times many concurrent classifications with ONNX Runtime + Pillow, the reference for the
`VisionCatalog.serving.*` cases of `Benchmarks/Sources/ServingBenchmarks.swift`.

Prints tab-separated rows `name, median_ms, min_ms, iterations, tool` for `ratios.py`:
- `VisionCatalog.serving.12MP.jpeg.inflight256`: each run submits 256 classifications of the 12 MP
  photo at once to a `concurrent.futures.ThreadPoolExecutor` as wide as the active cores (the
  process's CPU affinity: 2 on the benchmark machines) and waits for all; the row is the run's
  wall time / 256, in ms per photo, so the same ratio logic as every other case applies.
- `VisionCatalog.serving.12MP.jpeg.serial`: 32 classifications one after another, ms per photo.
- `NAME.p50`, `NAME.p95`: the nearest-rank latency percentiles of the calls of the timed runs,
  each call timed from its submission to its result (so under load it includes the wait for a
  worker), the fastest call as min_ms and the number of calls as iterations.

A classification is what `reference_bench.py` times end to end: Pillow's fast recipe
(`pillow_draft`: `draft()` to the DCT reduction, `exif_transpose`, BILINEAR resize of the center
crop, `(x - 127) / 128`), ONNX Runtime on the Lite0 ONNX at batch 1, and the top 5. Pillow's
decoder and resampler and ONNX Runtime's `run` release the GIL, so the workers run in parallel.

ONNX Runtime set-ups, each a tool of its own (`ratios.py` compares ours with the fastest), all
with spinning off for intra- and inter-op threads (the project's rule on shared 2-core machines):
- under load, `shared`: one session with one intra-op thread that every worker calls
  (`InferenceSession.run` is thread-safe), and `per-worker`: one such session per worker
  thread. The workers already fill the cores, so each call gets one intra-op thread (two per
  call measured no faster in a trial run).
- serial, `intra1` and `intra2`: one session with one or two intra-op threads (ours uses every
  core for a call).
Each case is timed like every other benchmark here (one warm-up run, then runs until at least 5
and `--min-seconds`, median).
"""

import argparse
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import onnxruntime as ort

from reference_bench import pillow_draft

IN_FLIGHT = 256
SERIAL_CALLS = 32
PREFIX = "VisionCatalog.serving.12MP.jpeg"


def open_session(model, threads):
    """A CPU session with `threads` intra-op threads, one inter-op thread, no spinning, all graph
    optimizations."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def classifier(photo, session_for):
    """A call that classifies the photo with the session `session_for()` returns."""

    def classify():
        session = session_for()
        logits = session.run(None, {session.get_inputs()[0].name: pillow_draft(photo)})[0]
        return np.argsort(-logits[0])[:5]

    return classify


def timed_runs(run, calls, minimum_seconds, minimum_iterations=5):
    """Warms up with one run, then runs `run(latencies)` until at least `minimum_iterations` runs
    and `minimum_seconds`; returns the rows (median and min ms per call, runs) and the sorted
    latencies of the timed runs' calls."""
    run([])
    samples, latencies = [], []
    start = time.perf_counter()
    while len(samples) < minimum_iterations or time.perf_counter() - start < minimum_seconds:
        t0 = time.perf_counter()
        run(latencies)
        samples.append((time.perf_counter() - t0) * 1000 / calls)
    samples.sort()
    latencies.sort()
    return (samples[len(samples) // 2], samples[0], len(samples)), latencies


def percentile(values, percent):
    """The nearest-rank percentile, as `BenchmarkRunner.percentiles` takes it."""
    return values[max((percent * len(values) + 99) // 100, 1) - 1]


def print_rows(name, tool, summary, latencies):
    median, minimum, runs = summary
    print(f"{name}\t{median:.3f}\t{minimum:.3f}\t{runs}\t{tool}", flush=True)
    for percent in (50, 95):
        print(f"{name}.p{percent}\t{percentile(latencies, percent):.3f}\t{latencies[0]:.3f}\t"
              f"{len(latencies)}\t{tool}", flush=True)


def in_flight(classify, workers, minimum_seconds):
    """The concurrent case: IN_FLIGHT calls submitted together to a pool of `workers` threads."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        def run(latencies):
            def call(issued):
                classify()
                return (time.perf_counter() - issued) * 1000

            futures = [pool.submit(call, time.perf_counter()) for _ in range(IN_FLIGHT)]
            latencies.extend(future.result() for future in futures)

        return timed_runs(run, IN_FLIGHT, minimum_seconds)


def serial(classify, minimum_seconds):
    """The serial case: SERIAL_CALLS calls one after another."""
    def run(latencies):
        for _ in range(SERIAL_CALLS):
            issued = time.perf_counter()
            classify()
            latencies.append((time.perf_counter() - issued) * 1000)

    return timed_runs(run, SERIAL_CALLS, minimum_seconds)


def main():
    root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--inputs", type=Path, required=True, help="folder made by Benchmarks --make-inputs")
    parser.add_argument("--models", type=Path, default=root.parent / "shared" / "models")
    parser.add_argument("--filter", default="", help="run only cases whose name contains this")
    parser.add_argument("--min-seconds", type=float, default=1.0)
    arguments = parser.parse_args()
    print("name\tmedian_ms\tmin_ms\titerations\ttool")
    concurrent_name, serial_name = f"{PREFIX}.inflight{IN_FLIGHT}", f"{PREFIX}.serial"
    if arguments.filter not in concurrent_name and arguments.filter not in serial_name:
        return
    model = str(arguments.models / "onnx" / "efficientnet-lite0.onnx")
    if not os.path.exists(model):
        print(f"# {model} is absent; serving reference skipped", file=sys.stderr)
        return
    photo = arguments.inputs / "photo-12mp.jpg"
    workers = len(os.sched_getaffinity(0))
    print(f"# onnxruntime {ort.__version__}, {workers} workers", file=sys.stderr)
    recipe = "onnxruntime+pillow-draft"
    if arguments.filter in concurrent_name:
        shared = open_session(model, 1)
        own = threading.local()

        def session_per_worker():
            if not hasattr(own, "session"):
                own.session = open_session(model, 1)
            return own.session

        for setup, session_for in [("shared", lambda: shared), ("per-worker", session_per_worker)]:
            summary, latencies = in_flight(classifier(photo, session_for), workers,
                                           arguments.min_seconds)
            print_rows(concurrent_name, f"{recipe} {setup}", summary, latencies)
    if arguments.filter in serial_name:
        for threads in (1, 2):
            session = open_session(model, threads)
            summary, latencies = serial(classifier(photo, lambda: session), arguments.min_seconds)
            print_rows(serial_name, f"{recipe} intra{threads}", summary, latencies)


if __name__ == "__main__":
    main()
