#!/usr/bin/env python3
"""Quantize two classifiers to int8 with ONNX Runtime's quantizer and write ONNX Runtime's outputs.

The models:

    lite0          ../shared/models/onnx/efficientnet-lite0.onnx (Google's EfficientNet-Lite0
                   weights, BN folded, opset 13), with its 12 exact preprocessed inputs
                   ../shared/models/ref/efficientnet-lite0/<stem>.input.npy in the manifest's
                   batch order. Skipped, with a printed reason, when ../shared/models is absent.
    mobilenet_v2   torchvision.models.mobilenet_v2(weights=None) (nothing is downloaded), seeded
                   random weights, exported here with the legacy exporter at opset 13 (input
                   "input", output "logits", dynamic batch) as mobilenet_v2.onnx. A random
                   MobileNet v2 is degenerate for int8 (its int8 and fp32 logits barely correlate),
                   so the weights are shaped like a trained network's: positive-mean depthwise
                   kernels, damped residual branches, BatchNorm statistics measured on augmented
                   crops of the photos (train mode, then eval), and a centred classifier whose row
                   for each photo's (seeded, arbitrary) class is that photo's feature, so each photo
                   has a clear top-1 (see export_mobilenet_v2). Its inputs are the photos
                   preprocessed the torchvision way: shorter side resized to 256 (bilinear,
                   antialiased), centre crop 224, ImageNet mean and std. Photos:
                   ../shared/models/photos in the Lite0 manifest's batch order, else
                   Samples/coffee.png alone (then the network, calibrated on one photo, differs).
    lcnet          PP-LCNet x1.0 (Cui et al. 2021, PaddleClas's layout: depthwise separable blocks
                   with hard-swish, squeeze-excitation with ReLU and hard-sigmoid in the last two,
                   a 1280-wide 1 x 1 head), written here in PyTorch with seeded weights shaped as
                   MobileNet v2's are (see export_lcnet), exported at opset 17 (HardSwish and
                   HardSigmoid nodes) on MobileNet v2's inputs. The family of the issue's "int8 is
                   fast only for ReLU6 networks": hard-swish, SE gates and products in int8.

Each float model goes through onnxruntime.quantization.shape_inference.quant_pre_process (ORT's
recommended pre-processing: symbolic and ONNX shape inference and ORT's basic graph optimization;
quantize_static and quantize_dynamic warn without it), then through the quantizer, with MinMax
calibration by a CalibrationDataReader over the model's own inputs, one image at a time:

    lite0-qdq-s8s8         quantize_static, QDQ, activations QInt8, weights QInt8, per channel
    lite0-qdq-u8s8         quantize_static, QDQ, activations QUInt8, weights QInt8, per channel,
                           reduce_range (7-bit weights)
    lite0-qop-u8s8         quantize_static, QOperator, QUInt8 / QInt8, per channel
    lite0-dynamic          quantize_dynamic with ORT's defaults (weights QInt8, per tensor)
    mobilenet_v2-qdq-s8s8  as lite0-qdq-s8s8
    mobilenet_v2-qop-u8s8  as lite0-qop-u8s8
    lcnet-qdq-s8s8         as lite0-qdq-s8s8
    lcnet-qdq-u8s8         as lite0-qdq-u8s8

Written into the output folder:

    NAME.onnx                        the quantized model
    NAME.outputs.npy                 float32 [N, 1000]: ONNX Runtime's outputs with its default
                                     session options (all graph optimizations, which fuse the
                                     QDQ groups into integer kernels), 1 intra-op thread, one image
                                     per run, as users run it
    NAME.outputs-unoptimized.npy     the same with ORT_DISABLE_ALL: the graph as written, node by
                                     node (the pure ONNX semantics of QDQ)
    MODEL.inputs.npy                 float32 [N, 3, 224, 224]: the inputs, stacked (one per model)
    MODEL.fp32-outputs.npy           float32 [N, 1000]: ONNX Runtime on the float model (defaults)
    mobilenet_v2.onnx, lcnet.onnx    the float networks the fixtures were made from
    manifest.json                    per model and fixture: files, names, op type counts,
                                     settings, top-1s and differences (see write_manifest)

What the quantizer writes (counts in the manifest): QDQ files keep float Conv, Gemm, Add,
GlobalAveragePool and Flatten between QuantizeLinear / DequantizeLinear (weights and int32 biases
as DequantizeLinear of initializers; the Clips become the range of the QuantizeLinear after
them); QOperator files hold QLinearConv and the contrib ops com.microsoft.QLinearAdd,
QLinearGlobalAveragePool and QGemm, one QuantizeLinear at the input and one DequantizeLinear at the
output; the dynamic file holds DynamicQuantizeLinear, ConvInteger, MatMulInteger (the Gemm) and
float Cast / Mul / Add / Reshape / Clip around them. Every quantized file imports the opset
domains ORT registers (ai.onnx.ml, com.microsoft, com.microsoft.nchwc, org.pytorch.aten, ...),
since quant_pre_process saves ORT's optimized graph with all of them, as users' files will.

The manifest records a version stamp (a hash of this file and the package versions); fixtures
already written under the same stamp are kept, any other stamp regenerates everything.

Usage: generate.py OUT [--shared DIR] [--benchmark] PHOTO...
  --shared DIR   ../shared/models (the Lite0 cases and the photos are taken from there)
  --benchmark    also print ONNX Runtime's per-image latency of every model (1 thread, batch 1,
                 no spinning, median of 50 runs) on stdout
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

import onnx  # noqa: E402
import onnxruntime  # noqa: E402
from onnxruntime import quantization  # noqa: E402
from onnxruntime.quantization.shape_inference import quant_pre_process  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "onnx-zoo"))
import torch  # noqa: E402
from torchvision_cpu import import_torchvision  # noqa: E402

torchvision = import_torchvision()

onnxruntime.set_default_logger_severity(3)

SEED = 20261206
SIDE = 224
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)

FIXTURES = [
    {"name": "lite0-qdq-s8s8", "model": "lite0", "method": "static", "format": "QDQ",
     "activation_type": "QInt8", "weight_type": "QInt8", "per_channel": True, "reduce_range": False},
    {"name": "lite0-qdq-u8s8", "model": "lite0", "method": "static", "format": "QDQ",
     "activation_type": "QUInt8", "weight_type": "QInt8", "per_channel": True, "reduce_range": True},
    {"name": "lite0-qop-u8s8", "model": "lite0", "method": "static", "format": "QOperator",
     "activation_type": "QUInt8", "weight_type": "QInt8", "per_channel": True, "reduce_range": False},
    {"name": "lite0-dynamic", "model": "lite0", "method": "dynamic", "format": "QOperator",
     "activation_type": "QUInt8", "weight_type": "QInt8", "per_channel": False, "reduce_range": False},
    {"name": "mobilenet_v2-qdq-s8s8", "model": "mobilenet_v2", "method": "static", "format": "QDQ",
     "activation_type": "QInt8", "weight_type": "QInt8", "per_channel": True, "reduce_range": False},
    {"name": "mobilenet_v2-qop-u8s8", "model": "mobilenet_v2", "method": "static",
     "format": "QOperator", "activation_type": "QUInt8", "weight_type": "QInt8", "per_channel": True,
     "reduce_range": False},
    {"name": "lcnet-qdq-s8s8", "model": "lcnet", "method": "static", "format": "QDQ",
     "activation_type": "QInt8", "weight_type": "QInt8", "per_channel": True, "reduce_range": False},
    {"name": "lcnet-qdq-u8s8", "model": "lcnet", "method": "static", "format": "QDQ",
     "activation_type": "QUInt8", "weight_type": "QInt8", "per_channel": True, "reduce_range": True},
]


def say(message: str) -> None:
    print(f"int8-fixtures: {message}", file=sys.stderr, flush=True)


def version_stamp() -> str:
    digest = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    return (f"generate.py {digest}; onnxruntime {onnxruntime.__version__}; onnx {onnx.__version__}; "
            f"torch {torch.__version__}; torchvision {torchvision.__version__}; numpy {np.__version__}")


# ---------------------------------------------------------------------------------------------
# ONNX Runtime


def session(path: Path, optimized: bool = True) -> onnxruntime.InferenceSession:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    if not optimized:
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def run(path: Path, inputs: np.ndarray, optimized: bool = True) -> np.ndarray:
    """The model's first output for every input, one image per run."""
    sess = session(path, optimized)
    name = sess.get_inputs()[0].name
    rows = [sess.run(None, {name: inputs[i:i + 1]})[0] for i in range(len(inputs))]
    return np.concatenate(rows).astype(np.float32)


