"""Writes the decoding corpus: PNG and JPEG files made from seeded numbers and the sample photo,
each with another decoder's pixels beside it, photos stored in every EXIF orientation, and
damaged copies of the valid files.

Usage: decoding_corpus.py SOURCE.png OUTPUT-DIR

The tests in Tests/ImagePipelineTests/Decoding read it when ../shared (PngSuite, the JPEG and EXIF
corpora) is absent, and beside those corpora when it is there. Everything is deterministic (fixed
seeds, no dates), so two runs write the same bytes.

- `png/`: every colour type at every bit depth it allows (grey 1/2/4/8/16, RGB 8/16, palette
  1/2/4/8, grey+alpha 8/16, RGBA 8/16), each plain and Adam7-interlaced, with tRNS where the
  colour type takes one, the five filter types alone, cycled and chosen per row, zlib levels
  0-9, IDAT split into many chunks, ancillary chunks. The files are written here (Pillow cannot
  write interlaced, 2-bit or chosen-filter files); the reference is pypng's decoding as RGBA,
  which must equal the pixels the file was made from, and Pillow's where it reads the file
  losslessly as 8 bits. References of 16-bit files keep the 16-bit samples.
- `jpeg/`: Pillow's encodings of the photo (baseline and progressive; 4:4:4, 4:2:2, 4:2:0;
  grey; CMYK; RGB without a colour transform; restart intervals; optimized Huffman tables; odd
  sizes); the reference is Pillow's decoding as RGB.
- `orientation/`: the photo stored so that each EXIF orientation 1-8 turns it upright, as JPEG
  (little- and big-endian EXIF) and as PNG with an eXIf chunk, plus files with no EXIF, no
  Orientation entry and the invalid values 0, 9 and 65535; the reference is Pillow's decoding
  turned upright by `ImageOps.exif_transpose`.
- `malformed/`: truncated files, flipped CRC bytes, damaged headers (CRC fixed so the damage is
  what a reader sees), bad chunk and marker lengths, missing or misplaced chunks, damaged
  compressed data; each with the error it must give, or, for damage a reader must tolerate,
  that it decodes (with the original's pixels where they are known).

OUTPUT-DIR/manifest.json lists every case; references are `.npy` arrays, `uint8` or `uint16`
`[height, width, 4]` (RGBA) for PNG and `uint8 [height, width, 3]` (RGB) for JPEG.
"""

import io
import json
import pathlib
import shutil
import struct
import subprocess
import sys
import warnings
import zlib

import numpy as np
import png
from PIL import Image, ImageOps

SIGNATURE = b"\x89PNG\r\n\x1a\n"
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
STRATEGIES = ["none", "sub", "up", "average", "paeth", "cycle", "adaptive"]


