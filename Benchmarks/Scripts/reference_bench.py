"""Times the reference tools on the same inputs and cases as `swift run -c release Benchmarks`.

Prints tab-separated rows `name, median_ms, min_ms, iterations, tool` so that `ratios.py` can pair
them with ours by name and compare each of our cases with the FASTEST reference recipe for it.

Preprocessing recipes (all produce the EfficientNet-Lite input: float32 [1, 3, 224, 224], RGB,
EXIF orientation applied, center crop of 224/256 of the shorter side, (x - 127) / 128):
- exact (`ImagePipeline.preprocess.*`): full-size decode with Pillow (+ BILINEAR, the same
  antialiased filter as ours), OpenCV `imread` (+ INTER_AREA) and TurboJPEG (+ OpenCV INTER_AREA);
- fast (`ImagePipeline.preprocessFast.*`): DCT-domain reduced decode at the reduction our
  `ModelInputSpec.jpegScale(for:)` picks (the strongest of 1/2, 1/4, 1/8 keeping the crop at
  least 224): OpenCV `IMREAD_REDUCED_COLOR_d` (+ INTER_AREA or INTER_LINEAR), TurboJPEG
  `scaling_factor=(1, d)` (+ INTER_AREA), Pillow `draft()` (+ BILINEAR).
End to end (`ClassifierKit.classify.12MP.threads*`): ONNX Runtime on the Lite0 ONNX at batch 1
plus the fastest fast recipe, timed together from the file path to the logits.
The trainer's feature extraction (`ClassifierKit.features.bench1000.*`, per photo, on the 64 photos
`bench_photos` picks from .cache/trainer-reference/bench-1000): `prepare` times each fast recipe
(the reduction `reduction` picks per photo, worked out inside the timing as ours does), and
`batch8.threads2` the fastest of them with ONNX Runtime on the Lite0 ONNX cut at the pooled
features (the classifier Gemm's input; `features_model`), 8 photos per run at 2 threads.
Before timing, every recipe's tensor is compared with Pillow's exact one (printed on stderr), so a
recipe that ignored the orientation or cropped elsewhere would show.
"""

import argparse
import os
import statistics
import sys
from pathlib import Path

import cv2
import numpy as np
import pillow_heif
import onnxruntime as ort
from PIL import Image, ImageOps
from turbojpeg import TJPF_RGB, TurboJPEG

from onnxruntime_bench import open_session
from pillow_bench import measure

SIZE = 224
cv2.setNumThreads(1)
TURBO = TurboJPEG()


def crop_box(width, height):
    side = int(SIZE / (SIZE + 32) * min(width, height))
    top = ((height - side) + 1) // 2
    left = ((width - side) + 1) // 2
    return left, top, side


def to_tensor(rgb):
    """HWC uint8 or float RGB of SIZE x SIZE -> normalized NCHW float32."""
    array = (np.asarray(rgb, dtype=np.float32) - 127.0) / 128.0
    return np.ascontiguousarray(array.transpose(2, 0, 1)[None])


def reduction(path):
    """The DCT reduction ours picks: the strongest d with the crop of the reduced image >= SIZE."""
    with Image.open(path) as image:
        if image.format != "JPEG":
            return 1
        width, height = image.size
    side = int(SIZE / (SIZE + 32) * min(width, height))
    return next((d for d in (8, 4, 2) if side >= SIZE * d), 1)


def orientation(data):
    """The EXIF orientation of a JPEG held in memory (1 when absent)."""
    from io import BytesIO

    with Image.open(BytesIO(data)) as image:
        return image.getexif().get(0x0112, 1)


def oriented(array, value):
    """Applies EXIF orientation `value` to an HWC array (the table of Docs/Design.md section 1)."""
    turns = {
        2: lambda a: a[:, ::-1],
        3: lambda a: a[::-1, ::-1],
        4: lambda a: a[::-1],
        5: lambda a: a.transpose(1, 0, 2),
        6: lambda a: np.rot90(a, -1),
        7: lambda a: a[::-1, ::-1].transpose(1, 0, 2),
        8: lambda a: np.rot90(a, 1),
    }
    return turns.get(value, lambda a: a)(array)


