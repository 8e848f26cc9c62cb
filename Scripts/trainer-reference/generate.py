"""Reference fits for the trainer: scikit-learn's LogisticRegression on real image features.

Features: EfficientNet-Lite0's pooled head (the input of its final Gemm), computed by ONNX
Runtime from ../shared/models/onnx/efficientnet-lite0.onnx on the exact preprocessed inputs of
the twelve reference photos, each in eight variants (the photo, its mirror, shifted crops and
brightness changes): twelve classes of eight samples. Variants 0-5 of each photo train, 6 and 7
are held out.

Written into the output folder:

    features.npy        float32 [96, 1280]
    labels.npy          float32 [96]: the class index (the photo's place in sorted order)
    train.npy           float32 [96]: 1 for a training sample, 0 for a held-out one
    cases.json          per case: its name, C, class_weight and the training mask file
    CASE.coef.npy       float32 [12, 1280]  (scikit-learn's coef_)
    CASE.intercept.npy  float32 [12]
    CASE.test.npy       float32 [24, 12]: predict_proba on the held-out samples

scikit-learn minimizes C * sum(w_i * cross_entropy_i) + |W|^2 / 2 (the intercept is not
penalized); the fits run to tol 1e-10, so each is the unique optimum, not one solver's stop.

Usage: generate.py MODELS_DIR OUTPUT_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from sklearn.linear_model import LogisticRegression

VARIANTS = 8
HELD_OUT = (6, 7)


def variants(image: np.ndarray) -> list[np.ndarray]:
    """The photo's tensor [3, 224, 224] and seven deterministic variations of it."""
    mirrored = image[:, :, ::-1]
    shifted = lambda x, dy, dx: np.roll(np.roll(x, dy, axis=1), dx, axis=2)  # noqa: E731
    return [image, mirrored, shifted(image, 12, 0), shifted(image, 0, -12), image * 0.8,
            mirrored * 1.15, shifted(mirrored, -10, 8), shifted(image, 8, 10) * 0.9]


def features(model_path: Path, inputs: np.ndarray) -> np.ndarray:
    model = onnx.load(str(model_path))
    gemm = [node for node in model.graph.node if node.op_type == "Gemm"][-1]
    model.graph.output.append(onnx.helper.make_empty_tensor_value_info(gemm.input[0]))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    rows = [session.run([gemm.input[0]], {name: inputs[i:i + 8]})[0]
            for i in range(0, len(inputs), 8)]
    return np.concatenate(rows).astype(np.float32)


def derived_photos(models: Path) -> set[str]:
    """The stems of photos made from another one (the rebuilt tree's enlarged JPEG): the same
    picture under two labels would be a class no classifier can learn."""
    manifest = json.loads((models / "ref" / "manifest.json").read_text())
    return {stem for stem, entry in manifest["photos"].items() if "derived_from" in entry}


def main() -> int:
    models, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    references = sorted((models / "ref/efficientnet-lite0").glob("*.input.npy"))
    derived = derived_photos(models)
    photos = [path for path in references
              if not path.name.startswith("batch.") and path.name.split(".")[0] not in derived]
    inputs, labels, train = [], [], []
    for label, path in enumerate(photos):
        image = np.load(path)[0]
        for index, variant in enumerate(variants(image)):
            inputs.append(np.ascontiguousarray(variant, dtype=np.float32))
            labels.append(label)
            train.append(0 if index in HELD_OUT else 1)
    x = features(models / "onnx/efficientnet-lite0.onnx", np.stack(inputs))
    y = np.asarray(labels)
    mask = np.asarray(train, dtype=bool)
    np.save(out / "features.npy", x)
    np.save(out / "labels.npy", y.astype(np.float32))
    np.save(out / "train.npy", mask.astype(np.float32))
    # Unbalanced: the first four classes keep two training samples each.
    unbalanced = mask.copy()
    for label in range(4):
        rows = np.where((y == label) & mask)[0]
        unbalanced[rows[2:]] = False
    np.save(out / "train-unbalanced.npy", unbalanced.astype(np.float32))
    cases = [
        {"name": "c1", "C": 1.0, "balanced": False, "train": "train.npy"},
        {"name": "c0.05", "C": 0.05, "balanced": False, "train": "train.npy"},
        {"name": "balanced", "C": 1.0, "balanced": True, "train": "train-unbalanced.npy"},
    ]
    for case in cases:
        rows = np.load(out / case["train"]).astype(bool)
        fit = LogisticRegression(C=case["C"], tol=1e-10, max_iter=100_000,
                                 class_weight="balanced" if case["balanced"] else None)
        fit.fit(x[rows].astype(np.float64), y[rows])
        np.save(out / f"{case['name']}.coef.npy", fit.coef_.astype(np.float32))
        np.save(out / f"{case['name']}.intercept.npy", fit.intercept_.astype(np.float32))
        held_out = ~mask
        probabilities = fit.predict_proba(x[held_out].astype(np.float64)).astype(np.float32)
        np.save(out / f"{case['name']}.test.npy", probabilities)
        accuracy = float((probabilities.argmax(axis=1) == y[held_out]).mean())
        case["held_out_accuracy"] = accuracy
        print(f"trainer-reference {case['name']}: {fit.n_iter_[0]} iterations, "
              f"held-out accuracy {accuracy:.3f}", file=sys.stderr)
    (out / "cases.json").write_text(json.dumps(cases, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