def optimized_op_types(path: Path, temporary: Path) -> dict[str, int]:
    """The op types of the graph ONNX Runtime runs with its default optimizations (what it fuses)."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    options.optimized_model_filepath = str(temporary / "optimized.onnx")
    onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return op_types(onnx.load(options.optimized_model_filepath))


def latency_ms(path: Path, image: np.ndarray, runs: int = 50) -> float:
    sess = session(path)
    feed = {sess.get_inputs()[0].name: image}
    for _ in range(5):
        sess.run(None, feed)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        sess.run(None, feed)
        times.append(time.perf_counter() - start)
    return float(np.median(times) * 1e3)


class Reader(quantization.CalibrationDataReader):
    """MinMax calibration data: the model's inputs, one image at a time."""

    def __init__(self, name: str, inputs: np.ndarray) -> None:
        self.name, self.inputs, self.index = name, inputs, 0

    def get_next(self) -> dict | None:
        if self.index >= len(self.inputs):
            return None
        self.index += 1
        return {self.name: self.inputs[self.index - 1:self.index]}

    def rewind(self) -> None:
        self.index = 0

    def __len__(self) -> int:
        return len(self.inputs)


def quantize(fixture: dict, preprocessed: Path, inputs: np.ndarray, destination: Path) -> None:
    qtype = {"QInt8": quantization.QuantType.QInt8, "QUInt8": quantization.QuantType.QUInt8}
    if fixture["method"] == "dynamic":
        # ORT's defaults: weights QInt8 per tensor, activations QUInt8 (the only dynamic choice).
        quantization.quantize_dynamic(preprocessed, destination)
        return
    input_name = onnx.load(str(preprocessed), load_external_data=False).graph.input[0].name
    quantization.quantize_static(
        preprocessed, destination, Reader(input_name, inputs),
        quant_format=getattr(quantization.QuantFormat, fixture["format"]),
        activation_type=qtype[fixture["activation_type"]],
        weight_type=qtype[fixture["weight_type"]],
        per_channel=fixture["per_channel"],
        reduce_range=fixture["reduce_range"],
        calibrate_method=quantization.CalibrationMethod.MinMax,
    )


