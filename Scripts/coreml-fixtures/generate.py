"""Build Core ML test fixtures (.mlmodel, .mlpackage) with coremltools, and PyTorch's outputs.

Every .mlmodel fixture is a torchvision classifier with seeded random weights (nothing is
downloaded) and non-trivial BatchNorm statistics, converted with `ct.convert(...,
convert_to="neuralnetwork")`, an image input (scale and per-colour biases, RGB or BGR) and a
classifier config. Written per fixture into the output folder:

    NAME.mlmodel        the model (FP32, FP16, 8-bit linear or 4-bit look-up-table weights)
    NAME.json           architecture, precision, colour layout, scale and biases as stored, and
                        the reference top-5 labels per photo
    NAME.pixels.npy     uint8 [N, 224, 224, 3]: the photos in RGB, shorter side scaled to 224
                        with Pillow's bilinear filter and centre-cropped (Vision's centerCrop)
    NAME.outputs.npy    float32 [N, 1000]: the model's output for those pixels, from PyTorch
    photos/PHOTO.png    the 224 x 224 crops as PNG, so a classification of one sees exactly the
                        pixels the reference saw (a random-weight network's near-tied scores
                        would otherwise swap places under another resampler)

Core ML computes `channelScale * pixel + bias` per colour and feeds the channels in the model's
colour order; the reference does the same from the values stored in the file. BatchNorm is folded
into the convolutions before conversion (the converter would fold it too), so the file's weights
are PyTorch's. For FP16 and quantized files the PyTorch weights are first rounded onto the grid the
file stores (FP16 values, a per-channel 256-level linear grid, a 16-value palette), so the file
holds exactly the weights the reference runs; the script checks that by dequantizing the file.

Also written: `createml-scene-print.mlmodel` (a pipeline whose first model is Vision's scene
feature print, as Create ML saves an image classifier; its weights live in Apple's OS) and
`mobilenet_v2-mlprogram.mlpackage` (an ML Program, what converters emit by default), and two
small ML Programs for the package reader (`small_cnn-mlprogram-fp32.mlpackage`, `-fp16`), with
the weights they must hold as `small_cnn-mlprogram.NAME.npy` (see write_small_ml_programs).

ML Program fixtures (`ML_PROGRAM_FIXTURES`, all named `mlprogram-*`) are converted with
`convert_to="mlprogram"`, the same image input and classifier config, and written as
`NAME.mlpackage` beside the same `.json` (plus "format", "minimum_deployment_target",
"operations": the sorted MIL op types of the main function, and "input_side"), `.pixels.npy`
and `.outputs.npy` (float32 [N, 1000] logits, computed in float64):

    mobilenet_v2 FP32 (iOS15) and FP16 (iOS16); resnet18 FP16
    mobilenet_v2 pal4 (iOS16 constexpr_lut_to_dense: a 16-value palette, packed uint8 indices)
    resnet18 pal6 (iOS18 constexpr_lut_to_dense: uint6 indices, a [1, 1, 1, 1, 64, 1] palette)
    mobilenet_v2 int8 per output channel: iOS16 constexpr_affine_dequantize and iOS18
        constexpr_blockwise_shift_scale
    vit: torchvision's VisionTransformer at a toy size (2 layers, hidden 64), FP16 and FP32;
        attention is decomposed (matmul, softmax) at the default target, and one iOS18 FP16
        conversion whose attention is iOS18's scaled_dot_product_attention
    squeezenet1_1 FP32 with a flexible image side (160...320, run at 224)
    layers_a, layers_b: hand-built networks whose programs hold 34 and 41 MIL op types
        (mlprogram_networks.py)

Compressed variants compute in FP16 and are exact: the PyTorch weights are first put on what the
package stores (round_for_program). Each package is then read back independently of
coremltools' runtime (mlpackage.py parses the model protobuf and the weight blob file and
decompresses the constexpr ops in numpy); every float tensor of the PyTorch model must be
stored exactly, every layer weight in the package must be one of the model's, and the model then
runs the stored values. `mlprogram-mobilenet_v2-fp32-rgb.onnx` is the same network as ONNX
(opset 13, input "input": normalized float [1, 3, 224, 224], output "logits").

Fixtures already written (their .json exists) are kept.

Usage: generate.py OUTPUT_DIR PHOTO...
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys
import time
import warnings
from itertools import chain
from pathlib import Path

import numpy as np
import torch
from PIL import Image, ImageOps

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "onnx-zoo"))
from torchvision_cpu import import_torchvision  # noqa: E402

torchvision = import_torchvision()
warnings.filterwarnings("ignore")
import coremltools as ct  # noqa: E402
from coremltools.models.neural_network import quantization_utils  # noqa: E402
from torch.fx.experimental.optimization import fuse  # noqa: E402

from layers import NETWORKS  # noqa: E402
from mlpackage import read_program  # noqa: E402
from mlprogram_networks import NETWORKS as PROGRAM_NETWORKS  # noqa: E402

SEED = 20261205
SIDE = 224
# ImageNet's mean over one shared scale: Core ML has one channelScale for all colours.
MEAN = (0.485, 0.456, 0.406)
STD = 0.226
LABELS = [f"category {index:04d}" for index in range(1000)]

# name, architecture, precision, colour layout
FIXTURES = [
    ("mobilenet_v2-fp32-rgb", "mobilenet_v2", "fp32", "RGB"),
    ("mobilenet_v2-fp16-bgr", "mobilenet_v2", "fp16", "BGR"),
    ("mobilenet_v2-int8-rgb", "mobilenet_v2", "int8", "RGB"),
    ("resnet18-fp32-bgr", "resnet18", "fp32", "BGR"),
    ("resnet18-int8-rgb", "resnet18", "int8", "RGB"),
    ("squeezenet1_1-fp32-rgb", "squeezenet1_1", "fp32", "RGB"),
    ("squeezenet1_1-lut4-bgr", "squeezenet1_1", "lut4", "BGR"),
]

# name, architecture (torchvision's or mlprogram_networks.py's), precision, colour layout,
# minimum deployment target (None: coremltools' default, iOS15), flexible image side (or None)
ML_PROGRAM_FIXTURES = [
    ("mlprogram-mobilenet_v2-fp32-rgb", "mobilenet_v2", "fp32", "RGB", "iOS15", None),
    ("mlprogram-mobilenet_v2-fp16-bgr", "mobilenet_v2", "fp16", "BGR", "iOS16", None),
    ("mlprogram-resnet18-fp16-rgb", "resnet18", "fp16", "RGB", None, None),
    ("mlprogram-mobilenet_v2-pal4-rgb", "mobilenet_v2", "pal4", "RGB", "iOS16", None),
    ("mlprogram-resnet18-pal6-bgr", "resnet18", "pal6", "BGR", "iOS18", None),
    ("mlprogram-mobilenet_v2-int8ios16-rgb", "mobilenet_v2", "int8", "RGB", "iOS16", None),
    ("mlprogram-mobilenet_v2-int8ios18-bgr", "mobilenet_v2", "int8", "BGR", "iOS18", None),
    ("mlprogram-vit-fp16-rgb", "vit", "fp16", "RGB", None, None),
    ("mlprogram-vit-fp32-bgr", "vit", "fp32", "BGR", None, None),
    ("mlprogram-vit-fp16ios18-bgr", "vit", "fp16", "BGR", "iOS18", None),
    ("mlprogram-squeezenet1_1-flexible-rgb", "squeezenet1_1", "fp32", "RGB", None, (160, 320)),
    ("mlprogram-layers_a-fp32-rgb", "layers_a", "fp32", "RGB", None, None),
    ("mlprogram-layers_b-fp32-rgb", "layers_b", "fp32", "RGB", None, None),
]
# Seeds of the networks that are not torchvision's (layers_b's: one without a near-tied argmax).
PROGRAM_SEEDS = {"vit": SEED + 20, "layers_a": SEED + 21, "layers_b": SEED + 22}
# The fixture also written as ONNX, the same network for the benchmark.
ONNX_TWIN = "mlprogram-mobilenet_v2-fp32-rgb"
# coremltools compresses only constants with more elements than this (its default).
COMPRESSION_THRESHOLD = 2048
# The constexpr op (and form) each compressed precision must be stored with, by target.
COMPRESSED_FORMS = {
    ("pal4", "iOS16"): "constexpr_lut_to_dense iOS16",
    ("pal6", "iOS18"): "constexpr_lut_to_dense iOS18",
    ("int8", "iOS16"): "constexpr_affine_dequantize iOS16",
    ("int8", "iOS18"): "constexpr_blockwise_shift_scale iOS18",
}

# name, hand-built network (layers.py), colour layout, seed (one without near-tied scores)
LAYER_FIXTURES = [
    ("layers_rank5-fp32-rgb", "layers_rank5", "RGB", SEED + 15),
    ("layers_nd-fp32-bgr", "layers_nd", "BGR", SEED + 4),
    ("layers_reduce-fp32-rgb", "layers_reduce", "RGB", SEED + 54),
    ("layers_se-fp32-rgb", "layers_se", "RGB", SEED + 23),
]


def build(architecture: str) -> torch.nn.Module:
    """The architecture with seeded weights and BatchNorm statistics far from the identity."""
    torch.manual_seed(SEED)
    model = getattr(torchvision.models, architecture)(weights=None)
    generator = torch.Generator().manual_seed(SEED + 1)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            count = module.num_features
            module.running_mean.copy_(torch.randn(count, generator=generator) * 0.2)
            module.running_var.copy_(torch.rand(count, generator=generator) * 1.5 + 0.5)
            module.weight.data.copy_(torch.rand(count, generator=generator) + 0.5)
            module.bias.data.copy_(torch.randn(count, generator=generator) * 0.1)
    return fuse(model.eval())


def round_weights(model: torch.nn.Module, precision: str) -> None:
    """Puts every convolution and dense weight on the grid the file will store."""
    for module in model.modules():
        if not isinstance(module, (torch.nn.Conv2d, torch.nn.Linear)):
            continue
        weight = module.weight.data
        if precision == "fp16":
            module.weight.data = weight.half().float()
            if module.bias is not None:
                module.bias.data = module.bias.data.half().float()
        elif precision == "int8":
            module.weight.data = torch.from_numpy(linear_grid(weight.numpy(), 8))
            if module.bias is not None:
                # coremltools quantizes a bias vector too, as one channel.
                bias = module.bias.data.numpy().reshape(1, -1)
                module.bias.data = torch.from_numpy(linear_grid(bias, 8).reshape(-1))
        elif precision == "lut4":
            module.weight.data = torch.from_numpy(palette_grid(weight.numpy(), 16))


def linear_grid(weight: np.ndarray, bits: int) -> np.ndarray:
    """Per output channel, the nearest of 2^bits levels between the channel's min and max."""
    flat = weight.reshape(weight.shape[0], -1).astype(np.float32)
    low, high = flat.min(axis=1), flat.max(axis=1)
    scale = ((high - low) / np.float32((1 << bits) - 1)).astype(np.float32)
    safe = np.where(scale == 0, np.float32(1), scale)
    levels = np.clip(np.round((flat - low[:, None]) / safe[:, None]), 0, (1 << bits) - 1)
    return (levels * scale[:, None] + low[:, None]).astype(np.float32).reshape(weight.shape)