def cv2_finish(rgb, interpolation):
    height, width = rgb.shape[:2]
    left, top, side = crop_box(width, height)
    crop = rgb[top:top + side, left:left + side]
    return to_tensor(cv2.resize(crop, (SIZE, SIZE), interpolation=interpolation))


# Recipes: path -> tensor.

def pillow_exact(path):
    with Image.open(path) as image:
        image = ImageOps.exif_transpose(image.convert("RGB") if image.mode != "RGB" else image)
        left, top, side = crop_box(*image.size)
        return to_tensor(image.resize((SIZE, SIZE), Image.BILINEAR, box=(left, top, left + side, top + side)))


def pillow_draft(path):
    with Image.open(path) as image:
        # draft() picks the strongest JPEG reduction keeping both sides >= the requested size;
        # a shorter side of SIZE + 32 keeps the crop >= SIZE, the rule ours uses.
        image.draft("RGB", (SIZE + 32, SIZE + 32))
        image = ImageOps.exif_transpose(image)
        left, top, side = crop_box(*image.size)
        return to_tensor(image.resize((SIZE, SIZE), Image.BILINEAR, box=(left, top, left + side, top + side)))


def opencv_exact(path):
    bgr = cv2.imread(str(path), cv2.IMREAD_COLOR)
    return cv2_finish(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), cv2.INTER_AREA)


def opencv_reduced(interpolation):
    flags = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
             8: cv2.IMREAD_REDUCED_COLOR_8}

    def recipe(path, d):
        bgr = cv2.imread(str(path), flags[d])
        return cv2_finish(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), interpolation)

    return recipe


def turbojpeg_decode(path, d):
    data = Path(path).read_bytes()
    rgb = TURBO.decode(data, pixel_format=TJPF_RGB, scaling_factor=(1, d))
    return cv2_finish(np.ascontiguousarray(oriented(rgb, orientation(data))), cv2.INTER_AREA)


BENCH_COUNT, BENCH_STRIDE = 64, 15


def bench_photos(directory, count=BENCH_COUNT, stride=BENCH_STRIDE):
    """The photos of the feature cases, as ClassifierKitBenchmarks.benchPhotos() picks them: every
    `stride`-th JPEG of `directory/<label>/` in sorted path order, `count` of them (None when the
    set is absent or smaller)."""
    if not directory.is_dir():
        return None
    names = sorted(f"{path.parent.name}/{path.name}" for path in directory.glob("*/*.jpg"))
    picked = names[::stride][:count]
    return [directory / name for name in picked] if len(picked) == count else None


def features_model(model):
    """The Lite0 ONNX cut at its pooled features: the last Gemm (the ImageNet classifier) and its
    weights removed, the Gemm's input (`[N, 1280]`) as the only output; serialized bytes."""
    import onnx

    graph = onnx.load(str(model))
    gemm = [node for node in graph.graph.node if node.op_type == "Gemm"][-1]
    graph.graph.node.remove(gemm)
    for initializer in [i for i in graph.graph.initializer if i.name in gemm.input[1:]]:
        graph.graph.initializer.remove(initializer)
    del graph.graph.output[:]
    graph.graph.output.append(onnx.helper.make_tensor_value_info(
        gemm.input[0], onnx.TensorProto.FLOAT, ["N", 1280]))
    return graph.SerializeToString()


def fast_path_recipes():
    """The fast recipes as path -> tensor, each picking its reduction from the file's header."""
    area, linear = opencv_reduced(cv2.INTER_AREA), opencv_reduced(cv2.INTER_LINEAR)
    return {
        "opencv-reduced-area": lambda path: area(path, reduction(path)),
        "opencv-reduced-linear": lambda path: linear(path, reduction(path)),
        "turbojpeg-reduced": lambda path: turbojpeg_decode(path, reduction(path)),
        "pillow-draft": pillow_draft,
    }