# ---------------------------------------------------------------------------------------------
# Graph facts


def op_types(model: onnx.ModelProto) -> dict[str, int]:
    counts = Counter(node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"
                     for node in model.graph.node)
    return dict(sorted(counts.items()))


def output_dequantize_scale(model: onnx.ModelProto) -> float | None:
    """The scale of the DequantizeLinear that produces the graph's output, if one does."""
    output = model.graph.output[0].name
    initializers = {tensor.name: tensor for tensor in model.graph.initializer}
    for node in model.graph.node:
        if output in node.output and node.op_type == "DequantizeLinear":
            scale = initializers.get(node.input[1])
            if scale is not None:
                return float(onnx.numpy_helper.to_array(scale).reshape(-1)[0])
    return None


# ---------------------------------------------------------------------------------------------
# Models and inputs


def lite0_inputs(shared: Path) -> tuple[Path, np.ndarray, list[str]]:
    reference = json.loads((shared / "ref" / "manifest.json").read_text())
    entry = reference["models"]["efficientnet-lite0"]
    order = entry["batch"]["order"]
    arrays = [np.load(shared / entry["photos"][stem]["input"]) for stem in order]
    return shared / entry["onnx"], np.concatenate(arrays).astype(np.float32), order


def torchvision_preprocess(photo: Path) -> np.ndarray:
    from PIL import Image, ImageOps
    from torchvision.transforms import functional

    image = ImageOps.exif_transpose(Image.open(photo)).convert("RGB")
    image = functional.center_crop(functional.resize(image, 256, antialias=True), SIDE)
    array = np.asarray(image, dtype=np.float32) / 255.0
    return ((array - MEAN) / STD).transpose(2, 0, 1)[None].astype(np.float32)


def calibration_crops(photos: list[Path], batches: int = 4, batch_size: int = 12) -> list:
    """Augmented crops of the photos (seeded), to measure BatchNorm statistics on."""
    from PIL import Image, ImageOps
    from torchvision import transforms

    torch.manual_seed(SEED)
    augment = transforms.Compose([
        transforms.RandomResizedCrop(SIDE, scale=(0.2, 1.0)), transforms.RandomHorizontalFlip(),
        transforms.ToTensor(), transforms.Normalize(MEAN.tolist(), STD.tolist()),
    ])
    images = [ImageOps.exif_transpose(Image.open(photo)).convert("RGB") for photo in photos]
    return [torch.stack([augment(images[(b * batch_size + i) % len(images)]) for i in range(batch_size)])
            for b in range(batches)]


