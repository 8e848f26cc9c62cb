"""Writes Samples/espresso-barcode.jpg: Samples/coffee.png with a shelf label carrying the EAN-13
of the bundled catalog's HT-1091 (Barista's Choice Dual Boiler, 2012345010918), turned a little
and compressed as a phone would. README's `find` example and the find tests read it.

Usage: .cache/barcode-venv/bin/python Scripts/barcode-fixtures/make_sample.py
(the venv comes from Scripts/barcode-fixtures/generate.sh: zxing-cpp's writer and Pillow).
"""
from pathlib import Path

import zxingcpp
from PIL import Image, ImageDraw, ImageFilter

ROOT = Path(__file__).resolve().parents[2]
GTIN = "2012345010918"

photo = Image.open(ROOT / "Samples/coffee.png").convert("RGB")
photo = photo.resize((photo.width * 2, photo.height * 2), Image.LANCZOS)
barcode = zxingcpp.create_barcode(GTIN, zxingcpp.BarcodeFormat.EAN13)
bars = Image.fromarray(zxingcpp.write_barcode_to_image(barcode, scale=4, add_quiet_zones=True)).resize((452, 150), Image.NEAREST)
label = Image.new("RGB", (bars.width + 40, bars.height + 60), "white")
label.paste(bars.convert("RGB"), (20, 16))
ImageDraw.Draw(label).text((20, bars.height + 24), f"Barista's Choice  {GTIN}", fill="black")
label = label.rotate(7, expand=True, fillcolor=(0, 0, 0, 0), resample=Image.BICUBIC)
mask = Image.new("L", label.size, 0)
mask.paste(255, (0, 0, label.width, label.height))
mask = Image.new("L", (bars.width + 40, bars.height + 60), 255).rotate(7, expand=True)
photo.paste(label, (photo.width - label.width - 30, photo.height - label.height - 30), mask)
photo = photo.filter(ImageFilter.GaussianBlur(0.8))
photo.save(ROOT / "Samples/espresso-barcode.jpg", quality=85, optimize=True)
print(ROOT / "Samples/espresso-barcode.jpg", photo.size)
