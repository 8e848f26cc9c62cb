"""Times ONNX Runtime on EfficientNet-Lite0 with NeuralCore's benchmark inputs and, optionally,
runs NeuralCore's benchmark command in between, printing medians and ratios from one run.

Cases (same as NeuralCoreBenchmarks.swift): batch 1 at 1 and 2 threads on chelsea.input.npy,
batch 8 at 2 threads on the first 8 images of batch.input.npy.
"""

import argparse
import os
import re
import shlex
import statistics
import subprocess
import time

import numpy as np
import onnxruntime as ort

CASES = [("batch1.threads1", 1, 1), ("batch1.threads2", 1, 2), ("batch8.threads2", 8, 2)]


def time_ort(model, inputs, runs):
    results = {}
    for name, batch, threads in CASES:
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        feed = {session.get_inputs()[0].name: inputs[batch]}
        for _ in range(2):
            session.run(None, feed)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            session.run(None, feed)
            times.append((time.perf_counter() - start) * 1000)
        results[name] = (statistics.median(times), min(times))
    return results


def run_ours(command):
    output = subprocess.run(
        shlex.split(command), check=True, capture_output=True, text=True
    ).stdout
    print(output, end="")
    pattern = re.compile(
        r"NeuralCore\.efficientNetLite0\.(\S+) p50_ms=([0-9.]+) min_ms=([0-9.]+)"
    )
    return {m[1]: (float(m[2]), float(m[3])) for m in pattern.finditer(output)}


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=os.path.join(root, "..", "shared", "models"))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--ours", help="command printing NeuralCore benchmark lines")
    arguments = parser.parse_args()
    model = os.path.join(arguments.models, "onnx", "efficientnet-lite0.onnx")
    reference = os.path.join(arguments.models, "ref", "efficientnet-lite0")
    single = np.load(os.path.join(reference, "chelsea.input.npy"))
    stacked = np.load(os.path.join(reference, "batch.input.npy"))
    inputs = {1: single, 8: np.ascontiguousarray(stacked[:8])}
    print(f"onnxruntime {ort.__version__}, {os.cpu_count()} CPUs")
    first = time_ort(model, inputs, arguments.runs)
    ours = run_ours(arguments.ours) if arguments.ours else {}
    second = time_ort(model, inputs, arguments.runs) if ours else first
    print(f"{'case':<18}{'ORT p50 ms':>12}{'ours p50 ms':>13}{'ratio':>8}")
    for name, _, _ in CASES:
        ort_median = min(first[name][0], second[name][0])
        line = f"{name:<18}{ort_median:>12.2f}"
        if name in ours:
            line += f"{ours[name][0]:>13.2f}{ours[name][0] / ort_median:>8.2f}"
        print(line)


if __name__ == "__main__":
    main()
