"""Writes WebP fixtures with Pillow and, for each, Pillow's own decoding as a PNG reference.

Usage: generate.py SOURCE.png OUTPUT-DIR

OUTPUT-DIR/manifest.json lists every case: the file, its reference PNG (the pixels as stored,
before any orientation, RGB or RGBA as Pillow decodes them; the first frame of an animation),
the EXIF orientation it carries, whether the encoding is lossless (the pixels must then match
exactly), and for broken files the error they must give instead.
"""

import io
import json
import pathlib
import sys

from PIL import Image


def exif_with_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def main():
    source = Image.open(sys.argv[1]).convert("RGB")
    out = pathlib.Path(sys.argv[2])
    webp = out / "webp"
    webp.mkdir(parents=True, exist_ok=True)
    cases = []

    def add(name, image, lossless, orientation=1, **options):
        path = webp / f"{name}.webp"
        image.save(path, "WEBP", lossless=lossless, **options)
        decoded = Image.open(path)
        decoded.seek(0)
        mode = "RGBA" if decoded.mode in ("RGBA", "LA", "PA") or "A" in decoded.getbands() else "RGB"
        reference = webp / f"{name}.png"
        decoded.convert(mode).save(reference)
        cases.append({
            "file": f"webp/{name}.webp", "reference": f"webp/{name}.png", "mode": mode,
            "width": decoded.width, "height": decoded.height, "orientation": orientation,
            "lossless": lossless,
        })

    photo = source.resize((301, 227), Image.Resampling.LANCZOS)
    add("lossy-photo", photo, False, quality=85)
    add("lossless-photo", photo, True)
    rgba = photo.convert("RGBA")
    alpha = Image.linear_gradient("L").resize(photo.size)
    rgba.putalpha(alpha)
    add("lossless-alpha", rgba, True)
    add("lossy-alpha", rgba, False, quality=80)
    add("one-pixel", Image.new("RGB", (1, 1), (200, 30, 90)), True)
    add("odd-size", photo.resize((3, 7)), False, quality=90)
    add("gray-source", photo.convert("L").convert("RGB"), False, quality=75)
    for value in range(1, 9):
        add(f"orientation-{value}", photo.resize((64, 48)), False, orientation=value,
            quality=85, exif=exif_with_orientation(value))
    second = photo.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    frames = [photo, second]
    add("animated", frames[0], True, save_all=True, append_images=frames[1:], duration=100,
        loop=0)

    # Broken files: a truncated lossy file and one with a damaged frame header.
    whole = (webp / "lossy-photo.webp").read_bytes()
    (webp / "truncated.webp").write_bytes(whole[: len(whole) // 2])
    damaged = bytearray(whole)
    # Past RIFF/WEBP (12 bytes), the VP8 chunk header (8) and the frame tag (3): the start code.
    damaged[23:26] = b"\x00\x00\x00"
    (webp / "bad-start-code.webp").write_bytes(bytes(damaged))
    cases.append({"file": "webp/truncated.webp", "error": "truncated"})
    cases.append({"file": "webp/bad-start-code.webp", "error": "corrupt"})

    (out / "manifest.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")
    print(f"{len(cases)} image fixtures in {out}")


if __name__ == "__main__":
    main()
