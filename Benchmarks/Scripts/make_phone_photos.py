"""Makes the 12 MP photo of `Benchmarks --make-inputs` in the formats phones and the web send.

From INPUTS/photo-12mp.jpg (4032 x 3024 stored, EXIF orientation 6) writes:
- `photo-12mp.heic`: as an iPhone saves it (pillow-heif: the orientation becomes an `irot`
  rotation box, the EXIF tag is kept), quality 85;
- `photo-12mp.webp`: the stored pixels with the same EXIF block, quality 85;
- `photo-12mp-iphone.heic`: a real iPhone photo (a grid of 512 x 512 tiles, `irot`, EXIF 6),
  copied from pillow-heif's test images when `Scripts/image-fixtures/generate.sh` has
  extracted them to FIXTURES.
Usage: make_phone_photos.py INPUTS [FIXTURES]
"""

import shutil
import sys
from pathlib import Path

import pillow_heif
from PIL import Image


def main():
    inputs = Path(sys.argv[1])
    iphone = Path(sys.argv[2]) / "pillow-heif/heif_other/arrow.heic" if len(sys.argv) > 2 else None
    if iphone is not None and iphone.exists():
        shutil.copyfile(iphone, inputs / "photo-12mp-iphone.heic")
    heic, webp = inputs / "photo-12mp.heic", inputs / "photo-12mp.webp"
    if heic.exists() and webp.exists():
        return
    pillow_heif.register_heif_opener()
    with Image.open(inputs / "photo-12mp.jpg") as image:
        image.load()
        exif = image.info.get("exif", b"")
        image.save(heic, format="HEIF", quality=85, exif=exif)
        image.save(webp, "WEBP", quality=85, exif=exif)


if __name__ == "__main__":
    main()
