"""Reads every photo in a folder with zxing-cpp's Python binding, the reference our barcode reader
is measured against (issue 42), and writes what it found and how long each read took.

Why: "reads at least as many correctly, no more wrong GTINs, at most 1.0x its time per 12 MP
photo" needs the binding's answers on the same files, in the same run's conditions.

Each photo is loaded with Pillow, turned upright (ImageOps.exif_transpose) and converted to 8-bit
gray; then `zxingcpp.read_barcodes` runs with its default options (what a user would call), timed
alone with time.perf_counter (decoding excluded). GTINs follow gs1.result_gtin: check digit
validated, GTIN-14.

Usage: reference.py DIR [--out FILE] [--expected FILE]
Writes FILE (default DIR/reference.json):
  {"tool": "zxing-cpp X.Y.Z", "files": {name: {"width", "height" (upright), "ms",
   "barcodes": [{"format", "text", "gtin", "box": [x, y, w, h] in the upright photo}]}}}
and prints on stdout, against DIR/expected.json (or --expected), per kind of photo: how many the
binding read correctly (every expected code found, same format family and GTIN, or same text where
there is no GTIN), how many GTINs it reported that are not in the photo, and the median ms for
12 MP photos.
"""

import argparse
import json
import re
import statistics
import sys
import time
import warnings
from importlib.metadata import version
from pathlib import Path

import numpy as np
import zxingcpp
from PIL import Image, ImageOps

import gs1

# Palette PNGs with transparency warn on convert("L"); their gray is what is wanted.
warnings.filterwarnings("ignore", message="Palette images with Transparency")
EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp")
TWELVE_MP = ((4032, 3024), (3024, 4032))


def load_gray(path):
    """The upright photo as a contiguous 8-bit gray array."""
    with Image.open(path) as image:
        return np.ascontiguousarray(np.asarray(ImageOps.exif_transpose(image).convert("L")))


def describe(barcode):
    name = str(barcode.format)
    format_name = gs1.BINDING_NAMES.get(name, name.replace(" ", ""))
    position = barcode.position
    xs = [position.top_left.x, position.top_right.x, position.bottom_right.x, position.bottom_left.x]
    ys = [position.top_left.y, position.top_right.y, position.bottom_right.y, position.bottom_left.y]
    return {"format": format_name, "text": barcode.text,
            "gtin": gs1.result_gtin(format_name, barcode.text, barcode.symbology_identifier,
                                    barcode.content_type == zxingcpp.ContentType.GS1),
            "box": [min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1]}


def kind(name):
    """Generated photos are KIND-NNN.jpg; committed samples are SYMBOLOGY-what.ext."""
    stem = Path(name).stem
    return stem[:-4] if re.search(r"-\d{3}$", stem) else stem.split("-")[0]


def matches(found, wanted):
    if gs1.family(found["format"]) != gs1.family(wanted["format"]):
        return False
    return found["gtin"] == wanted["gtin"] if wanted["gtin"] else found["text"] == wanted["text"]


def summarize(files, expected, tool):
    rows = {}
    for name, entry in files.items():
        wanted = expected.get(name, [])
        gtins = {code["gtin"] for code in wanted if code["gtin"]}
        row = rows.setdefault(kind(name), {"files": 0, "read": 0, "wrong": 0, "extra": 0, "ms12": []})
        row["files"] += 1
        found = entry["barcodes"]
        found_all = all(any(matches(code, want) for code in found) for want in wanted)
        row["read"] += found_all and bool(wanted or not found)
        row["wrong"] += sum(1 for code in found if code["gtin"] and code["gtin"] not in gtins)
        row["extra"] += sum(1 for code in found if not any(matches(code, want) for want in wanted))
        if (entry["width"], entry["height"]) in TWELVE_MP:
            row["ms12"].append(entry["ms"])
    print(f"{tool}: read_barcodes defaults, gray, upright")
    print(f"{'kind':<24} {'files':>5} {'read ok':>7} {'wrong GTINs':>11} {'other codes':>11} "
          f"{'12 MP ms (n)':>14}")
    total = {"files": 0, "read": 0, "wrong": 0, "extra": 0, "ms12": []}
    for key in sorted(rows):
        row = rows[key]
        for field in total:
            total[field] += row[field]
        print(f"{key:<24} {row['files']:>5} {row['read']:>7} {row['wrong']:>11} {row['extra']:>11} "
              f"{median_text(row['ms12']):>14}")
    print(f"{'all':<24} {total['files']:>5} {total['read']:>7} {total['wrong']:>11} "
          f"{total['extra']:>11} {median_text(total['ms12']):>14}")
    print("(read ok: every expected code found; on a photo with none expected, nothing reported)")


def median_text(values):
    return f"{statistics.median(values):.1f} ({len(values)})" if values else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--expected", type=Path)
    arguments = parser.parse_args()
    folder = arguments.folder
    paths = sorted(path for path in folder.iterdir() if path.suffix.lower() in EXTENSIONS)
    if not paths:
        sys.exit(f"reference.py: no photos in {folder}")
    tool = f"zxing-cpp {version('zxing-cpp')}"
    zxingcpp.read_barcodes(load_gray(paths[0]))  # warm-up: first-call set-up is not a read
    files = {}
    for path in paths:
        gray = load_gray(path)
        start = time.perf_counter()
        barcodes = zxingcpp.read_barcodes(gray)
        elapsed = (time.perf_counter() - start) * 1000
        files[path.name] = {"width": gray.shape[1], "height": gray.shape[0], "ms": round(elapsed, 2),
                            "barcodes": [describe(barcode) for barcode in barcodes]}
    out = arguments.out or folder / "reference.json"
    out.write_text(json.dumps({"tool": tool, "files": files}, indent=1, sort_keys=True) + "\n")
    expected_path = arguments.expected or folder / "expected.json"
    if expected_path.exists():
        summarize(files, json.loads(expected_path.read_text()), tool)


if __name__ == "__main__":
    main()