def palette_grid(weight: np.ndarray, size: int) -> np.ndarray:
    """The whole tensor on a palette of `size` values (quantiles refined by k-means steps)."""
    flat = weight.reshape(-1).astype(np.float32)
    palette = np.quantile(flat, (np.arange(size) + 0.5) / size).astype(np.float32)
    for _ in range(10):
        nearest = np.abs(flat[:, None] - palette[None, :]).argmin(axis=1)
        for index in range(size):
            chosen = flat[nearest == index]
            if chosen.size:
                palette[index] = chosen.mean()
    nearest = np.abs(flat[:, None] - palette[None, :]).argmin(axis=1)
    return palette[nearest].reshape(weight.shape)


def palette_function(bits: int, weight: np.ndarray):
    """coremltools' custom LUT hook: the tensor's own values (already on a palette)."""
    flat = weight.reshape(-1).astype(np.float32)
    palette, indices = np.unique(flat, return_inverse=True)
    lut = np.zeros(1 << bits, dtype=np.float32)
    lut[: palette.size] = palette
    return lut, indices.astype(np.uint8).reshape(weight.shape)


def convert(model: torch.nn.Module, layout: str, precision: str):
    traced = torch.jit.trace(model, torch.rand(1, 3, SIDE, SIDE))
    order = MEAN if layout == "RGB" else MEAN[::-1]
    image = ct.ImageType(
        name="image", shape=(1, 3, SIDE, SIDE), scale=1 / (STD * 255),
        bias=[-mean / STD for mean in order],
        color_layout=ct.colorlayout.RGB if layout == "RGB" else ct.colorlayout.BGR)
    mlmodel = ct.convert(
        traced, convert_to="neuralnetwork", inputs=[image],
        classifier_config=ct.ClassifierConfig(LABELS))
    if precision == "fp16":
        mlmodel = quantization_utils.quantize_weights(mlmodel, nbits=16)
    elif precision == "int8":
        mlmodel = quantization_utils.quantize_weights(mlmodel, nbits=8, quantization_mode="linear")
    elif precision == "lut4":
        mlmodel = quantization_utils.quantize_weights(
            mlmodel, nbits=4, quantization_mode="custom_lut", lut_function=palette_function)
    return mlmodel


