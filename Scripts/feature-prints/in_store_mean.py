#!/usr/bin/env python3
"""Writes the mean feature print of in-store photos that FeaturePrinter subtracts from a query.

The photos are the Grocery Store Dataset's training split (../shared/grocery/train, MIT; no labels
are read): each is prepared as the default classifier prepares a photo (the centered 224/256
square, antialiased resize to 224, (level - 127) / 128), run through EfficientNet-Lite0 up to
its pooled features with ONNX Runtime, L2-normalized, and averaged. The result goes to
Sources/ClassifierKit/Resources/in-store-photo-mean.txt (one value per line); run
Scripts/embed-resources.py afterwards.

    .cache/bench-venv/bin/python Scripts/feature-prints/in_store_mean.py ../shared
"""

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from PIL import Image, ImageOps

ROOT = Path(__file__).resolve().parent.parent.parent


def pooled_session(model_path):
    model = onnx.load(model_path)
    pool = next(n for n in model.graph.node if n.op_type == "GlobalAveragePool")
    model.graph.output.append(onnx.helper.make_tensor_value_info(pool.output[0], onnx.TensorProto.FLOAT, None))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"]), pool.output[0]


def prepared(path):
    image = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
    width, height = image.size
    side = int(224 / 256 * min(width, height))
    left, top = (width - side + 1) // 2, (height - side + 1) // 2
    image = image.crop((left, top, left + side, top + side)).resize((224, 224), Image.BILINEAR)
    return ((np.asarray(image, dtype=np.float32) - 127.0) / 128.0).transpose(2, 0, 1)


def main():
    shared = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT.parent / "shared")
    session, pooled = pooled_session(shared / "models/onnx/efficientnet-lite0.onnx")
    lines = [line.split(",")[0].strip() for line in (shared / "grocery/train.txt").read_text().splitlines() if line.strip()]
    total = np.zeros(1280, dtype=np.float64)
    for start in range(0, len(lines), 16):
        batch = np.stack([prepared(shared / "grocery" / line) for line in lines[start:start + 16]])
        features = session.run([pooled], {"input": batch})[0].reshape(len(batch), -1).astype(np.float64)
        total += (features / np.linalg.norm(features, axis=1, keepdims=True)).sum(0)
    mean = total / len(lines)
    target = ROOT / "Sources/ClassifierKit/Resources/in-store-photo-mean.txt"
    target.write_text("".join(f"{value:.7g}\n" for value in mean))
    print(f"{target}: mean of {len(lines)} photos, norm {np.linalg.norm(mean):.4f}")


if __name__ == "__main__":
    main()