def export_mobilenet_v2(photos: list[Path], inputs: np.ndarray, path: Path) -> None:
    """torchvision's MobileNet v2 with seeded weights made to behave like a trained network's.

    A random MobileNet v2 is a poor int8 subject: its zero-mean 3 x 3 depthwise kernels are
    high-pass filters that remove most of the (smooth) image signal, so each BatchNorm scales the
    rounding noise of the layer before up against it; after 17 blocks int8 and fp32 logits barely
    correlate (0.6), and a random classifier's top-2 logits are nearly tied. Here, as in trained
    networks: depthwise kernels have a positive mean ((1 + N(0, 1)) / 9 per tap); the last
    BatchNorm of each residual branch has scale 0.3 (the branches add to the identity path rather
    than replace it); BatchNorm statistics are measured on augmented crops of the photos (train
    mode, cumulative averages, then eval); and the classifier is centred on those crops (bias = -W
    times the mean feature, weights scaled to a logit spread of 1) with one row per input photo set
    to its centred feature, so that photo's class (from a seeded permutation) scores about 8, as
    a trained classifier's top logit does. int8 and fp32 logits then correlate about 0.97.
    """
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED)
    model = torchvision.models.mobilenet_v2(weights=None)
    crops = calibration_crops(photos)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.Conv2d) and module.groups > 1:
                module.weight.copy_((1 + torch.randn(module.weight.shape, generator=generator)) / 9)
            if getattr(module, "use_res_connect", False):
                module.conv[-1].weight.fill_(0.3)

        def features(batch: torch.Tensor) -> torch.Tensor:
            return torch.flatten(torch.nn.functional.adaptive_avg_pool2d(model.features(batch), 1), 1)

        shape_like_trained(model, features, model.classifier[1], crops, inputs, generator)
        torch.onnx.export(
            model, (torch.from_numpy(inputs[:1]),), str(path), dynamo=False, opset_version=13,
            input_names=["input"], output_names=["logits"],
            dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}}, do_constant_folding=True,
        )


class LCNet(torch.nn.Module):
    """PP-LCNet x1.0 as PaddleClas lays it out (kernel, input, output, stride, SE per block)."""

    BLOCKS = [(3, 16, 32, 1, False),
              (3, 32, 64, 2, False), (3, 64, 64, 1, False),
              (3, 64, 128, 2, False), (3, 128, 128, 1, False),
              (3, 128, 256, 2, False)] + [(5, 256, 256, 1, False)] * 5 + \
             [(5, 256, 512, 2, True), (5, 512, 512, 1, True)]

    def __init__(self, classes: int = 1000) -> None:
        super().__init__()
        nn = torch.nn
        layers = [nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish()]
        for kernel, inputs, outputs, stride, squeeze in self.BLOCKS:
            layers += [nn.Conv2d(inputs, inputs, kernel, stride, kernel // 2, groups=inputs, bias=False),
                       nn.BatchNorm2d(inputs), nn.Hardswish()]
            if squeeze:
                layers.append(SqueezeExcitation(inputs))
            layers += [nn.Conv2d(inputs, outputs, 1, bias=False), nn.BatchNorm2d(outputs), nn.Hardswish()]
        self.features = nn.Sequential(*layers)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(512, 1280, 1), nn.Hardswish(),
                                  nn.Dropout(0.2), nn.Flatten())
        self.classifier = nn.Linear(1280, classes)

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.embed(x))


