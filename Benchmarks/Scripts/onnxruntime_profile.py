"""Profiles ONNX Runtime on EfficientNet-Lite0 and prints milliseconds by kind of step, at 1 and 2
threads, in the same kinds as `swift run -c release Benchmarks --profile`'s totals.

Each node's time is the mean of the lower half of its 150 timed runs (after 10 warm-up runs), so a
noisy minute weighs less. ONNX Runtime names fused nodes after their last output: in block N,
`_swish` is the expansion (the depthwise convolution in block 0, which has no expansion) and
`_swish_1` the depthwise; at the top level `_swish` is the stem and `_swish_1` the head.
    .cache/bench-venv/bin/python Benchmarks/Scripts/onnxruntime_profile.py

With --model MODEL.onnx --input INPUT.npy it profiles that model instead, by operator type as
ONNX Runtime runs it after its fusions (Conv, FusedConv, Gemm, Gelu, ...), at 1 and 2 threads:
the counterpart of `Benchmarks --profile MODEL INPUT.npy` for any model, such as the zoo's
.cache/bench-zoo/<architecture>/model.onnx and input.npy.
"""

import argparse
import collections
import json
import os
import re

import numpy as np

from onnxruntime_bench import open_session

KINDS = ["stem", "expand", "depthwise", "project", "head", "Gemm", "other"]


def kind_of(name):
    block = re.match(r"/_blocks\.(\d+)/(\w+)/", name)
    if block:
        index, part = int(block.group(1)), block.group(2)
        if part == "_project_conv":
            return "project"
        return "depthwise" if part == "_swish_1" or index == 0 else "expand"
    if name.startswith("/_swish/"):
        return "stem"
    if name.startswith("/_swish_1/"):
        return "head"
    return "Gemm" if "_fc" in name or "Gemm" in name else "other"


def profile(model, image, threads, runs, kind=kind_of):
    prefix = os.path.join(os.environ.get("TMPDIR", "/tmp"), "ort-profile")
    session = open_session(model, threads, profile_prefix=prefix)
    feed = {session.get_inputs()[0].name: image}
    for _ in range(runs):
        session.run(None, feed)
    path = session.end_profiling()
    with open(path) as handle:
        events = json.load(handle)
    os.remove(path)
    times = collections.defaultdict(list)
    operators = {}
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            times[event["name"]].append(event["dur"])
            operators[event["name"]] = event.get("args", {}).get("op_name", "other")
    kinds = collections.defaultdict(float)
    for name, durations in times.items():
        kept = sorted(durations[10:])[: max(1, (len(durations) - 10) // 2)]
        key = operators[name] if kind is None else kind(name)
        kinds[key] += sum(kept) / len(kept) / 1000
    return kinds


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=os.path.join(root, "..", "shared", "models"))
    parser.add_argument("--runs", type=int, default=160)
    parser.add_argument("--model", help="profile this model by operator type instead")
    parser.add_argument("--input", help="the model's input (.npy), with --model")
    arguments = parser.parse_args()
    if arguments.model:
        if not arguments.input:
            parser.error("--model needs --input")
        image = np.load(arguments.input)
        columns = [
            profile(arguments.model, image, threads, arguments.runs, kind=None) for threads in (1, 2)
        ]
        print("operator\t1 thread (ms)\t2 threads (ms)")
        for name in sorted(columns[0], key=lambda key: -columns[0][key]):
            print(f"{name}\t{columns[0][name]:.3f}\t{columns[1].get(name, 0):.3f}")
        print(f"total\t{sum(columns[0].values()):.3f}\t{sum(columns[1].values()):.3f}")
        return
    model = os.path.join(arguments.models, "onnx", "efficientnet-lite0.onnx")
    image = np.load(os.path.join(arguments.models, "ref", "efficientnet-lite0", "chelsea.input.npy"))
    columns = [profile(model, image, threads, arguments.runs) for threads in (1, 2)]
    print("kind\t1 thread (ms)\t2 threads (ms)")
    for kind in KINDS:
        print(f"{kind}\t{columns[0][kind]:.3f}\t{columns[1][kind]:.3f}")
    print(f"total\t{sum(columns[0].values()):.3f}\t{sum(columns[1].values()):.3f}")


if __name__ == "__main__":
    main()
