"""Build Core ML (.mlmodel) test fixtures with coremltools, and PyTorch's outputs for them.

Every fixture is a torchvision classifier with seeded random weights (nothing is downloaded) and
non-trivial BatchNorm statistics, converted with `ct.convert(..., convert_to="neuralnetwork")`,
an image input (scale and per-colour biases, RGB or BGR) and a classifier config. Written per
fixture into the output folder:

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

Fixtures already written (their .json exists) are kept.

Usage: generate.py OUTPUT_DIR PHOTO...
"""

from __future__ import annotations

import json
import sys
import warnings
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

# name, hand-built network (layers.py), colour layout, seed (one without near-tied scores)
LAYER_FIXTURES = [
    ("layers_rank5-fp32-rgb", "layers_rank5", "RGB", SEED + 15),
    ("layers_nd-fp32-bgr", "layers_nd", "BGR", SEED + 4),
    ("layers_reduce-fp32-rgb", "layers_reduce", "RGB", SEED + 54),
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
