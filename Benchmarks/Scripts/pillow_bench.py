"""Times Pillow (+ NumPy) on the same inputs and cases as `swift run -c release Benchmarks`.

Covers the single stages (decode, orient, resize); the whole preprocessing recipes of Pillow,
OpenCV and TurboJPEG are in `reference_bench.py`. Prints the same tab-separated table as the Swift benchmarks (name, median_ms, min_ms,
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
