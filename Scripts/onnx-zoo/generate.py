#!/usr/bin/env python3
"""Export torchvision's classification zoo to ONNX and write ONNX Runtime's outputs for each file.

Every architecture in torchvision.models.list_models(module=torchvision.models) is built with
weights=None (nothing is downloaded), given random weights from a fixed seed, and exported with
the legacy (TorchScript) exporter, raw, at opset 17. The smallest member of each family is also
exported at opset 13, simplified with onnxsim at both opsets, and with a dynamic batch axis.

For every file this writes, under <out>/<case>/:

    model.onnx           the model (input "input", output "logits"); models over protobuf's 2 GB
                         keep their weights beside it as ONNX external data (the exporter writes
                         one file per tensor; regnet_y_128gf's are gathered into one file with
                         offsets, the other form tools write)
    input.npy            float32 input, NCHW
    output.npy           ONNX Runtime's logits for that input (1 thread, no spinning)
    model.json           the sidecar `vision-catalog classify --model model.onnx` reads:
                         torchvision's preprocessing (centre crop 0.875, ImageNet mean and std)
    labels.txt           ImageNet's 1,000 labels as torchvision lists them

and <out>/manifest.json with one entry per case: name, architecture, opset, simplified, dynamic
batch, input shape, the operators the file uses, and the tier the Swift tests run it in ("debug":
small enough for the unoptimized `swift test`; "release": the release job of .ci/run).

Usage: generate.py OUT [--only NAME ...] [--tier debug|release]
  (NAME is an architecture or a case name; --tier writes only that tier's cases)
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import torch

import onnx
import onnxruntime
from torchvision_cpu import import_torchvision

torchvision = import_torchvision()
warnings.filterwarnings("ignore")

SEED = 20261204

# Input side per architecture. Most families end in a global pool, so a smaller image keeps the
# release job short without changing the graph; the ones named here need more (AlexNet's and
# VGG's adaptive pools export only when their output divides the feature map, which 224 gives;
# MaxViT's partitions need 224; the benchmark models run at 224 as users run them). ViTs are
# built for their side (image_size changes only the position embedding's length).
SIDES = {
    "alexnet": 224,
    "inception_v3": 128,
    "googlenet": 128,
    "maxvit_t": 224,
    "mobilenet_v2": 224,
    "resnet50": 224,
    "convnext_tiny": 224,
    "swin_t": 224,
    "vit_b_32": 224,
    "vit_h_14": 112,
}
DEFAULT_SIDE = 96

# The smallest member of each family: exported in every form (opset 13 and 17, raw and simplified,
# dynamic batch).
FAMILY_REPRESENTATIVES = [
    "alexnet", "vgg11", "resnet18", "resnext50_32x4d", "wide_resnet50_2", "squeezenet1_0",
    "squeezenet1_1", "densenet121", "googlenet", "inception_v3", "shufflenet_v2_x0_5",
    "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "mnasnet0_5", "efficientnet_b0",
    "efficientnet_v2_s", "regnet_x_400mf", "regnet_y_400mf", "convnext_tiny", "vit_b_32",
    "swin_t", "swin_v2_t", "maxvit_t",
]

# Small enough (weights and work) for the unoptimized debug build of `swift test`: at most a few
# hundred MFLOPs at 64 px. Their debug cases run at DEBUG_SIDE.
DEBUG_ARCHITECTURES = [
    "squeezenet1_1", "shufflenet_v2_x0_5", "mobilenet_v3_small", "mnasnet0_5", "regnet_y_400mf",
]
DEBUG_SIDE = 64


def side_for(architecture: str) -> int:
    if architecture.startswith("vgg"):
        return 224
    return SIDES.get(architecture, DEFAULT_SIDE)


def build(architecture: str, side: int) -> torch.nn.Module:
    kwargs = {"weights": None}
    if architecture.startswith("vit_"):
        kwargs["image_size"] = side
    if architecture in ("googlenet", "inception_v3"):
        kwargs["aux_logits"] = False
        kwargs["init_weights"] = True
    if architecture == "maxvit_t":
        kwargs["input_size"] = (side, side)
    model = torchvision.models.get_model(architecture, **kwargs)
    return model.eval()


def randomize(model: torch.nn.Module, generator: torch.Generator) -> None:
    """Give normalization layers, biases and zero-initialized weights non-trivial values.

    torchvision initializes BatchNorm to the identity (mean 0, variance 1, scale 1, shift 0) and
    most biases to zero, which would hide a wrong BatchNorm fold or a dropped bias. Scales stay near
    1 so activations keep their size through deep networks.
    """
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                module.running_mean.copy_(0.1 * torch.randn(module.running_mean.shape, generator=generator))
                module.running_var.copy_(0.5 + torch.rand(module.running_var.shape, generator=generator))
            if isinstance(module, (torch.nn.modules.batchnorm._BatchNorm, torch.nn.LayerNorm, torch.nn.GroupNorm)):
                if getattr(module, "weight", None) is not None:
                    module.weight.copy_(0.75 + 0.5 * torch.rand(module.weight.shape, generator=generator))
            bias = getattr(module, "bias", None)
            if isinstance(bias, torch.nn.Parameter):
                bias.copy_(0.05 * torch.randn(bias.shape, generator=generator))
            # ViT's head starts at zero, which would make every logit its bias and hide the
            # whole network from the comparison.
            if isinstance(module, torch.nn.Linear) and not module.weight.any():
                module.weight.copy_(0.02 * torch.randn(module.weight.shape, generator=generator))


def ort_outputs(path: Path, array: np.ndarray) -> np.ndarray:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    (output,) = session.run(["logits"], {"input": array})
    return output


def top_margin(logits: np.ndarray) -> float:
    """The smallest gap between the two largest logits of any row, relative to max(1, max |logit|)."""
    ordered = np.sort(logits, axis=-1)
    gap = float(np.min(ordered[..., -1] - ordered[..., -2]))
    return gap / max(1.0, float(np.abs(logits).max()))


def operators(path: Path) -> list[str]:
    model = onnx.load(str(path), load_external_data=False)
    return sorted({node.op_type for node in model.graph.node})


def export(model, example, path: Path, opset: int, dynamic: bool) -> None:
    axes = {"input": {0: "batch"}, "logits": {0: "batch"}} if dynamic else None
    torch.onnx.export(
        model, (example,), str(path), dynamo=False, opset_version=opset,
        input_names=["input"], output_names=["logits"], dynamic_axes=axes,
        do_constant_folding=True,
    )


def gather_external_data(path: Path) -> None:
    """Rewrite per-tensor external data files as one file of offsets (model.onnx.data)."""
    model = onnx.load(str(path))
    for file in path.parent.iterdir():
        if file.name != path.name:
            file.unlink()
    onnx.save(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
              location="model.onnx.data", size_threshold=1024)


def simplify(path: Path, destination: Path) -> None:
    import onnxsim

    simplified, ok = onnxsim.simplify(onnx.load(str(path)))
    if not ok:
        raise RuntimeError(f"onnxsim could not check {path.name}")
    onnx.save(simplified, str(destination))


# torch exports nn.MultiheadAttention (ViT) through scaled_dot_product_attention, which its
# legacy exporter supports from opset 14; ViT's "opset 13" cases use 14.
OLDEST_OPSET = {"vit_b_32": 14}


def cases_for(architecture: str) -> list[dict]:
    side = side_for(architecture)
    old = OLDEST_OPSET.get(architecture, 13)
    cases = [{"name": f"{architecture}-op17", "opset": 17, "simplified": False, "dynamic": False,
              "side": side, "batch": 1, "tier": "release"}]
    if architecture in FAMILY_REPRESENTATIVES:
        cases += [
            {"name": f"{architecture}-op{old}", "opset": old, "simplified": False,
             "dynamic": False, "side": side, "batch": 1, "tier": "release"},
            {"name": f"{architecture}-op{old}-simplified", "opset": old, "simplified": True,
             "dynamic": False, "side": side, "batch": 1, "tier": "release"},
            {"name": f"{architecture}-op17-simplified", "opset": 17, "simplified": True,
             "dynamic": False, "side": side, "batch": 1, "tier": "release"},
            {"name": f"{architecture}-op17-dynamic", "opset": 17, "simplified": False,
             "dynamic": True, "side": side, "batch": 2, "tier": "release"},
        ]
    if architecture in DEBUG_ARCHITECTURES:
        cases += [
            {"name": f"{architecture}-op13-debug", "opset": 13, "simplified": False,
             "dynamic": False, "side": DEBUG_SIDE, "batch": 1, "tier": "debug"},
            {"name": f"{architecture}-op17-debug", "opset": 17, "simplified": True,
             "dynamic": True, "side": DEBUG_SIDE, "batch": 2, "tier": "debug"},
        ]
    return cases


def write_sidecar(directory: Path, side: int) -> None:
    """The JSON sidecar and labels ClassifierKit reads for an ONNX classifier."""
    categories = torchvision.models.ResNet50_Weights.IMAGENET1K_V1.meta["categories"]
    (directory / "labels.txt").write_text("\n".join(categories) + "\n")
    sidecar = {
        "inputSize": side,
        "crop": "centerCrop",
        "cropFraction": 0.875,
        "mean": [0.485 * 255, 0.456 * 255, 0.406 * 255],
        "std": [0.229 * 255, 0.224 * 255, 0.225 * 255],
        "labels": "labels.txt",
        "inputName": "input",
        "outputName": "logits",
        "name": directory.name,
    }
    (directory / "model.json").write_text(json.dumps(sidecar, indent=1))


def seed_for(text: str) -> int:
    return SEED ^ int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


def write_case(architecture: str, case: dict, out: Path) -> dict:
    name = case["name"]
    side, batch = case["side"], case["batch"]
    directory = out / name
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    generator = torch.Generator().manual_seed(seed_for(architecture))
    torch.manual_seed(seed_for(architecture))
    model = build(architecture, side)
    randomize(model, generator)
    path = directory / "model.onnx"
    raw = out / f"{name}.raw.onnx" if case["simplified"] else path
    example = torch.randn((1, 3, side, side), generator=generator)
    export(model, example, raw, case["opset"], case["dynamic"])
    if case["simplified"]:
        simplify(raw, path)
        raw.unlink()
    if architecture == "regnet_y_128gf":
        gather_external_data(path)
    # An input whose top two logits are well apart, so equal argmax is a fair test.
    array, reference, margin = None, None, -1.0
    for attempt in range(8):
        input_generator = torch.Generator().manual_seed(seed_for(name) + attempt)
        candidate = torch.randn((batch, 3, side, side), generator=input_generator).numpy()
        output = ort_outputs(path, candidate)
        candidate_margin = top_margin(output)
        if candidate_margin > margin:
            array, reference, margin = candidate, output, candidate_margin
        if margin >= 1e-2:
            break
    with torch.no_grad():
        eager = model(torch.from_numpy(array)).numpy()
    eager_difference = float(np.abs(eager - reference).max())
    write_sidecar(directory, side)
    np.save(directory / "input.npy", array.astype(np.float32))
    np.save(directory / "output.npy", reference.astype(np.float32))
    return {
        **case,
        "architecture": architecture,
        "input_shape": list(array.shape),
        "output_shape": list(reference.shape),
        "operators": operators(path),
        "top_margin": margin,
        "max_abs_reference": float(np.abs(reference).max()),
        "torch_vs_onnxruntime": eager_difference,
        "bytes": sum(file.stat().st_size for file in directory.iterdir()),
    }


def record(manifest_path, name, entry):
    """Adds one case to the manifest, under a lock so that shards writing the same folder keep each
    other's entries, and atomically: .ci/run's debug tests read it while the full zoo is written."""
    with open(manifest_path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
        manifest[name] = entry
        partial = manifest_path.with_suffix(f".json.partial.{os.getpid()}")
        partial.write_text(json.dumps(manifest, indent=1, sort_keys=True))
        os.replace(partial, manifest_path)
        return manifest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--tier", choices=["debug", "release"], default=None,
                        help="write only this tier's cases (kept when already written)")
    parser.add_argument("--shard", default="0/1",
                        help="i/n: write every n-th case from the i-th (processes sharing OUT "
                             "update the manifest under a lock)")
    arguments = parser.parse_args()
    shard, shards = (int(part) for part in arguments.shard.split("/"))
    out: Path = arguments.out
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(2)
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    architectures = torchvision.models.list_models(module=torchvision.models)
    index = -1
    for architecture in architectures:
        for case in cases_for(architecture):
            index += 1
            if index % shards != shard:
                continue
            wanted = arguments.only is None or architecture in arguments.only or case["name"] in arguments.only
            wanted = wanted and (arguments.tier is None or case["tier"] == arguments.tier)
            done = case["name"] in manifest and (out / case["name"] / "output.npy").exists()
            if not wanted or (done and arguments.only is None):
                if done and not (out / case["name"] / "model.json").exists():
                    write_sidecar(out / case["name"], case["side"])
                continue
            started = time.monotonic()
            entry = write_case(architecture, case, out)
            manifest = record(manifest_path, case["name"], entry)
            print(f"{case['name']}: {entry['bytes'] / 1e6:.1f} MB, margin {entry['top_margin']:.3g}, "
                  f"torch-ort {entry['torch_vs_onnxruntime']:.2g}, {time.monotonic() - started:.1f} s",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