def dequantized(params, count: int) -> np.ndarray | None:
    """A WeightParams' values as float32, read independently of coremltools."""
    if len(params.floatValue):
        return np.asarray(params.floatValue, dtype=np.float32)
    if params.float16Value:
        return np.frombuffer(params.float16Value, dtype="<f2").astype(np.float32)
    if not params.rawValue:
        return None
    quantization = params.quantization
    bits = quantization.numberOfBits
    # Codes are packed from each byte's most significant bit down (checked on 4-bit files).
    packed = np.unpackbits(np.frombuffer(params.rawValue, dtype=np.uint8), bitorder="big")
    codes = packed[: count * bits].reshape(count, bits)
    indices = (codes * (1 << np.arange(bits)[::-1])).sum(axis=1)
    if quantization.WhichOneof("QuantizationType") == "lookupTableQuantization":
        return np.asarray(quantization.lookupTableQuantization.floatValue, np.float32)[indices]
    linear = quantization.linearQuantization
    scale = np.asarray(linear.scale, np.float32)
    bias = np.asarray(linear.bias, np.float32)
    channels = scale.size
    per = count // channels
    return (indices.reshape(channels, per) * scale[:, None] + bias[:, None]).astype(
        np.float32).reshape(-1)


def check_weights(mlmodel, model: torch.nn.Module) -> None:
    """Every stored convolution and dense weight and bias is one of the model's, exactly."""
    layers = [m for m in model.modules() if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    remaining = [m.weight.detach().numpy().reshape(-1) for m in layers]
    remaining += [m.bias.detach().numpy().reshape(-1) for m in layers if m.bias is not None]
    spec = mlmodel.get_spec()
    for layer in spec.neuralNetworkClassifier.layers:
        kind = layer.WhichOneof("layer")
        if kind not in ("convolution", "innerProduct"):
            continue
        part = getattr(layer, kind)
        count = (part.outputChannels * part.kernelChannels * int(np.prod(part.kernelSize))
                 if kind == "convolution" else part.outputChannels * part.inputChannels)
        stored = [("weights", dequantized(part.weights, count))]
        if part.hasBias:
            stored.append(("bias", dequantized(part.bias, part.outputChannels)))
        for what, values in stored:
            match = next((i for i, w in enumerate(remaining) if w.size == values.size and
                          np.max(np.abs(w - values)) <= 1e-6 * max(1.0, float(np.max(np.abs(w))))),
                         None)
            if match is None:
                raise SystemExit(f"{layer.name}: the stored {what} are none of the model's")
            remaining.pop(match)
    if remaining:
        raise SystemExit(f"{len(remaining)} weights of the model are not in the file")


def load_pixels(photos: list[Path]) -> np.ndarray:
    """RGB, shorter side to 224 (Pillow's bilinear), centre crop: Vision's centerCrop."""
    result = []
    for path in photos:
        image = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
        scale = SIDE / min(image.size)
        size = (max(SIDE, round(image.width * scale)), max(SIDE, round(image.height * scale)))
        image = image.resize(size, Image.BILINEAR)
        left, top = (size[0] - SIDE) // 2, (size[1] - SIDE) // 2
        result.append(np.asarray(image.crop((left, top, left + SIDE, top + SIDE))))
    return np.stack(result).astype(np.uint8)


def reference(model: torch.nn.Module, spec, pixels: np.ndarray) -> np.ndarray:
    """The model's output from the file's own preprocessing values."""
    description = spec.description.input[0].type.imageType
    scaler = spec.neuralNetworkClassifier.preprocessing[0].scaler
    rgb = pixels.astype(np.float32) * np.float32(scaler.channelScale) + np.asarray(
        [scaler.redBias, scaler.greenBias, scaler.blueBias], np.float32)
    if description.colorSpace == ct.proto.FeatureTypes_pb2.ImageFeatureType.BGR:
        rgb = rgb[..., ::-1]
    tensor = torch.from_numpy(np.ascontiguousarray(rgb.transpose(0, 3, 1, 2)))
    with torch.no_grad():
        return model(tensor).numpy().astype(np.float32)


def write_fixture(out: Path, name: str, architecture: str, precision: str, layout: str,
                  pixels: np.ndarray, photos: list[Path]) -> None:
    if (out / f"{name}.json").exists():  # written last: the fixture is complete
        return
    model = build(architecture)
    round_weights(model, precision)
    mlmodel = convert(model, layout, precision)
    check_weights(mlmodel, model)
    spec = mlmodel.get_spec()
    outputs = reference(model, spec, pixels)
    mlmodel.save(str(out / f"{name}.mlmodel"))
    write_description(out, name, architecture, precision, layout, spec, outputs, pixels, photos)


def write_layer_fixture(out: Path, name: str, network: str, layout: str, seed: int,
                        pixels: np.ndarray, photos: list[Path]) -> None:
    """A hand-built network of layers.py, with its reference's probabilities."""
    if (out / f"{name}.json").exists():
        return
    spec, network_reference = NETWORKS[network](layout, 1 / (STD * 255), [
        -mean / STD for mean in MEAN], seed)
    outputs = reference(network_reference, spec, pixels)
    if not np.all(np.isfinite(outputs)):
        raise SystemExit(f"{name}: the reference gives non-finite probabilities")
    for row in outputs:
        best = np.sort(row)[::-1][:6]
        # Our float32 probabilities are within 1e-6 of PyTorch's: the six best are kept 5e-4
        # apart, so no error short of a wrong layer can swap the five best.
        if np.min(best[:-1] - best[1:]) < 5e-4 or best[0] > 0.99:
            raise SystemExit(f"{name}: near-tied probabilities {best}, choose another seed")
    ct.utils.save_spec(spec, str(out / f"{name}.mlmodel"))
    write_description(out, name, network, "fp32", layout, spec, outputs, pixels, photos)


def write_description(out: Path, name: str, architecture: str, precision: str, layout: str,
                      spec, outputs: np.ndarray, pixels: np.ndarray, photos: list[Path]) -> None:
    scaler = spec.neuralNetworkClassifier.preprocessing[0].scaler
    labels = list(spec.neuralNetworkClassifier.stringClassLabels.vector)
    np.save(out / f"{name}.pixels.npy", pixels)
    np.save(out / f"{name}.outputs.npy", outputs)
    top5 = [[labels[i] for i in np.argsort(-row, kind="stable")[:5]] for row in outputs]
    (out / f"{name}.json").write_text(json.dumps({
        "architecture": architecture, "precision": precision, "color_layout": layout,
        "channel_scale": scaler.channelScale,
        "bias": {"red": scaler.redBias, "green": scaler.greenBias, "blue": scaler.blueBias},
        "probabilities_output": spec.description.predictedProbabilitiesName,
        "photos": [path.name for path in photos], "top5": top5,
    }, indent=2) + "\n")
    print(f"{name}: {(out / f'{name}.mlmodel').stat().st_size // 1024} KiB", file=sys.stderr)


def write_create_ml_pipeline(out: Path) -> None:
    """A pipeline as Create ML saves an image classifier: scene print, then a linear head."""
    proto = ct.proto.Model_pb2
    spec = proto.Model()
    spec.specificationVersion = 4
    image = spec.description.input.add()
    image.name = "image"
    image.type.imageType.width = 299
    image.type.imageType.height = 299
    image.type.imageType.colorSpace = ct.proto.FeatureTypes_pb2.ImageFeatureType.BGR
    label = spec.description.output.add()
    label.name = "classLabel"
    label.type.stringType.MergeFromString(b"")
    probabilities = spec.description.output.add()
    probabilities.name = "classLabelProbs"
    probabilities.type.dictionaryType.stringKeyType.MergeFromString(b"")
    spec.description.predictedFeatureName = "classLabel"
    spec.description.predictedProbabilitiesName = "classLabelProbs"
    pipeline = spec.pipelineClassifier.pipeline
    printer = pipeline.models.add()
    printer.specificationVersion = 4
    printer.visionFeaturePrint.scene.version = 1
    printer.description.input.add().CopyFrom(image)
    features = printer.description.output.add()
    features.name = "sceneprint"
    features.type.multiArrayType.shape.append(2048)
    features.type.multiArrayType.dataType = ct.proto.FeatureTypes_pb2.ArrayFeatureType.DOUBLE
    head = pipeline.models.add()
    head.specificationVersion = 4
    head.description.input.add().CopyFrom(features)
    head.description.output.add().CopyFrom(label)
    head.description.output.add().CopyFrom(probabilities)
    glm = head.glmClassifier
    rng = np.random.default_rng(SEED)
    for _ in range(3):
        glm.weights.add().value.extend(rng.standard_normal(2048).tolist())
    glm.offset.extend([0.0, 0.0, 0.0])
    glm.postEvaluationTransform = proto.GLMClassifier.Logit
    glm.classEncoding = proto.GLMClassifier.ReferenceClass
    glm.stringClassLabels.vector.extend(["bag", "shoe", "watch"])
    (out / "createml-scene-print.mlmodel").write_bytes(spec.SerializeToString())


def write_ml_program(out: Path) -> None:
    model = build("mobilenet_v2")
    traced = torch.jit.trace(model, torch.rand(1, 3, SIDE, SIDE))
    mlmodel = ct.convert(
        traced, convert_to="mlprogram",
        inputs=[ct.ImageType(name="image", shape=(1, 3, SIDE, SIDE), scale=1 / (STD * 255))],
        classifier_config=ct.ClassifierConfig(LABELS))
    mlmodel.save(str(out / "mobilenet_v2-mlprogram.mlpackage"))


class SmallCNN(torch.nn.Module):
    """Convolution, BatchNorm, ReLU, pooling and a dense layer on a 3 x 32 x 32 input."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        x = torch.relu(self.conv2(x))
        x = torch.flatten(torch.nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


def write_small_ml_programs(out: Path) -> None:
    """Two small ML Programs (FP32 and FP16 weights) and the weights they store, as .npy.

    The converter folds BatchNorm into conv1, so conv1's stored weight is not PyTorch's; conv2
    and fc are stored as they are (FP32 exactly, FP16 rounded to nearest). Written:
    `small_cnn-mlprogram-fp32.mlpackage`, `small_cnn-mlprogram-fp16.mlpackage` and
    `small_cnn-mlprogram.{conv2.weight,conv2.bias,fc.weight,fc.bias}.npy` (float32).
    """
    if (out / "small_cnn-mlprogram-fp16.mlpackage").exists():
        return
    torch.manual_seed(SEED)
    model = SmallCNN()
    generator = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        model.bn1.running_mean.copy_(torch.randn(8, generator=generator) * 0.2)
        model.bn1.running_var.copy_(torch.rand(8, generator=generator) * 1.5 + 0.5)
    model.eval()
    traced = torch.jit.trace(model, torch.rand(1, 3, 32, 32))
    for precision, compute in [("fp32", ct.precision.FLOAT32), ("fp16", ct.precision.FLOAT16)]:
        mlmodel = ct.convert(
            traced, convert_to="mlprogram", compute_precision=compute,
            inputs=[ct.TensorType(name="input", shape=(1, 3, 32, 32))],
            outputs=[ct.TensorType(name="logits")], minimum_deployment_target=ct.target.iOS16)
        mlmodel.save(str(out / f"small_cnn-mlprogram-{precision}.mlpackage"))
    for name in ["conv2.weight", "conv2.bias", "fc.weight", "fc.bias"]:
        tensor = model.state_dict()[name].detach().numpy().astype(np.float32)
        np.save(out / f"small_cnn-mlprogram.{name}.npy", tensor)
    print("small_cnn-mlprogram: FP32 and FP16 packages", file=sys.stderr)


def build_for_program(architecture: str) -> torch.nn.Module:
    """torchvision's architecture as `build` makes it, or a network of mlprogram_networks.py."""
    if architecture in PROGRAM_NETWORKS:
        return PROGRAM_NETWORKS[architecture](PROGRAM_SEEDS[architecture])
    return build(architecture)


def float_tensors(model: torch.nn.Module) -> list[tuple[str, torch.Tensor]]:
    """The model's float parameters and buffers of more than one element, by name."""
    return [(name, tensor) for name, tensor in chain(model.named_parameters(),
                                                     model.named_buffers())
            if tensor.is_floating_point() and tensor.numel() > 1]


def round_for_program(model: torch.nn.Module, precision: str) -> None:
    """Puts every float tensor on what the package will store, so it stores PyTorch's values.

    FP16 and the compressed precisions compute in FP16: every tensor is rounded to FP16 first.
    What coremltools compresses (more than 2048 elements: convolution and dense weights) is put
    on a palette of 16 or 64 FP16 values (palettized with exactly those, see own_palette), or
    per output channel on a symmetric int8 grid whose scale has a 4-bit mantissa:
    then every multiple q * scale (|q| <= 127) is an FP16 value, coremltools' own scale
    (max |w| / 127, computed in FP16) comes out as that scale exactly, and so do the codes.
    """
    for name, tensor in float_tensors(model):
        values = tensor.detach().numpy().astype(np.float32)
        if precision in ("pal4", "pal6", "int8") and values.size > COMPRESSION_THRESHOLD:
            if precision == "int8":
                values = int8_grid(values)
            else:
                values = fp16_palette_grid(values, 16 if precision == "pal4" else 64)
            if not np.array_equal(values.astype(np.float16).astype(np.float32), values):
                raise SystemExit(f"{name}: the {precision} grid is not made of FP16 values")
        if precision != "fp32":
            values = values.astype(np.float16).astype(np.float32)
        with torch.no_grad():
            tensor.copy_(torch.from_numpy(values))


def fp16_palette_grid(weight: np.ndarray, size: int) -> np.ndarray:
    """The tensor on at most `size` FP16 values (quantiles refined by k-means steps)."""
    flat = weight.reshape(-1).astype(np.float64)
    palette = np.quantile(flat, (np.arange(size) + 0.5) / size)
    for _ in range(6):
        nearest = np.searchsorted((palette[1:] + palette[:-1]) / 2, flat)
        sums = np.bincount(nearest, weights=flat, minlength=size)
        counts = np.bincount(nearest, minlength=size)
        palette = np.where(counts > 0, sums / np.maximum(counts, 1), palette)
    palette = np.unique(palette.astype(np.float16).astype(np.float64))
    nearest = np.searchsorted((palette[1:] + palette[:-1]) / 2, flat)
    return palette[nearest].astype(np.float32).reshape(weight.shape)


def int8_grid(weight: np.ndarray) -> np.ndarray:
    """Per output channel, q * scale with integer |q| <= 127 reached by the channel's largest."""
    flat = weight.reshape(weight.shape[0], -1).astype(np.float64)
    peak = np.abs(flat).max(axis=1)
    if np.any(peak == 0):
        raise SystemExit("an all-zero output channel has no int8 scale")
    mantissa, exponent = np.frexp(peak / 127)
    scale = np.ldexp(np.ceil(mantissa * 16) / 16, exponent)
    codes = np.clip(np.round(flat / scale[:, None]), -127, 127)
    rows = np.arange(flat.shape[0])
    largest = np.abs(flat).argmax(axis=1)
    codes[rows, largest] = np.sign(flat[rows, largest]) * 127
    return (codes * scale[:, None]).astype(np.float32).reshape(weight.shape)


def own_palette(size: int):
    """A LUT function for palettize_weights: the tensor's own values (already on a palette).

    This is what palettize_weights' mode "unique" does, but it calls np.unique on the FP16
    weights, and numpy 2.3's AVX-512 float16 sort leaves some arrays unsorted (on this machine
    kind, for sizes such as 5000 or 12288), so it finds duplicates and picks the wrong size.
    Here the values are compared as float64.
    """

    def lut_function(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        palette, indices = np.unique(weight.reshape(-1).astype(np.float64), return_inverse=True)
        if palette.size > size:
            raise SystemExit(f"a weight of {palette.size} values for a palette of {size}")
        lut = np.zeros(size, dtype=weight.dtype)
        lut[: palette.size] = palette
        return lut, indices.astype(np.uint8)

    return lut_function


def convert_program(model: torch.nn.Module, precision: str, layout: str, target: str | None,
                    sizes: tuple[int, int] | None):
    # Traced with autograd on and without the trace check: nn.MultiheadAttention then takes
    # its decomposed path (the check, run without autograd, would take the fused native op).
    traced = torch.jit.trace(model, torch.rand(1, 3, SIDE, SIDE), check_trace=False)
    order = MEAN if layout == "RGB" else MEAN[::-1]
    side = SIDE if sizes is None else ct.RangeDim(lower_bound=sizes[0], upper_bound=sizes[1],
                                                  default=SIDE)
    image = ct.ImageType(
        name="image", shape=(1, 3, side, side), scale=1 / (STD * 255),
        bias=[-mean / STD for mean in order],
        color_layout=ct.colorlayout.RGB if layout == "RGB" else ct.colorlayout.BGR)
    mlmodel = ct.convert(
        traced, convert_to="mlprogram", inputs=[image],
        classifier_config=ct.ClassifierConfig(LABELS),
        compute_precision=ct.precision.FLOAT32 if precision == "fp32" else ct.precision.FLOAT16,
        minimum_deployment_target=getattr(ct.target, target) if target else None)
    optimize = ct.optimize.coreml
    if precision in ("pal4", "pal6"):
        config = optimize.OptimizationConfig(global_config=optimize.OpPalettizerConfig(
            mode="custom", lut_function=own_palette(16 if precision == "pal4" else 64),
            weight_threshold=COMPRESSION_THRESHOLD))
        compress = optimize.palettize_weights
    elif precision == "int8":
        config = optimize.OptimizationConfig(global_config=optimize.OpLinearQuantizerConfig(
            mode="linear_symmetric", dtype="int8", granularity="per_channel",
            weight_threshold=COMPRESSION_THRESHOLD))
        compress = optimize.linear_quantize_weights
    else:
        return mlmodel
    with contextlib.redirect_stderr(io.StringIO()):  # the pass's progress bar
        return compress(mlmodel, config)


def check_compression(name: str, program, precision: str) -> None:
    """Every compressed constant is in the form the precision and target call for."""
    if precision not in ("pal4", "pal6", "int8"):
        if program.compressed:
            raise SystemExit(f"{name}: {len(program.compressed)} compressed constants")
        return
    form = COMPRESSED_FORMS[(precision, program.deployment_target)]
    if not program.compressed:
        raise SystemExit(f"{name}: nothing is compressed")
    for output, (kind, parameters) in program.compressed.items():
        if kind != form:
            raise SystemExit(f"{name}: {output} is stored as {kind}, expected {form}")
        if precision == "pal4" and parameters["lut"][1] != [16]:
            raise SystemExit(f"{name}: {output} has a palette of {parameters['lut'][1]}")
        if precision == "pal6" and parameters["indices"][0] != "UINT6":
            raise SystemExit(f"{name}: {output} has {parameters['indices'][0]} indices")


def check_program_weights(name: str, program, model: torch.nn.Module) -> None:
    """Every float tensor of the model is stored, exactly, and every layer weight is the model's.

    A tensor may be stored transposed (a matmul's constant operand becomes a dense layer's
    weight). The model's tensors are then set to the stored values, so the reference runs what
    the package holds (the same values, as the checks are exact).
    """
    stored = {key: np.asarray(value, np.float64) for key, value in program.values.items()
              if value is not None and value.dtype.kind == "f" and value.size > 1}
    matched = set()
    for tensor_name, tensor in float_tensors(model):
        values = tensor.detach().numpy().astype(np.float64)
        found = None
        for key, candidate in stored.items():
            if candidate.size != values.size:
                continue
            if np.array_equal(candidate.reshape(values.shape), values):
                found = key, candidate.reshape(values.shape)
            elif (values.ndim == 2 and candidate.shape == values.shape[::-1]
                  and np.array_equal(candidate.T, values)):
                found = key, candidate.T
            if found:
                break
        if found is None:
            nearest = min((float(np.max(np.abs(candidate.reshape(-1) - values.reshape(-1))))
                           for candidate in stored.values() if candidate.size == values.size),
                          default=None)
            raise SystemExit(f"{name}: {tensor_name} {tuple(values.shape)} is not stored "
                             f"(the nearest of its size differs by {nearest})")
        matched.add(found[0])
        with torch.no_grad():
            tensor.copy_(torch.from_numpy(found[1]))
    for op in program.operations:
        if op.type == "const" or op.type.startswith("constexpr_"):
            continue
        for key, binding in op.inputs.items():
            for argument in binding.arguments:
                value = stored.get(argument.name)
                # Zeros are the bias a converter gives a dense layer it makes from a matmul.
                if (value is not None and value.size > 3 and argument.name not in matched
                        and np.any(value != 0)):
                    raise SystemExit(f"{name}: {op.type}'s {key} {argument.name} "
                                     f"{value.shape} is none of the model's tensors")


def program_preprocessing(program) -> tuple[np.float32, np.ndarray]:
    """The image input's scale and per-channel bias (model colour order), as stored."""
    image = program.spec.description.input[0].name
    scaling = program.consumers(image)
    if len(scaling) != 1 or scaling[0].type != "mul":
        raise SystemExit(f"the image input feeds {[op.type for op in scaling]}, not one mul")
    biasing = program.consumers(scaling[0].outputs[0].name)
    if len(biasing) != 1 or biasing[0].type != "add":
        raise SystemExit(f"the scaled image feeds {[op.type for op in biasing]}, not one add")
    scale = program.values[scaling[0].inputs["y"].arguments[0].name]
    bias = program.values[biasing[0].inputs["y"].arguments[0].name]
    if scale.size != 1 or bias.size != 3:
        raise SystemExit(f"image scale of shape {scale.shape} and bias of shape {bias.shape}")
    return np.float32(scale.reshape(())), bias.astype(np.float32).reshape(3)


def program_reference(name: str, model: torch.nn.Module, program,
                      pixels: np.ndarray) -> np.ndarray:
    """The model in float64 on the pixels, with the package's own preprocessing values."""
    scale, bias = program_preprocessing(program)
    colours = pixels.astype(np.float64)
    if program.spec.description.input[0].type.imageType.colorSpace == (
            ct.proto.FeatureTypes_pb2.ImageFeatureType.BGR):
        colours = colours[..., ::-1]
    inputs = colours * np.float64(scale) + bias.astype(np.float64)
    tensor = torch.from_numpy(np.ascontiguousarray(inputs.transpose(0, 3, 1, 2)))
    model = model.double()
    rows, margins = [], []
    with torch.no_grad():
        for index in range(len(tensor)):
            rows.append(model(tensor[index:index + 1]).numpy())
            margins += list(getattr(model, "margins", {}).items())
    outputs = np.concatenate(rows).astype(np.float32)
    for what, margin in margins:
        if margin < 1e-3:
            raise SystemExit(f"{name}: a near-tie ({margin:.2g}) at {what}, choose another seed")
    if not np.all(np.isfinite(outputs)):
        raise SystemExit(f"{name}: the reference gives non-finite logits")
    if np.any(np.ptp(outputs, axis=1) < 1e-2) or np.any(np.std(outputs, axis=1) < 1e-3):
        raise SystemExit(f"{name}: degenerate logits (spread {np.ptp(outputs, axis=1)})")
    return outputs


def write_onnx_twin(path: Path, model: torch.nn.Module) -> None:
    """The model (float32, normalized NCHW input) as ONNX, holding exactly the model's weights."""
    import onnx
    from onnx import numpy_helper

    torch.onnx.export(model, (torch.zeros(1, 3, SIDE, SIDE),), str(path), dynamo=False,
                      opset_version=13, input_names=["input"], output_names=["logits"])
    graph = onnx.load(str(path))
    onnx.checker.check_model(graph)
    initializers = [numpy_helper.to_array(tensor).reshape(-1)
                    for tensor in graph.graph.initializer]
    for tensor_name, tensor in float_tensors(model):
        values = tensor.detach().numpy().reshape(-1)
        if not any(i.size == values.size and np.array_equal(i, values) for i in initializers):
            raise SystemExit(f"{path.name}: {tensor_name} is not one of the initializers")


def package_size(path: Path) -> int:
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


def write_program_fixture(out: Path, name: str, architecture: str, precision: str, layout: str,
                          target: str | None, sizes: tuple[int, int] | None,
                          pixels: np.ndarray, photos: list[Path]) -> None:
    """An ML Program fixture: NAME.mlpackage, .pixels.npy, .outputs.npy, then NAME.json."""
    if (out / f"{name}.json").exists():  # written last: the fixture is complete
        return
    started = time.monotonic()
    model = build_for_program(architecture)
    round_for_program(model, precision)
    mlmodel = convert_program(model, precision, layout, target, sizes)
    package = out / f"{name}.mlpackage"
    if package.exists():
        shutil.rmtree(package)
    mlmodel.save(str(package))
    program = read_program(package)
    if target and program.deployment_target != target:
        raise SystemExit(f"{name}: deployment target {program.deployment_target}, not {target}")
    check_compression(name, program, precision)
    check_program_weights(name, program, model)
    if name == ONNX_TWIN:
        write_onnx_twin(out / f"{name}.onnx", model)
    outputs = program_reference(name, model, program, pixels)
    scale, bias = program_preprocessing(program)
    colours = dict(zip(layout.lower(), bias.tolist()))
    np.save(out / f"{name}.pixels.npy", pixels)
    np.save(out / f"{name}.outputs.npy", outputs)
    top5 = [[LABELS[i] for i in np.argsort(-row, kind="stable")[:5]] for row in outputs]
    description = {
        "format": "mlprogram", "architecture": architecture, "precision": precision,
        "color_layout": layout, "channel_scale": float(scale),
        "bias": {colour: colours[colour[0]] for colour in ("red", "green", "blue")},
        "probabilities_output": program.spec.description.predictedProbabilitiesName,
        "minimum_deployment_target": program.deployment_target, "input_side": SIDE,
    }
    if sizes is not None:
        description["input_side_range"] = list(sizes)
    description |= {"operations": program.operation_types,
                    "photos": [path.name for path in photos], "top5": top5}
    (out / f"{name}.json").write_text(json.dumps(description, indent=2) + "\n")
    best = -np.sort(-outputs, axis=1)[:, :6]
    gap = np.min((best[:, :-1] - best[:, 1:]) / np.ptp(outputs, axis=1, keepdims=True))
    print(f"{name}: {package_size(package) // 1024} KiB, {len(program.operation_types)} op "
          f"types, logits {outputs.min():.3f} to {outputs.max():.3f} (closest of the six best: "
          f"{gap:.1e} of the spread), {time.monotonic() - started:.1f} s", file=sys.stderr)


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    photos = [Path(path) for path in sys.argv[2:]]
    pixels = load_pixels(photos)
    # The crops themselves, lossless: classifying one runs the model on exactly these pixels.
    (out / "photos").mkdir(exist_ok=True)
    for path, crop in zip(photos, pixels):
        Image.fromarray(crop).save(out / "photos" / f"{path.stem}.png")
    for name, architecture, precision, layout in FIXTURES:
        write_fixture(out, name, architecture, precision, layout, pixels, photos)
    for name, network, layout, seed in LAYER_FIXTURES:
        write_layer_fixture(out, name, network, layout, seed, pixels, photos)
    write_create_ml_pipeline(out)
    if not (out / "mobilenet_v2-mlprogram.mlpackage").exists():
        write_ml_program(out)
    write_small_ml_programs(out)
    started = time.monotonic()
    for name, architecture, precision, layout, target, sizes in ML_PROGRAM_FIXTURES:
        write_program_fixture(out, name, architecture, precision, layout, target, sizes, pixels,
                              photos)
    print(f"ML Program fixtures: {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
