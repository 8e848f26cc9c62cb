#!/usr/bin/env python3
"""Export the architectures `Benchmarks/compare --filter zoo` times, at 224 x 224 and batch 1.

The same recipe as the test zoo (Scripts/onnx-zoo/generate.py: torchvision's architecture with
weights=None, seeded random weights and normalization statistics, the legacy exporter at opset
17, ONNX Runtime's logits for a seeded input), but every model at the 224 x 224 input users run,
where the test zoo shrinks most of them to keep the release job short.

Writes <out>/<architecture>/{model.onnx, input.npy, output.npy, model.json, labels.txt} and
<out>/manifest.json; models already written are kept.

Usage: make_zoo_models.py OUT   (run with Scripts/onnx-zoo's venv, .cache/zoo-venv)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