def png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def pack_rows(samples, bit_depth):
    """Rows of samples `(h, w, c)` packed as a PNG stores them, most significant bits first."""
    height, width, channels = samples.shape
    flat = samples.reshape(height, width * channels)
    if bit_depth == 16:
        return flat.astype(">u2").view(np.uint8).reshape(height, -1)
    if bit_depth == 8:
        return flat.astype(np.uint8)
    per_byte = 8 // bit_depth
    padded = np.zeros((height, -(-width // per_byte) * per_byte), dtype=np.uint16)
    padded[:, :width] = flat
    groups = padded.reshape(height, -1, per_byte)
    shifts = 8 - bit_depth * (np.arange(per_byte) + 1)
    return (groups << shifts).sum(axis=2).astype(np.uint8)


def filtered(kind, row, prior, bpp):
    """One row filtered with PNG filter `kind` (specification 9.2), from raw bytes."""
    row = row.astype(np.int16)
    prior = prior.astype(np.int16)
    left = np.concatenate([np.zeros(bpp, np.int16), row[:-bpp]])[: len(row)]
    upper_left = np.concatenate([np.zeros(bpp, np.int16), prior[:-bpp]])[: len(row)]
    if kind == 0:
        predicted = 0
    elif kind == 1:
        predicted = left
    elif kind == 2:
        predicted = prior
    elif kind == 3:
        predicted = (left + prior) // 2
    else:
        estimate = left + prior - upper_left
        pa, pb, pc = (np.abs(estimate - left), np.abs(estimate - prior),
                      np.abs(estimate - upper_left))
        predicted = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prior, upper_left))
    return ((row - predicted) % 256).astype(np.uint8)


def encode_png(samples, color_type, bit_depth, interlaced=False, strategy="none", level=6,
               palette=None, transparency=None, idat_pieces=1, before_idat=(), after_idat=()):
    """A PNG of `samples` (h, w, channels; palette indices for colour type 3)."""
    height, width, channels = samples.shape
    assert channels == CHANNELS[color_type]
    bpp = max(1, channels * bit_depth // 8)
    raw = bytearray()
    row_number = 0
    for x0, y0, dx, dy in (ADAM7 if interlaced else [(0, 0, 1, 1)]):
        part = samples[y0::dy, x0::dx]
        if part.shape[0] == 0 or part.shape[1] == 0:
            continue
        prior = None
        for row in pack_rows(part, bit_depth):
            prior = np.zeros_like(row) if prior is None else prior
            if strategy == "cycle":
                kind = row_number % 5
            elif strategy == "adaptive":
                # libpng's heuristic: the filter whose output, read as signed bytes, sums least.
                sums = [np.abs(filtered(k, row, prior, bpp).astype(np.int8).astype(int)).sum()
                        for k in range(5)]
                kind = int(np.argmin(sums))
            else:
                kind = STRATEGIES.index(strategy)
            raw.append(kind)
            raw += filtered(kind, row, prior, bpp).tobytes()
            prior = row
            row_number += 1
    stream = zlib.compress(bytes(raw), level)
    header = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, int(interlaced))
    out = SIGNATURE + png_chunk(b"IHDR", header)
    for extra in before_idat:
        out += extra
    if palette is not None:
        out += png_chunk(b"PLTE", bytes(palette.astype(np.uint8).reshape(-1)))
    if transparency is not None:
        out += png_chunk(b"tRNS", transparency)
    piece = -(-len(stream) // idat_pieces)
    for start in range(0, len(stream), piece):
        out += png_chunk(b"IDAT", stream[start:start + piece])
    for extra in after_idat:
        out += extra
    return out + png_chunk(b"IEND", b"")


def expected_rgba(samples, color_type, bit_depth, palette=None, key=None, alphas=None):
    """The RGBA pixels a decoder must give: 8-bit samples, or 16-bit for 16-bit files."""
    top = (1 << bit_depth) - 1
    height, width, _ = samples.shape
    out = np.zeros((height, width, 4), dtype=np.uint32)
    if color_type == 3:
        index = samples[..., 0]
        out[..., :3] = palette[index]
        table = np.full(256, 255)
        if alphas is not None:
            table[: len(alphas)] = alphas
        out[..., 3] = table[index]
        return out, 8
    grey = color_type in (0, 4)
    out[..., :3] = samples[..., :1] if grey else samples[..., :3]
    if color_type in (4, 6):
        out[..., 3] = samples[..., -1]
    else:
        out[..., 3] = top
        if key is not None:
            matches = np.all(samples == np.array(key), axis=-1)
            out[..., 3][matches] = 0
    if bit_depth == 16:
        return out, 16
    return out * (255 // top), 8


def pypng_rgba(data):
    """pypng's decoding as RGBA: 8-bit samples (sub-byte grey scaled up), 16-bit kept."""
    width, height, rows, info = png.Reader(bytes=data).asRGBA()
    depth = info["bitdepth"]
    pixels = np.array([np.asarray(row, dtype=np.uint32) for row in rows]).reshape(height, width, 4)
    if depth == 16:
        return pixels, 16
    return pixels * (255 // ((1 << depth) - 1)), 8


def save_npy(path, array, dtype):
    np.save(path, np.ascontiguousarray(array.astype(dtype)), allow_pickle=False)


class Corpus:
    def __init__(self, out):
        self.out = out
        self.png_cases = []
        self.jpeg_cases = []
        self.orientation_cases = []
        self.malformed_cases = []
        self.valid_png = {}
        self.valid_jpeg = {}

    def write(self, relative, data):
        path = self.out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def add_png(self, name, samples, color_type, bit_depth, palette=None, key=None, alphas=None,
                **options):
        transparency = None
        if key is not None:
            transparency = struct.pack(">" + "H" * len(key), *key)
        elif alphas is not None:
            transparency = bytes(alphas)
        data = encode_png(samples, color_type, bit_depth, palette=palette,
                          transparency=transparency, **options)
        relative = f"png/{name}.png"
        self.write(relative, data)
        expected, depth = expected_rgba(samples, color_type, bit_depth, palette, key, alphas)
        decoded, decoded_depth = pypng_rgba(data)
        assert decoded_depth == depth and np.array_equal(decoded, expected), f"pypng: {name}"
        # Pillow as a second reader, on every file it reads at 8 bits without loss; it compares
        # a sub-byte grey tRNS key with the samples scaled to 8 bits, so it misses those keys.
        if bit_depth == 8 or (bit_depth < 8 and (color_type != 0 or key is None)):
            pillow = np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"), dtype=np.uint32)
            assert np.array_equal(pillow, expected), f"Pillow: {name}"
        reference = f"png/{name}.rgba.npy"
        save_npy(self.out / reference, decoded, np.uint16 if depth == 16 else np.uint8)
        height, width, _ = samples.shape
        self.png_cases.append({
            "file": relative, "reference": reference, "width": width, "height": height,
            "colorType": color_type, "bitDepth": bit_depth, "referenceBitDepth": depth,
            "interlaced": bool(options.get("interlaced", False)),
            "transparency": transparency is not None,
            "filters": options.get("strategy", "none"), "zlibLevel": options.get("level", 6),
        })
        self.valid_png[name] = (data, reference)
        return data

    def add_jpeg(self, name, image, extra=None, **options):
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", **options)
        subsampling = {0: "4:4:4", 1: "4:2:2", 2: "4:2:0"}.get(options.get("subsampling"))
        return self.add_jpeg_data(name, buffer.getvalue(), {
            "progressive": bool(options.get("progressive", False)),
            "subsampling": subsampling or "Pillow's default", **(extra or {})})

    def add_jpeg_data(self, name, data, description):
        relative = f"jpeg/{name}.jpg"
        self.write(relative, data)
        decoded = Image.open(io.BytesIO(data))
        decoded.load()
        components = len(decoded.getbands())
        reference = f"jpeg/{name}.rgb.npy"
        save_npy(self.out / reference, np.asarray(decoded.convert("RGB")), np.uint8)
        self.jpeg_cases.append({
            "file": relative, "reference": reference, "width": decoded.width,
            "height": decoded.height, "components": components, **description,
        })
        self.valid_jpeg[name] = (data, reference)
        return data

    def add_malformed(self, name, source, damage, data, expect, **details):
        """`expect`: the error code, or `decodes`; `details`: `reference` (the pixels it must
        still give), `message` (words the error message must hold), `decodesWhenLenient`."""
        relative = f"malformed/{name}"
        self.write(relative, data)
        self.malformed_cases.append({"file": relative, "source": source, "damage": damage,
                                     "expect": expect, **details})

    def manifest(self):
        return {"png": self.png_cases, "jpeg": self.jpeg_cases,
                "orientation": self.orientation_cases, "malformed": self.malformed_cases}


def seeded_samples(rng, height, width, channels, top):
    """A smooth ramp with seeded noise over it, so every filter type predicts something."""
    ys, xs = np.mgrid[0:height, 0:width]
    ramp = (xs * 3 + ys * 5)[..., None] + np.arange(channels) * 7
    noise = rng.integers(0, max(2, (top + 1) // 4), size=(height, width, channels))
    return ((ramp * max(1, (top + 1) // 64) + noise) % (top + 1)).astype(np.uint32)


def png_cases(corpus):
    rng = np.random.default_rng(20_240_601)
    sizes = [(23, 37), (9, 33), (33, 9), (17, 64), (5, 3), (1, 1), (64, 17), (2, 2), (31, 8)]
    levels = [0, 1, 6, 9]
    number = 0
    # Every colour type at every bit depth, plain and interlaced.
    for color_type, depths in [(0, [1, 2, 4, 8, 16]), (2, [8, 16]), (3, [1, 2, 4, 8]),
                               (4, [8, 16]), (6, [8, 16])]:
        for depth in depths:
            for interlaced in (False, True):
                height, width = sizes[number % len(sizes)]
                strategy = STRATEGIES[number % len(STRATEGIES)]
                level = levels[number % len(levels)]
                number += 1
                name = f"ct{color_type}-{depth}bit-{'adam7' if interlaced else 'plain'}"
                options = {"interlaced": interlaced, "strategy": strategy, "level": level}
                if color_type == 3:
                    entries = min(1 << depth, 200)
                    palette = rng.integers(0, 256, size=(entries, 3))
                    indices = rng.integers(0, entries, size=(height, width, 1))
                    corpus.add_png(name, indices, 3, depth, palette=palette, **options)
                else:
                    samples = seeded_samples(rng, height, width, CHANNELS[color_type],
                                             (1 << depth) - 1)
                    corpus.add_png(name, samples, color_type, depth, **options)
    # tRNS: a grey or RGB key that the image holds, and palettes with partial alpha tables.
    for color_type, depth in [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (2, 8), (2, 16)]:
        for interlaced in (False, True):
            height, width = (13, 21)
            top = (1 << depth) - 1
            samples = seeded_samples(rng, height, width, CHANNELS[color_type], top)
            key = tuple(int(v) for v in samples[height // 2, width // 2])
            samples[::3, ::4] = key
            name = f"ct{color_type}-{depth}bit-trns-{'adam7' if interlaced else 'plain'}"
            corpus.add_png(name, samples, color_type, depth, key=key, interlaced=interlaced,
                           strategy="adaptive", level=9)
    for depth in (1, 2, 4, 8):
        for interlaced in (False, True):
            entries = min(1 << depth, 256)
            palette = rng.integers(0, 256, size=(entries, 3))
            alphas = [int(a) for a in rng.integers(0, 256, size=max(1, entries // 2 + 1))]
            alphas[0] = 0
            indices = rng.integers(0, entries, size=(19, 11, 1))
            name = f"ct3-{depth}bit-trns-{'adam7' if interlaced else 'plain'}"
            corpus.add_png(name, indices, 3, depth, palette=palette, alphas=alphas,
                           interlaced=interlaced, strategy="cycle", level=6)
    # Each filter strategy and each zlib level on one RGB photo-like image.
    photo = seeded_samples(rng, 29, 41, 3, 255)
    for strategy in STRATEGIES:
        corpus.add_png(f"rgb8-filter-{strategy}", photo, 2, 8, strategy=strategy, level=6)
    for level in range(10):
        corpus.add_png(f"rgb8-zlib-{level}", photo, 2, 8, strategy="paeth", level=level)
    rgba16 = seeded_samples(rng, 15, 26, 4, 65535)
    for strategy in ("sub", "average", "paeth"):
        corpus.add_png(f"rgba16-filter-{strategy}", rgba16, 6, 16, strategy=strategy, level=6)
    # IDAT split into many chunks, down to one byte each.
    corpus.add_png("rgba8-idat-7-pieces", seeded_samples(rng, 20, 20, 4, 255), 6, 8,
                   strategy="cycle", level=6, idat_pieces=7)
    # More pieces than bytes: every IDAT holds one byte of the stream.
    corpus.add_png("rgb8-idat-1-byte-pieces", seeded_samples(rng, 4, 6, 3, 255), 2, 8, level=0,
                   idat_pieces=1_000_000)
    corpus.add_png("grey1-adam7-idat-pieces", seeded_samples(rng, 40, 40, 1, 1), 0, 1,
                   interlaced=True, strategy="adaptive", level=9, idat_pieces=5)
    # Ancillary chunks a reader skips: text, time, physical size, gamma and an unknown one.
    text = [png_chunk(b"tEXt", b"Comment\0made by decoding_corpus.py"),
            png_chunk(b"zTXt", b"Title\0\0" + zlib.compress(b"a compressed title")),
            png_chunk(b"iTXt", b"Author\0\0\0\0\0VisionCatalog")]
    corpus.add_png("rgb8-ancillary-chunks", photo, 2, 8, strategy="sub", level=6,
                   before_idat=[png_chunk(b"gAMA", struct.pack(">I", 45455)),
                                png_chunk(b"pHYs", struct.pack(">IIB", 2835, 2835, 1)),
                                png_chunk(b"vpAg", b"\0\0\0\x29\0\0\0\x1d\0"), *text],
                   after_idat=[png_chunk(b"tIME", struct.pack(">HBBBBB", 2024, 6, 1, 12, 0, 0)),
                               *text])
    corpus.add_png("rgba8-bkgd", seeded_samples(rng, 12, 12, 4, 255), 6, 8, strategy="up",
                   before_idat=[png_chunk(b"bKGD", struct.pack(">HHH", 255, 0, 0))])
    # A tall, narrow file and a wide, flat one.
    corpus.add_png("grey8-tall", seeded_samples(rng, 300, 1, 1, 255), 0, 8, strategy="up")
    corpus.add_png("rgb8-wide", seeded_samples(rng, 1, 400, 3, 255), 2, 8, strategy="sub",
                   interlaced=True)


def photo_cases(corpus, source):
    photo = source.resize((227, 149), Image.Resampling.LANCZOS)
    for subsampling, label in [(0, "444"), (1, "422"), (2, "420")]:
        for progressive in (False, True):
            corpus.add_jpeg(f"ycc{label}-{'progressive' if progressive else 'baseline'}", photo,
                            quality=90, subsampling=subsampling, progressive=progressive)
    corpus.add_jpeg("ycc420-optimized-q75", photo, quality=75, subsampling=2, optimize=True)
    corpus.add_jpeg("ycc420-restart-every-block", photo, quality=85, subsampling=2,
                    restart_marker_blocks=1)
    corpus.add_jpeg("ycc444-progressive-restart-every-row", photo, quality=85, subsampling=0,
                    progressive=True, restart_marker_rows=1)
    corpus.add_jpeg("ycc422-restart-every-3-blocks", photo, quality=80, subsampling=1,
                    restart_marker_blocks=3)
    grey = photo.convert("L")
    corpus.add_jpeg("grey-baseline", grey, quality=90)
    corpus.add_jpeg("grey-progressive-q50", grey, quality=50, progressive=True)
    # CMYK (Pillow writes Adobe's inverted samples), next to the same photo as YCbCr 4:4:4.
    cmyk = photo.convert("CMYK")
    same_scene = {"sameSceneAs": "jpeg/ycc444-baseline.jpg"}
    corpus.add_jpeg("cmyk-baseline", cmyk, extra=same_scene, quality=90)
    corpus.add_jpeg("cmyk-progressive", cmyk, extra=same_scene, quality=90, progressive=True)
    corpus.add_jpeg("rgb-no-transform", photo, quality=90, subsampling=0, keep_rgb=True)
    corpus.add_jpeg("ycc444-q100", photo, quality=100, subsampling=0)
    corpus.add_jpeg("ycc420-q5", photo, quality=5, subsampling=2)
    corpus.add_jpeg("ycc420-markers", photo, quality=85, subsampling=2,
                    exif=exif_bytes({0x010F: "VisionCatalog", 0x0112: 1}),
                    icc_profile=b"\0" * 600, comment=b"decoding corpus")
    for width, height, subsampling in [(1, 1, 2), (3, 5, 2), (17, 9, 1), (15, 17, 0), (9, 1, 2)]:
        corpus.add_jpeg(f"odd-{width}x{height}-{subsampling}", photo.resize((width, height)),
                        quality=90, subsampling=subsampling)
    corpus.add_jpeg("grey-1x1", grey.resize((1, 1)), quality=90)
    corpus.add_jpeg("ycc420-600x400", source, quality=92, subsampling=2)
    # Arithmetic coding: jpegtran recodes the same quantized coefficients, so the pixels must
    # equal the Huffman-coded file's.
    jpegtran = shutil.which("jpegtran")
    if jpegtran is None:
        sys.exit("decoding_corpus.py: jpegtran is missing (Debian: libjpeg-turbo-progs)")
    for name in ("ycc420-baseline", "grey-baseline", "ycc444-progressive"):
        data, _ = corpus.valid_jpeg[name]
        arithmetic = subprocess.run([jpegtran, "-arithmetic", "-copy", "all"], input=data,
                                    capture_output=True, check=True).stdout
        assert arithmetic[:2] == b"\xff\xd8" and arithmetic != data
        original = next(case for case in corpus.jpeg_cases if case["file"] == f"jpeg/{name}.jpg")
        corpus.add_jpeg_data(f"{name}-arithmetic", arithmetic, {
            "progressive": original["progressive"], "subsampling": original["subsampling"],
            "huffmanCoded": f"jpeg/{name}.jpg"})


def exif_bytes(tags):
    exif = Image.Exif()
    for tag, value in tags.items():
        exif[tag] = value
    return exif.tobytes()


# The inverse of what `ImageOps.exif_transpose` applies for each tag: it turns the upright
# photo into the one to store (6 and 8 swap; the others undo themselves).
UNDO = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
        4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
        6: Image.Transpose.ROTATE_90, 7: Image.Transpose.TRANSVERSE,
        8: Image.Transpose.ROTATE_270}


def raw_profile(exif):
    """ImageMagick's `Raw profile type exif` text: name, byte count, then hex in lines of 72."""
    digits = exif.hex()
    lines = "\n".join(digits[i:i + 72] for i in range(0, len(digits), 72))
    return f"\nexif\n{len(exif):8d}\n{lines}\n".encode()


def tiff_block(big_endian, entries, ifd_offset=8, magic=42, order=None):
    """`Exif\\0\\0` and a TIFF block whose IFD0 holds `entries` (tag, type, count, value
    bytes)."""
    endian = ">" if big_endian else "<"
    head = (order or (b"MM" if big_endian else b"II")) + struct.pack(endian + "HI", magic,
                                                                       ifd_offset)
    body = struct.pack(endian + "H", len(entries))
    for tag, kind, count, value in entries:
        body += struct.pack(endian + "HHI", tag, kind, count) + value.ljust(4, b"\0")
    return b"Exif\0\0" + head + b"\0" * (ifd_offset - 8) + body + struct.pack(endian + "I", 0)


def short(value, big_endian=False):
    return struct.pack(">H" if big_endian else "<H", value)


def orientation_cases(corpus, source):
    upright = source.resize((96, 64), Image.Resampling.LANCZOS)

    def add(name, value, container, exif, broken=None):
        """`container`: JPEG, PNG (eXIf before IDAT, by Pillow), PNG-late (eXIf after IDAT) or
        PNG-text (ImageMagick's raw profile)."""
        stored = upright.transpose(UNDO[value]) if value in UNDO and not broken else upright
        buffer = io.BytesIO()
        if container == "JPEG":
            stored.save(buffer, "JPEG", quality=95, subsampling=0,
                        **({"exif": exif} if exif is not None else {}))
            data = buffer.getvalue()
        elif container == "PNG":
            stored.save(buffer, "PNG", **({"exif": exif} if exif is not None else {}))
            data = buffer.getvalue()
        else:
            samples = np.asarray(stored, dtype=np.uint32)
            extra = (png_chunk(b"eXIf", exif[6:]) if container == "PNG-late"
                     else png_chunk(b"tEXt", b"Raw profile type exif\0" + raw_profile(exif)))
            data = encode_png(samples, 2, 8, strategy="paeth", after_idat=[extra])
        relative = f"orientation/{name}.{'jpg' if container == 'JPEG' else 'png'}"
        corpus.write(relative, data)
        with warnings.catch_warnings():
            # Pillow warns about the broken blocks below as it reads the JPEG's resolution.
            warnings.filterwarnings("ignore", "Corrupt EXIF data", UserWarning)
            decoded = Image.open(io.BytesIO(data))
            decoded.load()
        case = {"file": relative, "width": upright.width, "height": upright.height,
                "lossless": container != "JPEG"}
        if broken:
            # Nothing to turn: the reference is the stored pixels.
            turned = decoded.convert("RGB")
            case.update(exifOrientation=None, orientation=1, broken=broken)
        else:
            tag = decoded.getexif().get(0x0112)
            if value is not None and exif is not None:
                assert tag == value, f"Pillow reads {tag} from {name}, not {value}"
            turned = ImageOps.exif_transpose(decoded).convert("RGB")
            case.update(exifOrientation=tag, orientation=value if value in range(1, 9) else 1)
        assert turned.size == upright.size, f"{name}: {turned.size}"
        reference = f"orientation/{name}.upright.npy"
        save_npy(corpus.out / reference, np.asarray(turned), np.uint8)
        case["reference"] = reference
        corpus.orientation_cases.append(case)

    for value in range(1, 9):
        add(f"jpeg-orientation-{value}", value, "JPEG",
            exif_bytes({0x0112: value, 0x0131: "decoding_corpus.py"}))
        add(f"png-orientation-{value}", value, "PNG", exif_bytes({0x0112: value}))
    for value in (3, 6, 8):
        add(f"jpeg-big-endian-orientation-{value}", value, "JPEG",
            tiff_block(True, [(0x010F, 2, 4, b"VC\0\0"), (0x0112, 3, 1, short(value, True))]))
    add("jpeg-orientation-6-as-long", 6, "JPEG",
        tiff_block(False, [(0x0112, 4, 1, struct.pack("<I", 6))]))
    add("png-orientation-8-after-idat", 8, "PNG-late", exif_bytes({0x0112: 8}))
    for value in (3, 6):
        add(f"png-raw-profile-orientation-{value}", value, "PNG-text", exif_bytes({0x0112: value}))
    add("jpeg-no-exif", None, "JPEG", None)
    add("png-no-exif", None, "PNG", None)
    add("jpeg-exif-without-orientation", None, "JPEG", exif_bytes({0x010F: "VisionCatalog"}))
    for value in (0, 9, 65535):
        add(f"jpeg-invalid-orientation-{value}", value, "JPEG", exif_bytes({0x0112: value}))

    # Broken EXIF blocks: the image decodes as stored and no orientation is read from them.
    six = (0x0112, 3, 1, short(6))
    for name, description, block in [
            ("bad-byte-order", "byte order `XX`", tiff_block(False, [six], order=b"XX")),
            ("bad-magic", "TIFF magic 43 instead of 42", tiff_block(False, [six], magic=43)),
            ("ifd-past-end", "IFD0's offset past the block's end",
             tiff_block(True, [six])[:10] + struct.pack(">I", 4000) + tiff_block(True, [six])[14:]),
            ("ifd-count-too-large", "IFD0 claims 200 entries and holds one",
             tiff_block(False, [six])[:14] + short(200) + tiff_block(False, [six])[16:]),
            ("empty-tiff", "`Exif\\0\\0` with no TIFF block", b"Exif\0\0"),
            ("cut-in-entry", "the block ends inside the Orientation entry",
             tiff_block(False, [six])[:6 + 8 + 2 + 6]),
            ("orientation-count-0", "an Orientation entry of count 0",
             tiff_block(False, [(0x0112, 3, 0, short(6))])),
            ("orientation-ascii", "an Orientation entry of type ASCII holding `6`",
             tiff_block(False, [(0x0112, 2, 2, b"6\0")])),
            ("orientation-in-ifd1-only", "Orientation 6 in IFD1 (the thumbnail's) only",
             tiff_block(False, [(0x010F, 2, 4, b"VC\0\0")])[:-4] + struct.pack("<I", 26)
             + short(1) + struct.pack("<HHI", 0x0112, 3, 1) + short(6) + b"\0\0"
             + struct.pack("<I", 0))]:
        add(f"jpeg-broken-exif-{name}", None, "JPEG", block, broken=description)


def png_chunks(data):
    """The chunks of a PNG as (offset, type, payload)."""
    chunks = []
    offset = 8
    while offset + 12 <= len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        chunks.append((offset, data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]))
        offset += 12 + length
    return chunks


def rebuild(chunks):
    return SIGNATURE + b"".join(png_chunk(kind, payload) for kind, payload in chunks)


def malformed_png(corpus):
    rgb, rgb_reference = corpus.valid_png["rgb8-filter-paeth"]
    palette, _ = corpus.valid_png["ct3-4bit-trns-plain"]
    adam7, _ = corpus.valid_png["ct6-16bit-adam7"]
    source = "png/rgb8-filter-paeth.png"
    chunks = [(kind, payload) for _, kind, payload in png_chunks(rgb)]
    idat_offset = next(offset for offset, kind, _ in png_chunks(rgb) if kind == b"IDAT")
    iend_offset = len(rgb) - 12

    def add(name, damage, data, expect, origin=source, **details):
        corpus.add_malformed(f"{name}.png", origin, damage, data, expect, **details)

    # Truncation, from the first 4 bytes (enough to tell a PNG) to inside IEND.
    for name, end in [("truncated-in-signature", 4), ("truncated-after-signature", 8),
                      ("truncated-in-ihdr", 20), ("truncated-after-ihdr", 33),
                      ("truncated-in-idat-header", idat_offset + 5),
                      ("truncated-in-idat-start", idat_offset + 40),
                      ("truncated-in-idat-middle", (idat_offset + iend_offset) // 2),
                      ("truncated-before-idat-crc", iend_offset - 4),
                      ("truncated-before-iend", iend_offset),
                      ("truncated-in-iend", iend_offset + 6)]:
        add(name, f"cut at byte {end} of {len(rgb)}", rgb[:end], "truncated")
    end = len(palette) * 2 // 3
    add("truncated-palette-in-idat", f"cut at byte {end} of {len(palette)}", palette[:end],
        "truncated", origin="png/ct3-4bit-trns-plain.png")
    add("truncated-adam7-in-pass-5", f"cut at byte {len(adam7) * 3 // 4} of {len(adam7)}",
        adam7[: len(adam7) * 3 // 4], "truncated", origin="png/ct6-16bit-adam7.png")

    # Flipped CRC bytes: fatal on a critical chunk, skipped with the chunk on an ancillary one.
    def flip_crc(data, chunk_type, which=0):
        found = [(offset, payload) for offset, kind, payload in png_chunks(data)
                 if kind == chunk_type][which]
        position = found[0] + 8 + len(found[1])
        damaged = bytearray(data)
        damaged[position + 2] ^= 0x5A
        return bytes(damaged)

    add("bad-crc-ihdr", "IHDR's CRC changed", flip_crc(rgb, b"IHDR"), "corrupt")
    add("bad-crc-idat", "the IDAT's CRC changed", flip_crc(rgb, b"IDAT"), "corrupt")
    add("bad-crc-iend", "IEND's CRC changed", flip_crc(rgb, b"IEND"), "corrupt")
    add("bad-crc-plte", "PLTE's CRC changed", flip_crc(palette, b"PLTE"), "corrupt",
        origin="png/ct3-4bit-trns-plain.png")
    split, _ = corpus.valid_png["rgba8-idat-7-pieces"]
    add("bad-crc-last-idat", "the last of 7 IDATs' CRC changed",
        flip_crc(split, b"IDAT", which=6), "corrupt", origin="png/rgba8-idat-7-pieces.png")
    ancillary, ancillary_reference = corpus.valid_png["rgb8-ancillary-chunks"]
    add("bad-crc-text", "a tEXt chunk's CRC changed (ancillary: skipped)",
        flip_crc(ancillary, b"tEXt"), "decodes", origin="png/rgb8-ancillary-chunks.png",
        reference=ancillary_reference)
    add("bad-crc-text-after-idat", "the tEXt after the IDAT has a changed CRC (skipped)",
        flip_crc(ancillary, b"tEXt", which=1), "decodes", origin="png/rgb8-ancillary-chunks.png",
        reference=ancillary_reference)
    damaged = bytearray(rgb)
    damaged[idat_offset + 30] ^= 0x10
    add("damaged-idat-byte", "a byte inside the IDAT changed (so its CRC no longer matches)",
        bytes(damaged), "corrupt")

    # Damaged headers, with the CRC made right again so that the values themselves are read.
    ihdr = chunks[0][1]

    def with_header(name, damage, header, expect):
        add(name, damage, rebuild([(b"IHDR", header)] + chunks[1:]), expect)

    width, height = struct.unpack(">II", ihdr[:8])
    for name, damage, header in [
            ("ihdr-width-0", "width 0", struct.pack(">I", 0) + ihdr[4:]),
            ("ihdr-height-0", "height 0", ihdr[:4] + struct.pack(">I", 0) + ihdr[8:]),
            ("ihdr-width-2-31", "width 2^31", struct.pack(">I", 1 << 31) + ihdr[4:]),
            ("ihdr-color-type-1", "colour type 1", ihdr[:9] + b"\x01" + ihdr[10:]),
            ("ihdr-color-type-5", "colour type 5", ihdr[:9] + b"\x05" + ihdr[10:]),
            ("ihdr-color-type-7", "colour type 7", ihdr[:9] + b"\x07" + ihdr[10:]),
            ("ihdr-rgb-bit-depth-4", "RGB at 4 bits", ihdr[:8] + b"\x04" + ihdr[9:]),
            ("ihdr-bit-depth-3", "bit depth 3", ihdr[:8] + b"\x03" + ihdr[9:]),
            ("ihdr-bit-depth-0", "bit depth 0", ihdr[:8] + b"\x00" + ihdr[9:]),
            ("ihdr-compression-1", "compression method 1", ihdr[:10] + b"\x01" + ihdr[11:]),
            ("ihdr-filter-method-1", "filter method 1", ihdr[:11] + b"\x01" + ihdr[12:]),
            ("ihdr-interlace-2", "interlace method 2", ihdr[:12] + b"\x02"),
            ("ihdr-short", "IHDR of 12 bytes", ihdr[:12]),
            ("ihdr-long", "IHDR of 14 bytes", ihdr + b"\0")]:
        with_header(name, damage, header, "corrupt")
    with_header("ihdr-taller-than-the-data", f"height {height + 5} for {height} rows of data",
                ihdr[:4] + struct.pack(">I", height + 5) + ihdr[8:], "corrupt")
    with_header("ihdr-huge", "65535 x 65535 pixels, above the decoder's pixel limit",
                struct.pack(">II", 65535, 65535) + ihdr[8:], "limitExceeded")
    add("bad-signature", "the signature's last byte changed",
        rgb[:7] + b"\x0b" + rgb[8:], "corrupt")
    palette_chunks = [(kind, payload) for _, kind, payload in png_chunks(palette)]
    ihdr_palette = palette_chunks[0][1]
    add("palette-bit-depth-16", "a palette image at 16 bits",
        rebuild([(b"IHDR", ihdr_palette[:8] + b"\x10" + ihdr_palette[9:])] + palette_chunks[1:]),
        "corrupt", origin="png/ct3-4bit-trns-plain.png")

    # Chunk lengths that do not fit.
    def with_length(name, damage, offset, length, expect):
        damaged = bytearray(rgb)
        damaged[offset:offset + 4] = struct.pack(">I", length)
        add(name, damage, bytes(damaged), expect)

    idat_length = struct.unpack(">I", rgb[idat_offset:idat_offset + 4])[0]
    with_length("idat-length-past-end", "the IDAT's length 1000 bytes past the file's end",
                idat_offset, idat_length + 1000, "truncated")
    with_length("idat-length-2-31", "an IDAT length of 2^31 (beyond PNG's 2^31 - 1)",
                idat_offset, 1 << 31, "corrupt")
    with_length("idat-length-ffffffff", "an IDAT length of 0xFFFFFFFF", idat_offset,
                0xFFFF_FFFF, "corrupt")
    with_length("idat-length-short", "the IDAT's length 1 byte short", idat_offset,
                idat_length - 1, "corrupt")
    with_length("ihdr-length-0", "IHDR's length 0", 8, 0, "corrupt")
    with_length("iend-length-8", "IEND's length 8", iend_offset, 8, "truncated")

    # Missing, repeated or misplaced chunks.
    no_idat = [(k, p) for k, p in chunks if k != b"IDAT"]
    add("no-idat", "every IDAT removed", rebuild(no_idat), "corrupt")
    add("no-ihdr", "IHDR removed", rebuild(chunks[1:]), "corrupt")
    add("idat-before-ihdr", "IDAT moved before IHDR",
        rebuild([chunks[1], chunks[0]] + chunks[2:]), "corrupt")
    add("two-ihdr", "IHDR twice", rebuild([chunks[0], chunks[0]] + chunks[1:]), "corrupt")
    add("no-plte", "a palette image without PLTE",
        rebuild([(k, p) for k, p in palette_chunks if k != b"PLTE"]), "corrupt",
        origin="png/ct3-4bit-trns-plain.png")
    add("unknown-critical-chunk", "a critical chunk `QUUX` before IDAT",
        rebuild([chunks[0], (b"QUUX", b"\1\2\3")] + chunks[1:]), "corrupt")
    add("chunk-type-not-letters", "a chunk named `1234` before IDAT",
        rebuild([chunks[0], (b"1234", b"")] + chunks[1:]), "corrupt")

    # Compressed data that is damaged but sits in chunks with good CRCs.
    stream = b"".join(p for k, p in chunks if k == b"IDAT")
    raw = zlib.decompress(stream)
    others = [(k, p) for k, p in chunks if k not in (b"IDAT", b"IEND")]

    def with_stream(name, damage, new_stream, expect):
        add(name, damage, rebuild(others + [(b"IDAT", new_stream), (b"IEND", b"")]), expect)

    with_stream("zlib-bad-header", "a zlib header whose check bits fail",
                bytes([stream[0], stream[1] ^ 1]) + stream[2:], "corrupt")
    with_stream("zlib-bad-method", "zlib compression method 9", b"\x79" + stream[1:], "corrupt")
    with_stream("zlib-bad-adler", "the zlib stream's Adler-32 changed",
                stream[:-1] + bytes([stream[-1] ^ 0xFF]), "corrupt")
    with_stream("zlib-bad-block-type", "a deflate block of the reserved type 3",
                stream[:2] + b"\x07" + stream[3:], "corrupt")
    row_bytes = width * 3 + 1
    bad_filter = bytearray(raw)
    bad_filter[row_bytes * 2] = 5
    with_stream("filter-type-5", "the third row's filter type 5",
                zlib.compress(bytes(bad_filter), 6), "corrupt")
    with_stream("missing-rows", f"data for {height - 3} of {height} rows",
                zlib.compress(raw[: row_bytes * (height - 3)], 6), "corrupt")
    with_stream("empty-idat", "one empty IDAT", b"", "corrupt")


def malformed_jpeg(corpus):
    baseline, baseline_reference = corpus.valid_jpeg["ycc420-baseline"]
    progressive, _ = corpus.valid_jpeg["ycc420-progressive"]
    restart, _ = corpus.valid_jpeg["ycc420-restart-every-block"]
    source = "jpeg/ycc420-baseline.jpg"

    def add(name, damage, data, expect, origin=source, **details):
        corpus.add_malformed(f"{name}.jpg", origin, damage, data, expect, **details)

    def markers(data):
        """(offset, marker, segment length or 0) of each marker before the first scan's data."""
        found = []
        offset = 2
        while offset + 4 <= len(data):
            assert data[offset] == 0xFF
            marker = data[offset + 1]
            (length,) = struct.unpack(">H", data[offset + 2:offset + 4])
            found.append((offset, marker, length))
            if marker == 0xDA:
                break
            offset += 2 + length
        return found

    segments = markers(baseline)

    def segment(marker):
        return next((offset, length) for offset, m, length in segments if m == marker)

    sos_offset, sos_length = segment(0xDA)
    scan_start = sos_offset + 2 + sos_length
    # Two bytes are too few to tell a JPEG (a JPEG starts FF D8 FF).
    add("truncated-after-soi", "the first 2 bytes only", baseline[:2], "unknownFormat")
    dqt_offset, _ = segment(0xDB)
    add("truncated-in-dqt", f"cut at byte {dqt_offset + 20}", baseline[:dqt_offset + 20],
        "truncated")
    # Cut after the first SOS header, the size is known and a lenient decoder gives the rows
    # it has (the rest grey).
    add("truncated-after-sos", f"cut right after the SOS header, at byte {scan_start}",
        baseline[:scan_start], "truncated", decodesWhenLenient=True)
    for fraction in (4, 2):
        end = scan_start + (len(baseline) - scan_start) // fraction
        add(f"truncated-in-scan-1-of-{fraction}", f"cut at byte {end} of {len(baseline)}",
            baseline[:end], "truncated", decodesWhenLenient=True)
    add("truncated-before-eoi", "the EOI marker removed", baseline[:-2], "truncated",
        decodesWhenLenient=True)
    progressive_scans = [i for i in range(len(progressive) - 1)
                         if progressive[i] == 0xFF and progressive[i + 1] == 0xDA]
    end = progressive_scans[3]
    add("truncated-progressive-after-3-scans", f"cut before the 4th of "
        f"{len(progressive_scans)} scans", progressive[:end], "truncated",
        origin="jpeg/ycc420-progressive.jpg", decodesWhenLenient=True)
    add("truncated-restart-intervals", "cut in the middle of the scan",
        restart[: len(restart) * 2 // 3], "truncated", origin="jpeg/ycc420-restart-every-block.jpg",
        decodesWhenLenient=True)

    def patched(offset, replacement, data=baseline):
        return data[:offset] + replacement + data[offset + len(replacement):]

    add("no-soi", "the SOI marker replaced by EOI", patched(0, b"\xff\xd9"), "unknownFormat")
    sof_offset, _ = segment(0xC0)
    # SOF0: length(2) precision(1) height(2) width(2) components(1) then 3 bytes per component.
    fields = sof_offset + 4
    add("sof-height-0", "SOF height 0 (a DNL marker would be needed)",
        patched(fields + 1, b"\0\0"), "corrupt")
    add("sof-width-0", "SOF width 0", patched(fields + 3, b"\0\0"), "corrupt")
    add("sof-precision-12", "SOF0 with 12-bit precision", patched(fields, b"\x0c"), "unsupported",
        message="8-bit")
    add("sof-precision-7", "SOF0 with 7-bit precision", patched(fields, b"\x07"), "corrupt")
    # Frame types libjpeg-turbo 2.1's 8-bit API does not decode, named in the message.
    for marker, kind in [(0xC3, "lossless"), (0xC7, "lossless"), (0xCB, "lossless"),
                         (0xC5, "hierarchical")]:
        add(f"{kind}-sof{marker - 0xC0}", f"the frame marked SOF{marker - 0xC0} ({kind})",
            patched(sof_offset + 1, bytes([marker])), "unsupported", message=kind)
    add("sof-sampling-0", "the first component's sampling factors 0x0",
        patched(fields + 7, b"\x00"), "corrupt")
    add("sof-sampling-5", "the first component's sampling factors 5x5",
        patched(fields + 7, b"\x55"), "corrupt")
    add("sof-quant-table-9", "the first component uses quantization table 9",
        patched(fields + 8, b"\x09"), "corrupt")
    add("sof-length-short", "SOF's length 2 bytes short", patched(sof_offset + 2,
        struct.pack(">H", struct.unpack(">H", baseline[sof_offset + 2:sof_offset + 4])[0] - 2)),
        "corrupt")
    add("sof-2-components", "SOF with 2 components (unknown colour space)",
        patched(fields + 5, b"\x02"), "corrupt")
    add("dqt-table-id-7", "a DQT for table 7", patched(dqt_offset + 4, b"\x07"), "corrupt")
    dht_offset, _ = segment(0xC4)
    add("dht-counts-overflow", "a Huffman table with more than 256 codes",
        patched(dht_offset + 5, b"\xff" * 16), "corrupt")
    add("dht-table-class-2", "a Huffman table of class 2", patched(dht_offset + 4, b"\x20"),
        "corrupt")
    # SOS: length(2) count(1) then (component id, tables) pairs.
    add("sos-undefined-huffman-table", "the scan's first component uses Huffman table 3",
        patched(sos_offset + 6, b"\x33"), "corrupt")
    add("sos-unknown-component", "the scan names component 9", patched(sos_offset + 5, b"\x09"),
        "corrupt")
    add("sos-0-components", "a scan with no components", patched(sos_offset + 4, b"\x00"),
        "corrupt")
    app_offset, _ = segment(0xE0)
    add("app0-length-past-end", "APP0's length past the end of the file",
        patched(app_offset + 2, b"\xff\xf0"), "truncated")
    no_sof = baseline[:sof_offset] + baseline[sof_offset + 2 + struct.unpack(
        ">H", baseline[sof_offset + 2:sof_offset + 4])[0]:]
    add("no-sof", "the SOF segment removed", no_sof, "corrupt")

    # Damage libjpeg only warns about: the image still decodes, as in other readers. A bad APP0
    # length leaves the JFIF bytes as junk before the next marker; without DHT the standard
    # tables (the ones Pillow wrote) apply; the bytes after EOI are never read.
    add("app0-length-1", "APP0's length 1", patched(app_offset + 2, b"\x00\x01"), "decodes",
        reference=baseline_reference)
    add("no-dht", "the Huffman tables removed (they were the standard ones)",
        baseline[:2] + b"".join(baseline[o:o + 2 + n] for o, m, n in segments
                                if m not in (0xC4, 0xDA))
        + baseline[sos_offset:], "decodes", reference=baseline_reference)
    damaged = bytearray(baseline)
    for position in range(scan_start + 200, len(baseline) - 400, 997):
        damaged[position] ^= 0x33
    add("damaged-scan-data", "bytes changed inside the entropy-coded data (libjpeg warns)",
        bytes(damaged), "decodes")
    restart_markers = [i for i in range(len(restart) - 1)
                       if restart[i] == 0xFF and 0xD0 <= restart[i + 1] <= 0xD7]
    wrong = bytearray(restart)
    wrong[restart_markers[10] + 1] = 0xD0 + (restart[restart_markers[10] + 1] - 0xD0 + 3) % 8
    add("wrong-restart-number", "a restart marker out of sequence (libjpeg resynchronizes)",
        bytes(wrong), "decodes", origin="jpeg/ycc420-restart-every-block.jpg")
    add("garbage-after-eoi", "bytes after the EOI marker", baseline + b"\0garbage" * 8,
        "decodes", reference=baseline_reference)


def main():
    source = Image.open(sys.argv[1]).convert("RGB")
    out = pathlib.Path(sys.argv[2]).resolve()
    if out.exists() and any(out.iterdir()) and not (out / "manifest.json").exists():
        sys.exit(f"decoding_corpus.py: {out} holds files but no manifest.json; not replacing it")
    # Written beside and swapped in whole, so no file of an older layout lingers and an
    # interrupted run leaves the previous corpus.
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    corpus = Corpus(partial)
    png_cases(corpus)
    photo_cases(corpus, source)
    orientation_cases(corpus, source)
    malformed_png(corpus)
    malformed_jpeg(corpus)
    manifest = corpus.manifest()
    (partial / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    partial.rename(out)
    counts = ", ".join(f"{len(cases)} {kind}" for kind, cases in manifest.items())
    print(f"decoding corpus in {out}: {counts}")


if __name__ == "__main__":
    main()
