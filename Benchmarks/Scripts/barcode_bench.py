"""Times zxing-cpp's Python binding reading the barcodes of 12 MP photos: the reference of
`ImagePipeline.barcodes.photo-12mp` (issue 42: ours must take at most 1.0x its time per photo).

The photos are the 12 MP ones of .cache/barcode-fixtures (Scripts/barcode-fixtures/generate.sh):
upright 4032 x 3024 or 3024 x 4032, sorted by name. Each is decoded, turned upright (EXIF) and
converted to 8-bit gray before timing, so decoding is excluded. One run reads every one of them
once with `zxingcpp.read_barcodes` at its default options; the row gives milliseconds per photo
(the run's time / photo count). Prints rows `name, median_ms, min_ms, iterations, tool` like the
other *_bench.py; without the fixtures it says why on stderr and prints no row.
"""

import argparse
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from pillow_bench import measure

NAME = "ImagePipeline.barcodes.photo-12mp"
TWELVE_MP = ((4032, 3024), (3024, 4032))


def twelve_mp_photos(folder):
    """The upright gray pixels of the folder's 12 MP JPEGs, by name."""
    photos = []
    for path in sorted(folder.glob("*.jpg")):
        with Image.open(path) as image:
            upright = ImageOps.exif_transpose(image)
            if upright.size in TWELVE_MP:
                photos.append(np.ascontiguousarray(np.asarray(upright.convert("L"))))
    return photos


def main():
    root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fixtures", type=Path, default=root / ".cache" / "barcode-fixtures")
    parser.add_argument("--filter", default="", help="run only cases whose name contains this")
    parser.add_argument("--min-seconds", type=float, default=1.0)
    arguments = parser.parse_args()
    if arguments.filter not in NAME:
        return
    try:
        import zxingcpp
    except ImportError:
        print(f"# {NAME} skipped: zxing-cpp is not installed (Benchmarks/Scripts/requirements.txt)",
              file=sys.stderr)
        return
    photos = twelve_mp_photos(arguments.fixtures) if arguments.fixtures.is_dir() else []
    if not photos:
        print(f"# {NAME} skipped: no 12 MP photos in {arguments.fixtures} "
              "(Scripts/barcode-fixtures/generate.sh makes them)", file=sys.stderr)
        return

    def read_all():
        for gray in photos:
            zxingcpp.read_barcodes(gray)

    # A run reads tens of photos, so three runs already give a steady median.
    median, minimum, iterations = measure(read_all, minimum_iterations=3,
                                          minimum_seconds=arguments.min_seconds)
    print("name\tmedian_ms\tmin_ms\titerations\ttool")
    print(f"{NAME}\t{median / len(photos):.3f}\t{minimum / len(photos):.3f}\t{iterations}\t"
          f"zxing-cpp {version('zxing-cpp')}", flush=True)


if __name__ == "__main__":
    main()
