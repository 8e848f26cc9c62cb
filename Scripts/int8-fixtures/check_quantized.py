#!/usr/bin/env python3
"""Checks a QDQ model written by `vision-catalog quantize` with ONNX Runtime.

Loads the float32 and the int8 model in ONNX Runtime (CPU), runs both on prepared inputs
(`.npy`, float32 `[N, 3, H, W]`, as `vision-catalog preprocess --model` writes them), and
prints one JSON object: the top-1 agreement of the int8 model with the float32 one, the number
of inputs and the operator counts of the int8 graph (`onnx.checker` must accept it). With
`--baseline`, ONNX Runtime's own `quantize_static` (QDQ, uint8 activations, per-channel int8
weights, its default MinMax calibration on the same inputs) is measured the same way, as
`baseline_agreeing` and `baseline_top1_agreement`.

Run with the torch venv (onnx and onnxruntime installed):

    .cache/torch-venv/bin/python Scripts/int8-fixtures/check_quantized.py \
        --fp32 MODEL.onnx --int8 MODEL-int8.onnx INPUT.npy... [--output logits] [--baseline]

Exit status 0 when both models ran, 1 otherwise.
"""

import argparse
import collections
import json
import os
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fp32", required=True, help="the float32 model")
    parser.add_argument("--int8", required=True, help="the quantized QDQ model")
    parser.add_argument("--output", help="the scores output (default: the first output)")
    parser.add_argument(
        "--baseline", action="store_true", help="also measure ONNX Runtime's own quantize_static"
    )
    parser.add_argument("inputs", nargs="+", help="prepared inputs, .npy float32 [N, 3, H, W]")
    args = parser.parse_args()

    model = onnx.load(args.int8)
    onnx.checker.check_model(model)
    operators = collections.Counter(node.op_type for node in model.graph.node)

    options = ort.SessionOptions()
    options.log_severity_level = 3
    sessions = [
        ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        for path in (args.fp32, args.int8)
    ]
    input_name = sessions[0].get_inputs()[0].name
    output = args.output or sessions[0].get_outputs()[0].name

    batches = []
    for path in args.inputs:
        batch = np.load(path).astype(np.float32)
        batches.append(batch[None] if batch.ndim == 3 else batch)
    agreeing, total, largest_difference = compare(sessions, batches, input_name, output)
    result = {
        "inputs": total,
        "agreeing": agreeing,
        "top1_agreement": agreeing / total if total else 0.0,
        "largest_score_difference": largest_difference,
        "operators": dict(sorted(operators.items())),
        "onnx_runtime": ort.__version__,
    }
    if args.baseline:
        baseline = ort_quantized(args.fp32, batches, input_name, options)
        baseline_agreeing, _, _ = compare([sessions[0], baseline], batches, input_name, output)
        result["baseline_agreeing"] = baseline_agreeing
        result["baseline_top1_agreement"] = baseline_agreeing / total if total else 0.0
    json.dump(result, sys.stdout, sort_keys=True)
    print()
    return 0


def compare(sessions, batches, input_name, output):
    """Top-1 agreement of the second session with the first, and the largest score change."""
    agreeing = total = 0
    largest_difference = 0.0
    for batch in batches:
        reference, quantized = (
            session.run([output], {input_name: batch})[0].reshape(batch.shape[0], -1)
            for session in sessions
        )
        agreeing += int((reference.argmax(1) == quantized.argmax(1)).sum())
        total += batch.shape[0]
        largest_difference = max(largest_difference, float(np.abs(reference - quantized).max()))
    return agreeing, total, largest_difference


def ort_quantized(fp32, batches, input_name, options):
    """ONNX Runtime's own static QDQ quantization of `fp32`, calibrated on `batches`."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.feeds = iter([{input_name: batch[i : i + 1]} for batch in batches
                               for i in range(batch.shape[0])])

        def get_next(self):
            return next(self.feeds, None)

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "baseline.onnx")
        quantize_static(
            fp32,
            path,
            Reader(),
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
        )
        return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


if __name__ == "__main__":
    sys.exit(main())