def feature_cases(arguments):
    """Rows `ClassifierKit.features.bench1000.prepare` (each fast recipe) and
    `ClassifierKit.features.bench1000.batch8.threads2` (ONNX Runtime + the fastest), per photo."""
    prepare_name = "ClassifierKit.features.bench1000.prepare"
    features_name = "ClassifierKit.features.bench1000.batch8.threads2"
    if arguments.filter not in prepare_name and arguments.filter not in features_name:
        return
    photos = bench_photos(arguments.bench_photos)
    if photos is None:
        print(f"# {arguments.bench_photos} is absent or holds too few JPEGs for {BENCH_COUNT} taken every "
              f"{BENCH_STRIDE}th (Scripts/trainer-reference/generate.sh); feature reference skipped",
              file=sys.stderr)
        return
    recipes = fast_path_recipes()
    for tool, recipe in recipes.items():
        difference = statistics.mean(
            float(np.abs(recipe(path) - pillow_exact(path)).mean()) for path in photos)
        print(f"# {prepare_name} {tool}: mean |x - pillow exact| {difference:.4f} over {len(photos)} photos",
              file=sys.stderr)
    timed = []
    for tool, recipe in recipes.items():
        def prepare_all(recipe=recipe):
            for path in photos:
                recipe(path)

        seconds = arguments.min_seconds if arguments.filter in prepare_name else 0.3
        median, minimum, iterations = measure(prepare_all, minimum_seconds=seconds)
        timed.append((median, tool))
        if arguments.filter in prepare_name:
            print(f"{prepare_name}\t{median / len(photos):.3f}\t{minimum / len(photos):.3f}\t"
                  f"{iterations}\t{tool}", flush=True)
    if arguments.filter not in features_name:
        return
    model = arguments.models / "onnx" / "efficientnet-lite0.onnx"
    if not model.exists():
        print(f"# {model} is absent; feature reference skipped", file=sys.stderr)
        return
    _, tool = min(timed)
    recipe = recipes[tool]
    session = open_session(features_model(model), 2)
    input_name = session.get_inputs()[0].name

    def extract():
        rows = []
        for start in range(0, len(photos), 8):
            batch = np.concatenate([recipe(path) for path in photos[start:start + 8]])
            rows.append(session.run(None, {input_name: batch})[0])
        return np.concatenate(rows)

    assert extract().shape == (len(photos), 1280)
    median, minimum, iterations = measure(extract, minimum_seconds=arguments.min_seconds)
    print(f"{features_name}\t{median / len(photos):.3f}\t{minimum / len(photos):.3f}\t{iterations}\t"
          f"onnxruntime+{tool}", flush=True)


