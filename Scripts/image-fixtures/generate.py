"""Writes image-format fixtures and, for each, a reference decoding as a PNG.

Usage: generate.py SOURCE.png OUTPUT-DIR [PILLOW-HEIF-SDIST.tar.gz]

- WebP, written and decoded by Pillow (references: the pixels as stored, before any EXIF
  orientation; the first frame of an animation).
- HEIC written by pillow-heif as an iPhone does (EXIF orientation turned into `irot`/`imir`, the
  tag kept), 8 and 10 bits, alpha, odd sizes; HEIC written by `heif-enc` from a JPEG with EXIF
  orientation 6 and no rotation box; AVIF written by Pillow and by `heif-enc -A`. References are
  upright: pillow-heif's decoding (transforms applied, 10 bits reduced to 8), and for AVIF
  Pillow's decoding turned by the orientation it reports for the container.
- `serving/photo-12mp.jpg` and `.webp`: a 12 MP phone-style photo for the load tests.
- The HEIF files of pillow-heif's source distribution (BSD-3-Clause; its `nokia/` folder, under
  another licence, is left out), with pillow-heif's decodings, when the sdist is given.

OUTPUT-DIR/manifest.json lists every case: the file, its reference PNG (RGB or RGBA), the EXIF
orientation still to apply (1 for HEIF and AVIF, which decode upright) and the EXIF tag it
stores, whether the encoding is lossless (the pixels must then match exactly), and for broken
files the error they must give instead.
"""

import json
import pathlib
import shutil
import subprocess
import sys
import tarfile
import array

import pillow_heif
from PIL import Image, ImageChops, ImageOps


def exif_with_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def main():
    pillow_heif.register_heif_opener()
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

    serving_photos(source, out / "serving")
    cases += heif_cases(source, out)
    if len(sys.argv) > 3:
        cases += sdist_cases(pathlib.Path(sys.argv[3]), out)
    (out / "manifest.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")
    print(f"{len(cases)} image fixtures in {out}")


def serving_photos(source, out):
    """The 12 MP phone photo the serving load tests classify by the hundred, as JPEG and WebP.

    4032 x 3024 stored with EXIF orientation 6, as phones save it, upscaled from the sample with
    a fixed grain so the encoders see photo-like detail; not in the manifest (no reference).
    """
    out.mkdir(parents=True, exist_ok=True)
    size = (4032, 3024)
    photo = source.resize(size, Image.Resampling.BICUBIC)
    grain = Image.merge("RGB", [Image.effect_noise(size, 6) for _ in range(3)])
    photo = ImageChops.add(photo, grain, scale=1.0, offset=-128)
    exif = exif_with_orientation(6)
    photo.save(out / "photo-12mp.jpg", "JPEG", quality=92, exif=exif)
    photo.save(out / "photo-12mp.webp", "WEBP", quality=85, exif=exif)


def reference_entry(path, out, upright, orientation_tag, lossless=False):
    """Saves `upright` (a decoded image) as the reference PNG of `path`."""
    mode = "RGBA" if "A" in upright.getbands() else "RGB"
    reference = path.with_suffix(path.suffix + ".png")
    upright.convert(mode).save(reference)
    entry = {
        "file": str(path.relative_to(out)), "reference": str(reference.relative_to(out)),
        "mode": mode, "width": upright.width, "height": upright.height, "orientation": 1,
        "exifOrientation": orientation_tag, "lossless": lossless,
    }
    return entry


def stored_exif_orientation(heif_image):
    """The EXIF orientation tag as the file stores it: pillow-heif resets the tag it turned into
    a transform and keeps the stored value as `original_orientation`."""
    if heif_image.info.get("original_orientation"):
        return heif_image.info["original_orientation"]
    exif = heif_image.info.get("exif")
    if not exif:
        return None
    parsed = Image.Exif()
    parsed.load(exif)
    return parsed.get(0x0112)


