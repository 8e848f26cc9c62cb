"""Makes large JPEG versions of the reference photos for Scripts/measure-dct-accuracy.sh.

For each photo in PHOTOS (the shared reference photos), writes to OUT:
- `<stem>-12mp-o6.jpg`: upscaled (Lanczos) so the upright picture covers 3024 x 4032 or
  4032 x 3024 after a center crop to 4:3, stored turned as a phone does with EXIF orientation 6,
  quality 92: decodes at 1/8 for a 224 input;
- `<stem>-2mp.jpg`: upscaled to a long side of 1800, quality 90, orientation 1: decodes at 1/4.
Upscaled photos carry less fine detail than real camera photos, so the measurement also uses
real large photos from ../shared/testdata.
Usage: make_large_photos.py PHOTOS OUT
"""

import sys
from pathlib import Path

from PIL import Image, ImageOps


def main():
    source, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        if path.suffix.lower() not in (".jpg", ".png"):
            continue
        target = out / f"{path.stem}-12mp-o6.jpg"
        if target.exists() and (out / f"{path.stem}-2mp.jpg").exists():
            continue
        with Image.open(path) as image:
            upright = ImageOps.exif_transpose(image).convert("RGB")
        width, height = upright.size
        size = (4032, 3024) if width >= height else (3024, 4032)
        phone = ImageOps.fit(upright, size, Image.LANCZOS)
        exif = Image.Exif()
        exif[0x0112] = 6
        # Orientation 6 shows the stored pixels turned 90 degrees clockwise, so store them
        # turned counter-clockwise.
        phone.transpose(Image.ROTATE_90).save(target, quality=92, exif=exif)
        scale = 1800 / max(width, height)
        medium = upright.resize((round(width * scale), round(height * scale)), Image.LANCZOS)
        medium.save(out / f"{path.stem}-2mp.jpg", quality=90)


if __name__ == "__main__":
    main()