class SqueezeExcitation(torch.nn.Module):
    """PaddleClas's SEModule: pool, 1 x 1 to a quarter, ReLU, 1 x 1 back, hard-sigmoid, product."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.reduce = torch.nn.Conv2d(channels, channels // 4, 1)
        self.expand = torch.nn.Conv2d(channels // 4, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.nn.functional.adaptive_avg_pool2d(x, 1)
        gate = torch.nn.functional.hardsigmoid(self.expand(torch.relu(self.reduce(gate))))
        return x * gate


def shape_like_trained(model: torch.nn.Module, embed, classifier: torch.nn.Linear, crops: list,
                       inputs: np.ndarray, generator: torch.Generator) -> None:
    """BatchNorm statistics measured on the crops, and a classifier centred on them with one row
    per input photo pointing at its feature (see export_mobilenet_v2)."""
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.reset_running_stats()
            module.momentum = None  # a cumulative average over the batches
    model.train()
    for batch in crops:
        model(batch)
    model.eval()
    features = torch.cat([embed(batch) for batch in crops])
    mean = features.mean(0)
    classifier.bias.copy_(-classifier.weight @ mean)
    spread = (features @ classifier.weight.T + classifier.bias).std()
    classifier.weight.div_(spread)
    classifier.bias.div_(spread)
    classes = torch.randperm(classifier.out_features, generator=generator)[:len(inputs)]
    for image, label in zip(embed(torch.from_numpy(inputs)), classes):
        direction = image - mean
        classifier.weight[label] = 8.0 * direction / direction.dot(direction)
        classifier.bias[label] = -classifier.weight[label].dot(mean)


def export_lcnet(photos: list[Path], inputs: np.ndarray, path: Path) -> None:
    """PP-LCNet x1.0 with seeded weights made to behave like a trained network's.

    As for MobileNet v2: positive-mean depthwise kernels ((1 + N(0, 1)) / k^2 per tap), BatchNorm
    statistics from augmented crops of the photos, a centred classifier with a clear top-1 per
    photo. The SE gates get a bias of 1 before the hard-sigmoid, so that they open to about 0.7
    on average and vary, as trained gates do, instead of sitting at 0.5.
    """
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED)
    model = LCNet()
    crops = calibration_crops(photos)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.Conv2d) and module.groups > 1:
                taps = module.kernel_size[0] * module.kernel_size[1]
                module.weight.copy_((1 + torch.randn(module.weight.shape, generator=generator)) / taps)
            if isinstance(module, SqueezeExcitation):
                module.expand.bias.fill_(1.0)
        shape_like_trained(model, model.embed, model.classifier, crops, inputs, generator)
        torch.onnx.export(
            model, (torch.from_numpy(inputs[:1]),), str(path), dynamo=False, opset_version=17,
            input_names=["input"], output_names=["logits"],
            dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}}, do_constant_folding=True,
        )


# The networks exported here, by manifest key: the exporter and what the log calls it.
TORCH_MODELS = {
    "mobilenet_v2": (export_mobilenet_v2, "torchvision's MobileNet v2"),
    "lcnet": (export_lcnet, "PP-LCNet x1.0"),
}


# ---------------------------------------------------------------------------------------------
# Fixtures


def top1(outputs: np.ndarray) -> list[int]:
    return [int(i) for i in outputs.argmax(1)]


def write_fixture(fixture: dict, out: Path, base: dict, preprocessed: Path, temporary: Path) -> dict:
    name = fixture["name"]
    path = out / f"{name}.onnx"
    inputs = base["inputs"]
    partial = out / f"{name}.partial.onnx"
    quantize(fixture, preprocessed, inputs, partial)
    outputs = run(partial, inputs)
    unoptimized = run(partial, inputs, optimized=False)
    np.save(out / f"{name}.outputs.npy", outputs)
    np.save(out / f"{name}.outputs-unoptimized.npy", unoptimized)
    os.replace(partial, path)  # last: a written .onnx means the fixture is complete
    model = onnx.load(str(path))
    fp32 = base["fp32_outputs"]
    scale = output_dequantize_scale(model)
    optimization_diff = float(np.abs(outputs - unoptimized).max())
    int8_top1, fp32_top1 = top1(outputs), top1(fp32)
    settings = {key: fixture[key] for key in
                ("method", "format", "activation_type", "weight_type", "per_channel", "reduce_range")}
    settings.update({
        "calibrate_method": "MinMax" if fixture["method"] == "static" else None,
        "calibration_inputs": len(inputs) if fixture["method"] == "static" else 0,
        "pre_process": "quant_pre_process (defaults)",
        "extra_options": {},
    })
    return {
        "name": name,
        "file": path.name,
        "bytes": path.stat().st_size,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "model": fixture["model"],
        "source_model": base["source"],
        "opset": {(entry.domain or "ai.onnx"): entry.version for entry in model.opset_import},
        "input_name": model.graph.input[0].name,
        "output_name": model.graph.output[0].name,
        "inputs": base["inputs_file"],
        "photos": base["photos"],
        "outputs": f"{name}.outputs.npy",
        "outputs_unoptimized": f"{name}.outputs-unoptimized.npy",
        "fp32_outputs": base["fp32_file"],
        "op_types": op_types(model),
        "ort_optimized_op_types": optimized_op_types(path, temporary),
        "quantization": settings,
        "top1_int8": int8_top1,
        "top1_fp32": fp32_top1,
        "top1_agreement": sum(a == b for a, b in zip(int8_top1, fp32_top1)),
        "top1_int8_unoptimized": top1(unoptimized),
        "max_abs_diff_int8_vs_fp32": float(np.abs(outputs - fp32).max()),
        "max_abs_diff_optimized_vs_unoptimized": optimization_diff,
        "output_dequantize_scale": scale,
        "max_diff_optimized_vs_unoptimized_steps": (optimization_diff / scale) if scale else None,
    }


def complete(out: Path, entry: dict) -> bool:
    files = [entry["file"], entry["outputs"], entry["outputs_unoptimized"], entry["inputs"],
             entry["fp32_outputs"]]
    return all((out / file).is_file() for file in files)


def write_manifest(out: Path, stamp: str, models: dict, fixtures: list[dict], skipped: list[str]) -> None:
    """manifest.json: {"format", "version", "session", "models", "fixtures", "skipped"}.

    models: {"lite0" | "mobilenet_v2" | "lcnet": {file (the fp32 model; Lite0's relative to the
    repository root), input_name, output_name, inputs, photos (input row order), fp32_outputs,
    fp32_top1, op_types, bytes (the exported ones only)}}.
    fixtures: [{name, file, bytes, sha256, model, source_model, opset ({domain: version}),
    input_name, output_name, inputs, photos, outputs, outputs_unoptimized, fp32_outputs,
    op_types ({op: count}; "com.microsoft.X" for contrib ops), ort_optimized_op_types (the same
    for the graph ORT runs after its default optimizations: what it fused), quantization (method, format,
    activation_type, weight_type, per_channel, reduce_range, calibrate_method,
    calibration_inputs, pre_process, extra_options), top1_int8, top1_fp32, top1_agreement (count),
    top1_int8_unoptimized, max_abs_diff_int8_vs_fp32, max_abs_diff_optimized_vs_unoptimized,
    output_dequantize_scale (of the DequantizeLinear producing the output, else null),
    max_diff_optimized_vs_unoptimized_steps (the difference in those steps, else null)}].
    skipped: names of fixtures not written (the Lite0 ones without ../shared/models).
    """
    manifest = {
        "format": "NumPy .npy, float32, C order. NAME.outputs.npy: ONNX Runtime's outputs with default "
                  "session options (ORT_ENABLE_ALL), NAME.outputs-unoptimized.npy: ORT_DISABLE_ALL; "
                  "row i is the output for row i of the model's inputs file, run one image per run.",
        "version": stamp,
        "session": {"intra_op_num_threads": 1, "session.intra_op.allow_spinning": "0",
                    "providers": ["CPUExecutionProvider"], "batch": 1},
        "models": models,
        "fixtures": fixtures,
        "skipped": skipped,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def same_array(path: Path, array: np.ndarray) -> bool:
    if not path.is_file():
        return False
    stored = np.load(path)
    return stored.shape == array.shape and np.array_equal(stored, array)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("photos", type=Path, nargs="*")
    parser.add_argument("--shared", type=Path)
    parser.add_argument("--benchmark", action="store_true")
    args = parser.parse_intermixed_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    stamp = version_stamp()
    old: dict[str, dict] = {}
    old_models: dict[str, dict] = {}
    manifest_path = out / "manifest.json"
    if manifest_path.is_file():
        previous = json.loads(manifest_path.read_text())
        if previous.get("version") == stamp:
            old = {entry["name"]: entry for entry in previous["fixtures"]}
            old_models = previous.get("models", {})
        else:
            say("generator or package versions changed: regenerating")
    start = time.perf_counter()

    skipped: list[str] = []
    models: dict[str, dict] = {}
    bases: dict[str, dict] = {}
    shared = args.shared if args.shared and (args.shared / "ref" / "manifest.json").is_file() else None

    if shared:
        source, inputs, order = lite0_inputs(shared)
        bases["lite0"] = {"path": source, "inputs": inputs, "photos": order,
                          "source": "../shared/models/" + str(source.relative_to(shared))}
    else:
        reason = "../shared/models is absent: the Lite0 fixtures (lite0-*) are skipped"
        say(reason)
        skipped = [fixture["name"] for fixture in FIXTURES if fixture["model"] == "lite0"]

    photos = args.photos
    if shared:
        by_stem = {photo.stem: photo for photo in photos}
        order = json.loads((shared / "ref" / "manifest.json").read_text())["models"][
            "efficientnet-lite0"]["batch"]["order"]
        photos = [by_stem[stem] for stem in order if stem in by_stem] + \
            [photo for photo in photos if photo.stem not in order]
    if not photos:
        raise SystemExit("int8-fixtures: no photos for MobileNet v2 and PP-LCNet")
    torch_inputs = np.concatenate([torchvision_preprocess(photo) for photo in photos])
    stems = [photo.stem for photo in photos]
    for key, (export, what) in TORCH_MODELS.items():
        path = out / f"{key}.onnx"
        keep = path.is_file() and key in old_models and old_models[key]["photos"] == stems and \
            same_array(out / f"{key}.inputs.npy", torch_inputs)
        if not keep:
            old = {name: entry for name, entry in old.items() if entry["model"] != key}
            say(f"exporting {what} (seeded weights, BatchNorm statistics from the photos)")
            export(photos, torch_inputs, path)
        bases[key] = {"path": path, "source": path.name, "inputs": torch_inputs, "photos": stems}

    for key, base in bases.items():
        base["inputs_file"] = f"{key}.inputs.npy"
        base["fp32_file"] = f"{key}.fp32-outputs.npy"
        if not same_array(out / base["inputs_file"], base["inputs"]):
            np.save(out / base["inputs_file"], base["inputs"])
            old = {name: entry for name, entry in old.items() if entry["model"] != key}
        fp32_file = out / base["fp32_file"]
        if fp32_file.is_file() and any(entry["model"] == key for entry in old.values()):
            base["fp32_outputs"] = np.load(fp32_file)
        else:
            base["fp32_outputs"] = run(base["path"], base["inputs"])
            np.save(fp32_file, base["fp32_outputs"])
        fp32_model = onnx.load(str(base["path"]))
        models[key] = {
            "file": base["source"],
            "input_name": fp32_model.graph.input[0].name,
            "output_name": fp32_model.graph.output[0].name,
            "inputs": base["inputs_file"],
            "photos": base["photos"],
            "fp32_outputs": base["fp32_file"],
            "fp32_top1": top1(base["fp32_outputs"]),
            "op_types": op_types(fp32_model),
        }
        if key in TORCH_MODELS:
            models[key]["bytes"] = base["path"].stat().st_size

    entries = []
    with tempfile.TemporaryDirectory() as temporary:
        preprocessed: dict[str, Path] = {}
        for fixture in FIXTURES:
            key = fixture["model"]
            if key not in bases:
                continue
            entry = old.get(fixture["name"])
            if entry and complete(out, entry):
                entries.append(entry)
                continue
            if key not in preprocessed:
                preprocessed[key] = Path(temporary) / f"{key}.preprocessed.onnx"
                quant_pre_process(str(bases[key]["path"]), str(preprocessed[key]))
            say(f"{fixture['name']}")
            entry = write_fixture(fixture, out, bases[key], preprocessed[key], Path(temporary))
            entries.append(entry)
            say(f"{fixture['name']}: top-1 agrees with fp32 on {entry['top1_agreement']}/"
                f"{len(entry['top1_int8'])}, max |int8 - fp32| {entry['max_abs_diff_int8_vs_fp32']:.3g}, "
                f"optimized vs unoptimized {entry['max_abs_diff_optimized_vs_unoptimized']:.3g}")
    write_manifest(out, stamp, models, entries, skipped)
    say(f"{len(entries)} fixtures in {out} ({time.perf_counter() - start:.0f} s)")

    if args.benchmark:
        print(f"{'model':28} {'ms/image':>9}   (ONNX Runtime {onnxruntime.__version__}, 1 thread, "
              f"batch 1, no spinning, median of 50)")
        for key, base in bases.items():
            print(f"{key + ' (fp32)':28} {latency_ms(base['path'], base['inputs'][:1]):9.2f}")
            for entry in entries:
                if entry["model"] == key:
                    print(f"{entry['name']:28} {latency_ms(out / entry['file'], base['inputs'][:1]):9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
