"""Times ONNX Runtime on EfficientNet-Lite0 and three torchvision architectures with NeuralCore's
benchmark inputs and prints the same tab-separated rows as `swift run -c release Benchmarks --tsv`,
for `Benchmarks/compare`.

Cases (same as NeuralCoreBenchmarks.swift): Lite0 batch 1 at 1 and 2 threads on chelsea.input.npy,
batch 8 at 2 threads on the first 8 images of batch.input.npy; twelve torchvision
architectures at 224 x 224 (.cache/bench-zoo, Benchmarks/Scripts/make_zoo_models.py) at batch 1,
1 and 2 threads; the ONNX export of the MobileNet v2 ML Program fixture (Scripts/coreml-fixtures) at batch
1, 1 thread; the int8 fixtures (Scripts/int8-fixtures: EfficientNet-Lite0 QDQ S8S8, QDQ U8S8,
QOperator U8S8, MobileNet v2 QDQ S8S8 and QOperator U8S8) at batch 1, 1 thread on the first
photo. Each case is timed by the same rule
as every other benchmark here (`pillow_bench.measure`: one warm-up run, then runs for at least
`--min-seconds`, median), after two further warm-up runs.
"""

import argparse
import os
import sys

import numpy as np
import onnxruntime as ort

from pillow_bench import measure

CASES = [("batch1.threads1", 1, 1), ("batch1.threads2", 1, 2), ("batch8.threads2", 8, 2)]
ZOO_ARCHITECTURES = [
    "efficientnet_b0", "efficientnet_v2_s", "mobilenet_v2", "mobilenet_v3_small",
    "mobilenet_v3_large", "convnext_tiny", "regnet_y_400mf", "shufflenet_v2_x0_5", "mnasnet0_5",
    "resnet50", "vit_b_16", "swin_t",
]
# Their QDQ int8 versions (model-qdq.onnx), timed at 1 thread as NeuralCore.zoo-int8.*.
ZOO_QUANTIZED = ["mobilenet_v3_large", "efficientnet_b0"]


