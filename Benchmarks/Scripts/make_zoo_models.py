#!/usr/bin/env python3
"""Export the architectures `Benchmarks/compare --filter zoo` times, at 224 x 224 and batch 1.

The same recipe as the test zoo (Scripts/onnx-zoo/generate.py: torchvision's architecture with
weights=None, seeded random weights and normalization statistics, the legacy exporter at opset
17, ONNX Runtime's logits for a seeded input), but every model at the 224 x 224 input users run,
where the test zoo shrinks most of them to keep the release job short.

Writes <out>/<architecture>/{model.onnx, input.npy, output.npy, model.json, labels.txt} and
<out>/manifest.json; models already written are kept.

For the int8 cases (NeuralCore.zoo-int8.*) it also writes, for each of QUANTIZED,
<out>/<architecture>/{model-qdq.onnx, output-qdq.npy}: ONNX Runtime's quant_pre_process and
quantize_static (QDQ, int8 activations and weights, per channel, MinMax calibration on 16 seeded
noisy copies of input.npy), and ONNX Runtime's logits of the quantized file.

Usage: make_zoo_models.py OUT   (run with the shared torch venv, .cache/torch-venv)
"""

import json
import sys
import time
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent.parent / "Scripts" / "onnx-zoo"))

import generate  # noqa: E402

ARCHITECTURES = [
    "efficientnet_b0", "efficientnet_v2_s", "mobilenet_v2", "mobilenet_v3_small",
    "mobilenet_v3_large", "convnext_tiny", "regnet_y_400mf", "shufflenet_v2_x0_5", "mnasnet0_5",
    "resnet50", "vit_b_16", "swin_t",
]
SIDE = 224
QUANTIZED = ["mobilenet_v3_large", "efficientnet_b0"]


def write_quantized(folder: Path) -> None:
    """The QDQ S8S8 per-channel file of one exported architecture and ONNX Runtime's logits."""
    import numpy as np
    import onnxruntime as ort
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    x = np.load(folder / "input.npy")
    rng = np.random.default_rng(17)

    class Reader(CalibrationDataReader):
        def __init__(self):
            noisy = (x + 0.1 * rng.standard_normal(x.shape)).astype(np.float32)
            self.items = iter([{"input": noisy} for _ in range(16)])

        def get_next(self):
            return next(self.items, None)

    prepared = folder / "model-prepared.onnx"
    quant_pre_process(str(folder / "model.onnx"), str(prepared))
    quantize_static(str(prepared), str(folder / "model-qdq.onnx"), Reader(),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8, per_channel=True)
    prepared.unlink()
    session = ort.InferenceSession(str(folder / "model-qdq.onnx"),
                                   providers=["CPUExecutionProvider"])
    np.save(folder / "output-qdq.npy", session.run(None, {"input": x})[0])


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent / ".cache" / "bench-zoo"
    out.mkdir(parents=True, exist_ok=True)
    generate.torch.set_num_threads(2)
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    for architecture in ARCHITECTURES:
        if architecture in manifest and (out / architecture / "output.npy").exists():
            continue
        case = {"name": architecture, "opset": 17, "simplified": False, "dynamic": False,
                "side": SIDE, "batch": 1, "tier": "benchmark"}
        started = time.monotonic()
        manifest[architecture] = generate.write_case(architecture, case, out)
        manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
        print(f"{architecture}: {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
    for architecture in QUANTIZED:
        folder = out / architecture
        if (folder / "output-qdq.npy").exists() or not (folder / "output.npy").exists():
            continue
        started = time.monotonic()
        write_quantized(folder)
        print(f"{architecture} int8: {time.monotonic() - started:.1f} s", file=sys.stderr,
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
