"""Times Pillow (+ NumPy) on the same inputs and cases as `swift run -c release Benchmarks`.

Prints the same tab-separated table as the Swift benchmarks (name, median_ms, min_ms,
iterations) so that `Benchmarks/compare` can pair the rows by name.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

SIZE = 224


def measure(body, minimum_iterations=5, minimum_seconds=1.0, maximum_iterations=1000):
    body()
    samples = []
    start = time.perf_counter()
    while len(samples) < maximum_iterations:
        t0 = time.perf_counter()
        body()
        samples.append((time.perf_counter() - t0) * 1000)
        if len(samples) >= minimum_iterations and time.perf_counter() - start >= minimum_seconds:
            break
    samples.sort()
    return samples[len(samples) // 2], samples[0], len(samples)


def decode(path):
    with Image.open(path) as image:
        image.load()
        return image.convert("RGB") if image.mode != "RGB" else image.copy()


def efficientnet_input(image):
    """DESIGN section 4: center crop S/(S+32) of the short side, bilinear (antialiased), (x-127)/128."""
    width, height = image.size
    side = int(SIZE / (SIZE + 32) * min(width, height))
    top = ((height - side) + 1) // 2
    left = ((width - side) + 1) // 2
    crop = image.crop((left, top, left + side, top + side)).resize((SIZE, SIZE), Image.BILINEAR)
    array = (np.asarray(crop, dtype=np.float32) - 127.0) / 128.0
    return np.ascontiguousarray(array.transpose(2, 0, 1)[None])


def preprocess(path):
    return efficientnet_input(ImageOps.exif_transpose(decode(path)))


def cases(inputs):
    jpeg12 = inputs / "photo-12mp.jpg"
    jpeg1080 = inputs / "photo-1080p.jpg"
    png1 = inputs / "photo-1mp.png"
    decoded12 = decode(jpeg12)
    upright12 = ImageOps.exif_transpose(decoded12)
    return [
        ("ImagePipeline.decodeJPEG.12MP", lambda: decode(jpeg12)),
        ("ImagePipeline.decodeJPEG.1080p", lambda: decode(jpeg1080)),
        ("ImagePipeline.decodePNG.1MP", lambda: decode(png1)),
        ("ImagePipeline.orient.12MP", lambda: ImageOps.exif_transpose(decoded12)),
        ("ImagePipeline.resize.12MP", lambda: upright12.resize((SIZE, SIZE), Image.BILINEAR)),
        ("ImagePipeline.preprocess.12MP", lambda: preprocess(jpeg12)),
        ("ImagePipeline.preprocess.1080p", lambda: preprocess(jpeg1080)),
        ("ImagePipeline.preprocess.1MP-PNG", lambda: preprocess(png1)),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--inputs", type=Path, required=True, help="folder made by Benchmarks --make-inputs")
    parser.add_argument("--filter", default="", help="run only cases whose name contains this")
    parser.add_argument("--min-seconds", type=float, default=1.0)
    arguments = parser.parse_args()
    import PIL

    print(f"# Pillow {PIL.__version__}, NumPy {np.__version__}", file=sys.stderr)
    print("name\tmedian_ms\tmin_ms\titerations")
    for name, body in cases(arguments.inputs):
        if arguments.filter in name:
            median, minimum, iterations = measure(body, minimum_seconds=arguments.min_seconds)
            print(f"{name}\t{median:.3f}\t{minimum:.3f}\t{iterations}", flush=True)


if __name__ == "__main__":
    main()