def main():
    root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--inputs", type=Path, required=True, help="folder made by Benchmarks --make-inputs")
    parser.add_argument("--models", type=Path, default=root.parent / "shared" / "models")
    parser.add_argument("--bench-photos", type=Path,
                        default=root / ".cache" / "trainer-reference" / "bench-1000")
    parser.add_argument("--filter", default="", help="run only cases whose name contains this")
    parser.add_argument("--min-seconds", type=float, default=1.0)
    arguments = parser.parse_args()
    import PIL

    print(f"# Pillow {PIL.__version__}, OpenCV {cv2.__version__}, onnxruntime {ort.__version__}, "
          f"NumPy {np.__version__}", file=sys.stderr)
    inputs = arguments.inputs
    jpeg12, jpeg1080, png1 = inputs / "photo-12mp.jpg", inputs / "photo-1080p.jpg", inputs / "photo-1mp.png"
    area, linear = opencv_reduced(cv2.INTER_AREA), opencv_reduced(cv2.INTER_LINEAR)

    def fast_recipes(path):
        d = reduction(path)
        return {
            f"opencv-reduced{d}-area": lambda: area(path, d),
            f"opencv-reduced{d}-linear": lambda: linear(path, d),
            f"turbojpeg-1/{d}": lambda: turbojpeg_decode(path, d),
            "pillow-draft": lambda: pillow_draft(path),
        }

    def exact_recipes(path):
        recipes = {"pillow": lambda: pillow_exact(path), "opencv": lambda: opencv_exact(path)}
        if path.suffix == ".jpg":
            recipes["turbojpeg"] = lambda: turbojpeg_decode(path, 1)
        return recipes

    # The photo as an iPhone (HEIC) and the web (WebP) send it: pillow-heif and Pillow decode,
    # then Pillow's exact recipe (pillow-heif applies the HEIC's rotation box itself).
    pillow_heif.register_heif_opener()
    phone = [(name, inputs / file, {tool: (lambda p=inputs / file: pillow_exact(p))})
             for name, file, tool in [
                 ("ImagePipeline.preprocess.12MP-HEIC", "photo-12mp.heic", "pillow-heif"),
                 ("ImagePipeline.preprocess.12MP-HEIC-iPhone", "photo-12mp-iphone.heic", "pillow-heif"),
                 ("ImagePipeline.preprocess.12MP-WebP", "photo-12mp.webp", "pillow")]
             if (inputs / file).exists()]
    cases = phone + [
        ("ImagePipeline.preprocess.12MP", jpeg12, exact_recipes(jpeg12)),
        ("ImagePipeline.preprocess.1080p", jpeg1080, exact_recipes(jpeg1080)),
        ("ImagePipeline.preprocess.1MP-PNG", png1, exact_recipes(png1)),
        ("ImagePipeline.preprocessFast.12MP", jpeg12, fast_recipes(jpeg12)),
        ("ImagePipeline.preprocessFast.1080p", jpeg1080, fast_recipes(jpeg1080)),
    ]
    print("name\tmedian_ms\tmin_ms\titerations\ttool")
    fastest_12mp = None
    for name, path, recipes in cases:
        reference = pillow_exact(path)
        for tool, body in recipes.items():
            tensor = body()
            assert tensor.shape == (1, 3, SIZE, SIZE) and tensor.dtype == np.float32, (tool, tensor.shape)
            difference = float(np.abs(tensor - reference).mean())
            print(f"# {name} {tool}: mean |x - pillow exact| {difference:.4f}", file=sys.stderr)
            if arguments.filter not in name:
                continue
            median, minimum, iterations = measure(body, minimum_seconds=arguments.min_seconds)
            print(f"{name}\t{median:.3f}\t{minimum:.3f}\t{iterations}\t{tool}", flush=True)
            if name == "ImagePipeline.preprocessFast.12MP" and (fastest_12mp is None or median < fastest_12mp[0]):
                fastest_12mp = (median, tool, body)

    feature_cases(arguments)
    model = arguments.models / "onnx" / "efficientnet-lite0.onnx"
    if arguments.filter not in "ClassifierKit.classify.12MP.threads1 ClassifierKit.classify.12MP.threads2":
        return
    if not model.exists():
        print(f"# {model} is absent; end-to-end reference skipped", file=sys.stderr)
        return
    if fastest_12mp is None:
        recipes = fast_recipes(jpeg12)
        timed = [(measure(body, minimum_seconds=0.3)[0], tool, body) for tool, body in recipes.items()]
        fastest_12mp = min(timed, key=lambda row: row[0])
    _, recipe_name, recipe = fastest_12mp
    for threads in (1, 2):
        name = f"ClassifierKit.classify.12MP.threads{threads}"
        if arguments.filter not in name:
            continue
        session = open_session(str(model), threads)
        input_name = session.get_inputs()[0].name

        def classify():
            logits = session.run(None, {input_name: recipe()})[0]
            return np.argsort(-logits[0])[:5]

        median, minimum, iterations = measure(classify, minimum_seconds=arguments.min_seconds)
        print(f"{name}\t{median:.3f}\t{minimum:.3f}\t{iterations}\tonnxruntime+{recipe_name}", flush=True)


if __name__ == "__main__":
    main()