def open_session(model, threads, profile_prefix=None):
    """An ONNX Runtime CPU session as every script here uses it: `threads` intra-op threads that
    do not spin between runs (the project's rule for comparisons: a spinning pool holds both cores
    of this 2-core machine), one inter-op thread, sequential execution, all graph optimizations;
    profiling when a prefix is given."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if profile_prefix:
        options.enable_profiling = True
        options.profile_file_prefix = profile_prefix
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def time_ort(model, inputs, filter_text, minimum_seconds):
    results = {}
    for name, batch, threads in CASES:
        if filter_text not in f"NeuralCore.efficientNetLite0.{name}":
            continue
        session = open_session(model, threads)
        feed = {session.get_inputs()[0].name: inputs[batch]}
        for _ in range(2):
            session.run(None, feed)
        results[name] = measure(lambda: session.run(None, feed), minimum_seconds=minimum_seconds)
    return results


def time_zoo(zoo, filter_text, minimum_seconds):
    """Rows for the benchmark zoo (Benchmarks/Scripts/make_zoo_models.py) whose case name
    contains filter_text, at 1 and 2 intra-op threads."""
    rows = []
    for architecture in ZOO_ARCHITECTURES:
        folder = os.path.join(zoo, architecture)
        if not os.path.exists(os.path.join(folder, "output.npy")):
            continue
        for threads in (1, 2):
            full = f"NeuralCore.zoo.{architecture}.batch1.threads{threads}"
            if filter_text not in full:
                continue
            session = open_session(os.path.join(folder, "model.onnx"), threads)
            feed = {"input": np.load(os.path.join(folder, "input.npy"))}
            for _ in range(2):
                session.run(None, feed)
            rows.append((full, measure(lambda: session.run(None, feed), minimum_seconds=minimum_seconds)))
    for architecture in ZOO_QUANTIZED:
        folder = os.path.join(zoo, architecture)
        full = f"NeuralCore.zoo-int8.{architecture}.batch1.threads1"
        if filter_text not in full or not os.path.exists(os.path.join(folder, "output-qdq.npy")):
            continue
        session = open_session(os.path.join(folder, "model-qdq.onnx"), 1)
        feed = {"input": np.load(os.path.join(folder, "input.npy"))}
        for _ in range(2):
            session.run(None, feed)
        rows.append((full, measure(lambda: session.run(None, feed), minimum_seconds=minimum_seconds)))
    return rows


def time_ml_program_export(fixtures, filter_text, minimum_seconds):
    """ONNX Runtime on the ONNX export of the ML Program fixture `Benchmarks` times from its
    `.mlpackage` (`NeuralCore.mlprogram.mobilenet_v2.batch1.threads1`), on the first photo with
    the fixture's normalization (scale 1 / (0.226 * 255), biases -mean / 0.226)."""
    name = "NeuralCore.mlprogram.mobilenet_v2.batch1.threads1"
    stem = os.path.join(fixtures, "mlprogram-mobilenet_v2-fp32-rgb")
    if filter_text not in name or not os.path.exists(stem + ".onnx"):
        return []
    photo = np.load(stem + ".pixels.npy")[0].astype(np.float32).transpose(2, 0, 1)
    mean = np.asarray([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
    normalized = (photo * np.float32(1 / (0.226 * 255)) - mean / np.float32(0.226))[None]
    session = open_session(stem + ".onnx", 1)
    feed = {"input": np.ascontiguousarray(normalized, dtype=np.float32)}
    for _ in range(2):
        session.run(None, feed)
    return [(name, measure(lambda: session.run(None, feed), minimum_seconds=minimum_seconds))]


INT8_FIXTURES = [
    "lite0-qdq-s8s8", "lite0-qdq-u8s8", "lite0-qop-u8s8", "mobilenet_v2-qdq-s8s8",
    "mobilenet_v2-qop-u8s8", "mobilenet_v2", "lcnet-qdq-s8s8", "lcnet-qdq-u8s8", "lcnet",
]  # the float networks (no dash) are timed as NeuralCore.int8.<network>-fp32


def time_int8(fixtures, filter_text, minimum_seconds):
    """Rows for the int8 fixtures (NeuralCore.int8.<fixture>.batch1.threads1), first photo."""
    rows = []
    for fixture in INT8_FIXTURES:
        label = fixture if "-" in fixture else f"{fixture}-fp32"
        full = f"NeuralCore.int8.{label}.batch1.threads1"
        model = os.path.join(fixtures, f"{fixture}.onnx")
        if filter_text not in full or not os.path.exists(model):
            continue
        stem = fixture.split("-")[0]  # the network's inputs
        photo = np.load(os.path.join(fixtures, f"{stem}.inputs.npy"))[:1]
        session = open_session(model, 1)
        feed = {session.get_inputs()[0].name: np.ascontiguousarray(photo, dtype=np.float32)}
        for _ in range(2):
            session.run(None, feed)
        rows.append((full, measure(lambda: session.run(None, feed), minimum_seconds=minimum_seconds)))
    return rows


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=os.path.join(root, "..", "shared", "models"))
    parser.add_argument("--min-seconds", type=float, default=1.0)
    parser.add_argument("--zoo", default=os.path.join(root, ".cache", "bench-zoo"))
    parser.add_argument("--coreml-fixtures", default=os.path.join(root, ".cache", "coreml-fixtures"))
    parser.add_argument("--int8-fixtures", default=os.path.join(root, ".cache", "int8-fixtures"))
    parser.add_argument("--filter", default="", help="run only cases whose name contains this")
    arguments = parser.parse_args()
    print("name\tmedian_ms\tmin_ms\titerations")
    rows = time_zoo(arguments.zoo, arguments.filter, arguments.min_seconds)
    rows += time_ml_program_export(arguments.coreml_fixtures, arguments.filter, arguments.min_seconds)
    rows += time_int8(arguments.int8_fixtures, arguments.filter, arguments.min_seconds)
    for full, (median, minimum, runs) in rows:
        print(f"{full}\t{median:.3f}\t{minimum:.3f}\t{runs}", flush=True)
    model = os.path.join(arguments.models, "onnx", "efficientnet-lite0.onnx")
    reference = os.path.join(arguments.models, "ref", "efficientnet-lite0")
    if not os.path.exists(model):
        print(f"# {model} is absent; ONNX Runtime cases skipped", file=sys.stderr)
        return
    single = np.load(os.path.join(reference, "chelsea.input.npy"))
    stacked = np.load(os.path.join(reference, "batch.input.npy"))
    inputs = {1: single, 8: np.ascontiguousarray(stacked[:8])}
    print(f"# onnxruntime {ort.__version__}, {os.cpu_count()} CPUs", file=sys.stderr)
    timed = time_ort(model, inputs, arguments.filter, arguments.min_seconds)
    for name, (median, minimum, runs) in timed.items():
        print(f"NeuralCore.efficientNetLite0.{name}\t{median:.3f}\t{minimum:.3f}\t{runs}", flush=True)


if __name__ == "__main__":
    main()