def heif_reference(path):
    heif = pillow_heif.open_heif(str(path), convert_hdr_to_8bit=True)
    image = heif.to_pillow()
    if image.mode == "I;16":
        # pillow-heif keeps monochrome 10- and 12-bit images at 16 bits (scaled to 65535)
        # even when asked for 8: round them to 8 bits as the colour ones are.
        wide = array.array("H", image.tobytes())
        eight = Image.frombytes(
            "L", image.size, bytes((value * 255 + 32767) // 65535 for value in wide))
        eight.info = image.info
        return eight
    return image


def heif_cases(source, out):
    folder = out / "heif"
    folder.mkdir(parents=True, exist_ok=True)
    cases = []
    photo = source.resize((301, 227), Image.Resampling.LANCZOS)
    small = photo.resize((64, 48))

    def pillow_heif_case(name, image, orientation_tag=None, **options):
        path = folder / f"{name}.heic"
        if orientation_tag is not None:
            exif = Image.Exif()
            exif[0x0112] = orientation_tag
            options["exif"] = exif.tobytes()
        image.save(path, format="HEIF", **options)
        cases.append(reference_entry(path, out, heif_reference(path), orientation_tag))

    pillow_heif_case("photo", photo, quality=85)
    rgba = photo.convert("RGBA")
    rgba.putalpha(Image.linear_gradient("L").resize(photo.size))
    pillow_heif_case("alpha", rgba, quality=85)
    pillow_heif_case("one-pixel", Image.new("RGB", (1, 1), (200, 30, 90)), quality=90)
    pillow_heif_case("odd-size", photo.resize((3, 7)), quality=90)
    pillow_heif_case("gray-source", photo.convert("L").convert("RGB"), quality=85)
    for value in range(1, 9):
        pillow_heif_case(f"iphone-orientation-{value}", small, value, quality=85)
    # 10 bits: pillow-heif writes 16-bit samples as a 10-bit HEVC image.
    wide = array.array("H", [(v << 8) | v for v in photo.tobytes()])
    ten = folder / "ten-bit.heic"
    pillow_heif.from_bytes(mode="RGB;16", size=photo.size, data=wide.tobytes()).save(
        str(ten), quality=90)
    cases.append(reference_entry(ten, out, heif_reference(ten), None))

    # heif-enc from a JPEG with EXIF 6: the tag is kept and no rotation box is written, so the
    # image must decode as stored.
    if shutil.which("heif-enc"):
        jpeg = folder / "exif6-source.jpg"
        exif = Image.Exif()
        exif[0x0112] = 6
        small.save(jpeg, quality=95, exif=exif.tobytes())
        # AVIF at 4:4:4: Pillow's AVIF decoder (libavif) upsamples 4:2:0 chroma with another
        # filter than libheif 1.15, which a small image shows (a mean difference of 2 to 2.5
        # at 48x64); the 4:2:0 photo below stays within the bound.
        for name, extra in [("heif-enc-exif6.heic", []),
                            ("heif-enc-exif6.avif", ["-A", "-p", "chroma=444"])]:
            path = folder / name
            subprocess.run(["heif-enc", "-q", "85", *extra, "-o", str(path), str(jpeg)],
                           check=True, capture_output=True)
            if path.suffix == ".heic":
                upright = heif_reference(path)
            else:
                # No AV1 decoder in pillow-heif's wheel: Pillow decodes it; with no rotation
                # box there is nothing to turn.
                upright = Image.open(path)
                upright.load()
            cases.append(reference_entry(path, out, upright, 6))
        jpeg.unlink()

    # AVIF from Pillow, which turns an EXIF orientation into `irot`/`imir` and reports the
    # container's transform back as an EXIF orientation when it reads the file.
    for name, image, value, subsampling in [
            ("avif-photo", photo, None, "4:4:4"), ("avif-alpha", rgba, None, "4:4:4"),
            ("avif-orientation-6", small, 6, "4:4:4"), ("avif-orientation-5", small, 5, "4:4:4"),
            ("avif-photo-420", photo, None, "4:2:0")]:
        path = folder / f"{name}.avif"
        options = {"quality": 80, "subsampling": subsampling}
        if value is not None:
            exif = Image.Exif()
            exif[0x0112] = value
            options["exif"] = exif.tobytes()
        image.save(path, **options)
        decoded = Image.open(path)
        decoded.load()
        cases.append(reference_entry(path, out, ImageOps.exif_transpose(decoded), None))

    # The sample photo at full size, as a phone (HEIC, turned by `irot` as a portrait photo is)
    # and the web (WebP, AVIF) would send it: `classify` must give the PNG's top-1.
    exif = Image.Exif()
    exif[0x0112] = 1
    source.save(folder / "coffee.heic", format="HEIF", quality=85, exif=exif.tobytes())
    source.save(folder / "coffee.avif", quality=85)
    source.save(folder / "coffee.webp", "WEBP", quality=85)

    whole = (folder / "photo.heic").read_bytes()
    (folder / "truncated.heic").write_bytes(whole[: len(whole) * 2 // 3])
    cases.append({"file": "heif/truncated.heic", "error": "any"})
    return cases


def sdist_cases(sdist, out):
    """pillow-heif's test images (without nokia/), with pillow-heif's decodings."""
    folder = out / "pillow-heif"
    folder.mkdir(parents=True, exist_ok=True)
    cases = []
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            name = member.name
            if (not member.isfile() or "/tests/images/heif" not in name or "/nokia/" in name
                    or not name.lower().endswith((".heic", ".heif", ".hif", ".avif"))):
                continue
            target = folder / pathlib.Path(name).parent.name / pathlib.Path(name).name
            target.parent.mkdir(parents=True, exist_ok=True)
            extracted = archive.extractfile(member)
            target.write_bytes(extracted.read())
            try:
                upright = heif_reference(target)
            except Exception as error:  # noqa: BLE001 - any refusal is the expected outcome
                cases.append({"file": str(target.relative_to(out)), "error": "any",
                              "note": str(error)[:200]})
                continue
            if upright.width * upright.height > 50_000_000:
                cases.append({"file": str(target.relative_to(out)), "error": "limitExceeded"})
                continue
            cases.append(reference_entry(target, out, upright, stored_exif_orientation(upright)))
    return cases


if __name__ == "__main__":
    main()
