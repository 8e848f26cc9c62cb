"""Writes synthetic phone photos of barcodes with known contents for the barcode reader (issue 42).

Why: the committed sample photos (Tests/BarcodesTests/Photos) are few and small; these cover every
symbology the reader must read, at every size up to 12 MP, upright through EXIF, and the inputs it
must refuse (no code, a faked EAN-13 with a wrong check digit, a code cut off by the frame).

How: zxing-cpp's writer renders each code (a hand-drawn EAN-13 for the fakes, which writers
refuse); it is printed on a label on a product-like panel, wrapped on a can for some, warped in
perspective and rotated (±15°, some at 90° or 180°) onto a background photo from scikit-image,
then lit unevenly, blurred, given sensor noise and saved as JPEG (quality 75-92), some with an
EXIF orientation whose stored pixels are turned so that the upright view is right.
Deterministic: a fixed seed, and each photo draws from its own generator, so the two worker
processes give the same files on every run.

Usage: generate.py OUT
Writes OUT/*.jpg, OUT/expected.json ({file: [{"format", "text", "gtin"}]}; empty for negatives;
gtin is the GTIN-14 or null) and OUT/positions.json ({file: [four [x, y] corners of each code's
bars in the upright photo, in expected.json's order]}).
"""

import colorsys
import json
import math
import multiprocessing
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import skimage.data
import zxingcpp
from PIL import Image, ImageDraw, ImageFilter, ImageFont
from scipy.ndimage import uniform_filter1d

import gs1

SEED = 42
TWELVE_MP = ((4032, 3024), (3024, 4032))
SIZES = ((640, 480), (800, 600), (1024, 768), (1280, 720), (1280, 960), (1600, 1200),
         (1920, 1080), (2048, 1536), (2592, 1944), (3264, 2448))
WORDS = ("ORGANIC", "Crunchy", "Oat Bites", "Net wt 500 g", "Best before", "Keep dry",
         "Ingredients", "wholegrain oats, sugar, salt", "Produced in EU", "Recycle me",
         "Nutrition facts", "Energy 1580 kJ", "Serving size 30 g", "Lot", "Premium", "Classic",
         "Tomato", "Basil", "Dark roast", "Sparkling", "Shampoo 250 ml", "Since 1926")
BACKGROUNDS = ("astronaut", "chelsea", "coffee", "rocket", "immunohistochemistry",
               "stereo_motorcycle", "hubble_deep_field", "brick", "gravel", "grass", "camera")


@dataclass
class Code:
    writer: str  # zxingcpp.BarcodeFormat member, or "FakeEAN13" (drawn here)
    content: str
    expected: dict  # {"format", "text", "gtin"}
    options: dict = field(default_factory=dict)
    hrt: str = ""  # printed under (or beside) the code


@dataclass
class Photo:
    name: str
    size: tuple  # upright width, height
    exif: int  # EXIF orientation of the stored file
    codes: list  # [[Code, ...] per product face]
    scene: str = "plain"  # plain, cutoff, stripes, empty


def make_gtin(rng, prefix, length):
    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - 1 - len(prefix)))
    return body + gs1.check_digit(body)


def ean13(rng):
    prefix = rng.choice(("400", "401", "426", "50", "54", "590", "76", "80", "84", "87", "90", "93",
                         "978", "3"))
    return make_gtin(rng, prefix, 13)


def upce(rng):
    # Zero suppression keeps the expansion unambiguous: the digit before the zeros is not 0
    # (or, for a 3, not 0-2); writers refuse the rest.
    while True:
        six = "".join(rng.choice("0123456789") for _ in range(6))
        last = six[5]
        if ((last in "012") or (last == "3" and six[2] not in "012")
                or (last == "4" and six[3] != "0") or (last in "56789" and six[4] != "0")):
            break
    upca = gs1.upce_to_upca("0" + six + "0")[:-1]
    return "0" + six + gs1.check_digit(upca)


def element_string(rng, gtin):
    date = f"{rng.randint(25, 30)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
    lot = "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ0123456789") for _ in range(rng.randint(3, 8)))
    extra = rng.choice((f"(17){date}(10){lot}", f"(15){date}", f"(10){lot}",
                        f"(3103){rng.randint(100, 9999):06d}(17){date}"))
    return f"(01){gtin}{extra}"


def code_for(kind, rng):
    """One Code of `kind` with fresh contents."""
    if kind == "ean13":
        text = ean13(rng)
        return Code("EAN13", text, {"format": "EAN-13", "text": text, "gtin": "0" + text},
                    hrt=f"{text[0]}  {text[1:7]}  {text[7:]}")
    if kind == "ean8":
        text = make_gtin(rng, rng.choice(("40", "50", "87", "96", "20")), 8)
        return Code("EAN8", text, {"format": "EAN-8", "text": text, "gtin": text.zfill(14)},
                    hrt=f"{text[:4]}  {text[4:]}")
    if kind == "upca":
        text = make_gtin(rng, rng.choice(("0", "0", "1", "6", "7", "8")), 12)
        return Code("UPCA", text, {"format": "UPC-A", "text": text, "gtin": "00" + text},
                    hrt=f"{text[0]}  {text[1:6]}  {text[6:11]}  {text[11]}")
    if kind == "upce":
        text = upce(rng)
        return Code("UPCE", text, {"format": "UPC-E", "text": text,
                                   "gtin": "00" + gs1.upce_to_upca(text)},
                    hrt=f"{text[0]} {text[1:7]} {text[7]}")
    if kind == "gs1-128":
        text = element_string(rng, make_gtin(rng, rng.choice("01"), 14))
        return Code("Code128", text, {"format": "Code128", "text": text,
                                      "gtin": gs1.gtin_from_element_strings(text)},
                    {"gs1": True}, hrt=text)
    if kind == "code128-plain":
        text = f"{rng.choice(('SN', 'PO', 'WB'))}-{rng.randint(10000, 99999)}-{rng.choice('ABCXYZ')}"
        return Code("Code128", text, {"format": "Code128", "text": text, "gtin": None}, hrt=text)
    if kind == "itf14":
        text = make_gtin(rng, rng.choice("12345678") + ean13(rng)[:-1], 14)
        return Code("ITF14", text, {"format": "ITF", "text": text, "gtin": text},
                    hrt=f"{text[0]} {text[1:3]} {text[3:8]} {text[8:13]} {text[13]}")
    if kind == "itf14-wrong-check":
        good = make_gtin(rng, rng.choice("12345678") + ean13(rng)[:-1], 14)
        text = good[:-1] + str((int(good[-1]) + rng.randint(1, 9)) % 10)
        return Code("ITF", text, {"format": "ITF", "text": text, "gtin": None}, hrt=text)
    if kind == "databar":
        gtin = make_gtin(rng, rng.choice("01"), 14)
        text = f"(01){gtin}"
        return Code("DataBarOmni", text, {"format": "DataBar", "text": text, "gtin": gtin}, hrt=text)
    if kind == "databar-expanded":
        text = element_string(rng, make_gtin(rng, "0", 14))
        return Code("DataBarExp", text, {"format": "DataBarExpanded", "text": text,
                                         "gtin": gs1.gtin_from_element_strings(text)}, hrt=text)
    if kind == "qr-digital-link":
        gtin = make_gtin(rng, "0", 14)
        text = f"https://id.gs1.org/01/{gtin}/10/ABC"
        return Code("QRCode", text, {"format": "QRCode", "text": text, "gtin": gtin},
                    hrt="Scan for product info")
    if kind == "qr-url":
        # Some plain URLs carry a /01/ segment with a wrong check digit: not a GTIN.
        if rng.random() < 0.25:
            good = make_gtin(rng, "0", 14)
            number = good[:-1] + str((int(good[-1]) + 5) % 10)
            text = f"https://shop.example.com/01/{number}"
        else:
            section = rng.choice(("recipes", "recycling", "offers"))
            text = f"https://www.example.com/{section}/{rng.randint(100, 99999)}"
        return Code("QRCode", text, {"format": "QRCode", "text": text, "gtin": None},
                    hrt=rng.choice(("Scan me", "More recipes online", "")))
    if kind == "datamatrix-gs1":
        text = element_string(rng, make_gtin(rng, "0", 14)) + f"(21){rng.randint(10**7, 10**9)}"
        return Code("DataMatrix", text, {"format": "DataMatrix", "text": text,
                                         "gtin": gs1.gtin_from_element_strings(text)},
                    {"gs1": True, "forceSquare": True}, hrt=text)
    if kind == "datamatrix-plain":
        text = f"SN{rng.randint(10**9, 10**10)}"
        return Code("DataMatrix", text, {"format": "DataMatrix", "text": text, "gtin": None},
                    {"forceSquare": True}, hrt=text)
    if kind == "fake-ean13":
        good = ean13(rng)
        text = good[:-1] + str((int(good[-1]) + rng.randint(1, 9)) % 10)
        return Code("FakeEAN13", text, {}, hrt=f"{text[0]}  {text[1:7]}  {text[7:]}")
    raise ValueError(kind)


# Kinds and counts: each photo's name is KIND-NNN.jpg; one product face each unless said.
PLAN = (("ean13", 20), ("ean8", 10), ("upca", 14), ("upce", 10), ("gs1-128", 12),
        ("code128-plain", 3), ("itf14", 10), ("itf14-wrong-check", 2), ("databar", 8),
        ("databar-expanded", 8), ("qr-digital-link", 12), ("qr-url", 8), ("datamatrix-gs1", 10),
        ("datamatrix-plain", 3), ("multi-ean13-qr", 4), ("multi-two-products", 3),
        ("negative-none", 8), ("negative-stripes", 4), ("negative-fake-ean13", 8),
        ("negative-cutoff-ean13", 4), ("negative-cutoff-upca", 2), ("negative-cutoff-qr", 2))


def plan_photos():
    rng = random.Random(SEED)
    photos = []
    for kind, count in PLAN:
        for number in range(1, count + 1):
            index = len(photos)
            if index % 5 == 0:
                size = TWELVE_MP[(index // 5) % 2]
            else:
                size = rng.choice(SIZES)
                if rng.random() < 0.3:
                    size = size[::-1]
            portrait = size[1] > size[0]
            roll = rng.random()
            exif = (6 if portrait and roll < 0.6 else 8 if portrait and roll < 0.7
                    else 3 if not portrait and roll < 0.05 else 1)
            scene = "plain"
            if kind == "multi-ean13-qr":
                gtin_code = code_for("ean13", rng)
                link = f"https://id.gs1.org/01/{gtin_code.expected['gtin']}/10/ABC"
                qr = Code("QRCode", link, {"format": "QRCode", "text": link,
                                           "gtin": gtin_code.expected["gtin"]}, hrt="Scan me")
                faces = [[gtin_code, qr]]
            elif kind == "multi-two-products":
                faces = [[code_for("ean13", rng)], [code_for(rng.choice(("ean13", "upca")), rng)]]
            elif kind in ("negative-none", "negative-stripes"):
                faces = [[]] if rng.random() < 0.8 or kind == "negative-stripes" else []
                scene = "stripes" if kind == "negative-stripes" else "empty"
            elif kind == "negative-fake-ean13":
                faces = [[code_for("fake-ean13", rng)]]
            elif kind.startswith("negative-cutoff-"):
                source = {"ean13": "ean13", "upca": "upca", "qr": "qr-digital-link"}[kind[16:]]
                faces = [[code_for(source, rng)]]
                scene = "cutoff"
            else:
                faces = [[code_for(kind, rng)]]
            photos.append(Photo(f"{kind}-{number:03d}.jpg", size, exif, faces, scene))
    return photos


# EAN-13 tables (GS1 General Specifications 5.2.1.2): L-code patterns, G is L reversed and
# inverted, R is L inverted; the first digit picks the L/G parity of the left six.
EAN_L = ("0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011",
         "0110111", "0001011")
EAN_PARITY = ("LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG",
              "LGLGGL", "LGGLGL")


def draw_ean13(text, module):
    """An EAN-13 symbol of the 13 digits `text`, whatever its check digit (0 = bar, 255 = space)."""
    invert = str.maketrans("01", "10")
    bits = "101"
    for digit, parity in zip(text[1:7], EAN_PARITY[int(text[0])]):
        pattern = EAN_L[int(digit)]
        bits += pattern if parity == "L" else pattern.translate(invert)[::-1]
    bits += "01010"
    bits += "".join(EAN_L[int(digit)].translate(invert) for digit in text[7:])
    bits += "101"
    row = np.array([0 if bit == "1" else 255 for bit in "0" * 11 + bits + "0" * 7], np.uint8)
    height = 60
    return np.repeat(np.repeat(row[None, :], height, 0), module, 1).repeat(module, 0)


def code_bitmap(code, module):
    if code.writer == "FakeEAN13":
        return draw_ean13(code.content, module)
    barcode = zxingcpp.create_barcode(code.content, getattr(zxingcpp.BarcodeFormat, code.writer),
                                      **code.options)
    return np.asarray(barcode.to_image(scale=module))


def font(size):
    return ImageFont.load_default(size=max(8, int(size)))


def random_color(rng, saturation=(0.4, 0.9), value=(0.35, 0.95)):
    red, green, blue = colorsys.hsv_to_rgb(rng.random(), rng.uniform(*saturation), rng.uniform(*value))
    return int(red * 255), int(green * 255), int(blue * 255)


def make_label(code, module, rng):
    """The code printed on a light label with its human-readable text; returns (image, bars box)."""
    bitmap = code_bitmap(code, module)
    rows, cols = np.nonzero(bitmap < 128)
    bars = (cols.min(), rows.min(), cols.max() + 1, rows.max() + 1)
    two_d = code.writer in ("QRCode", "DataMatrix")
    size = (7 if two_d else 9) * module
    text_font = font(size)
    margin = int(rng.uniform(0.5, 2.5) * module)
    text_width = text_font.getlength(code.hrt) if code.hrt else 0
    while text_width > bitmap.shape[1] * (1.6 if two_d else 1.0) and size > 8:
        size *= 0.9
        text_font = font(size)
        text_width = text_font.getlength(code.hrt)
    text_height = int(size * 1.3) if code.hrt else 0
    width = max(bitmap.shape[1], int(text_width)) + 2 * margin
    height = bitmap.shape[0] + text_height + 2 * margin
    paper = rng.choice(((255, 255, 255), (250, 248, 240), (245, 240, 215), (235, 235, 235)))
    ink = rng.choice(((0, 0, 0), (20, 20, 30), (15, 25, 70), (50, 30, 20), (10, 50, 25)))
    label = Image.new("RGB", (width, height), paper)
    left = (width - bitmap.shape[1]) // 2
    label.paste(ink, (left, margin), Image.fromarray(255 - bitmap))
    if code.hrt:
        ImageDraw.Draw(label).text((width / 2, margin + bitmap.shape[0] + text_height / 2),
                                   code.hrt, fill=ink, font=text_font, anchor="mm")
    return label, (left + bars[0], margin + bars[1], left + bars[2], margin + bars[3])


def gradient(size, start, end, vertical):
    """A linear blend from `start` to `end` colours (a 2-pixel ramp stretched: fast at 12 MP)."""
    ramp = Image.fromarray(np.array([[start, end]], np.uint8))
    if vertical:
        ramp = ramp.transpose(Image.Transpose.TRANSPOSE)
    return ramp.resize(size, Image.Resampling.BILINEAR)


def make_face(codes, module, scene, compact, rng):
    """A product panel with its labels (`compact`: a narrow margin around them, for two products
    in one photo); returns (image, [bars box per code], group box)."""
    labels = [make_label(code, module, rng) for code in codes]
    gap = 12 * module
    group_w = sum(label.width for label, _ in labels) + gap * max(0, len(labels) - 1)
    group_h = max([label.height for label, _ in labels] or [40 * module])
    if not codes:
        group_w = 120 * module
    width = int(group_w * (rng.uniform(1.1, 1.3) if compact else rng.uniform(1.4, 2.6)))
    height = int(group_h * (rng.uniform(1.6, 2.2) if compact else rng.uniform(2.0, 3.5)))
    face = gradient((width, height), random_color(rng), random_color(rng), rng.random() < 0.5)
    draw = ImageDraw.Draw(face)
    gx = int(rng.uniform(0.1, 0.9) * (width - group_w))
    gy = int(rng.uniform(0.45, 0.9) * (height - group_h))
    for _ in range(rng.randint(1, 4)):
        x, y = rng.uniform(0, width), rng.uniform(0, height)
        r = rng.uniform(0.05, 0.3) * width
        draw.ellipse((x - r, y - r, x + r, y + r), fill=random_color(rng))
    draw.text((width * rng.uniform(0.05, 0.3), height * rng.uniform(0.03, 0.12)), rng.choice(WORDS),
              fill=random_color(rng, value=(0.0, 0.3)) if rng.random() < 0.5 else (255, 255, 255),
              font=font(height * rng.uniform(0.08, 0.14)))
    small = font(max(10, height * 0.025))
    y = height * 0.25
    for _ in range(rng.randint(2, 6)):
        draw.text((width * 0.05, y), " ".join(rng.sample(WORDS, 3)), fill=(20, 20, 20), font=small)
        y += height * 0.04
    if scene == "stripes":
        # Bars in the packaging's decoration: a false-positive trap, no code.
        x = width * rng.uniform(0.1, 0.4)
        top, bottom = height * 0.55, height * rng.uniform(0.75, 0.95)
        while x < width * 0.9:
            w = rng.choice((1, 1, 2, 3, 4)) * module
            draw.rectangle((x, top, x + w, bottom), fill=(25, 25, 25))
            x += w + rng.choice((1, 2, 3, 4)) * module
    boxes = []
    x = gx
    for label, bars in labels:
        y = gy + (group_h - label.height) // 2
        face.paste(label, (x, y))
        boxes.append((bars[0] + x, bars[1] + y, bars[2] + x, bars[3] + y))
        x += label.width + gap
    return face, boxes, (gx, gy, gx + group_w, gy + group_h)


def curve(face, boxes, group, rng):
    """Wraps the face around a can (vertical axis): columns squeeze towards the sides, light falls
    off; returns the new face and a function mapping face x to curved x."""
    width = face.width
    center = (group[0] + group[2]) / 2
    radius = (group[2] - group[0]) / 2 / math.radians(rng.uniform(25, 45))
    limit = min(math.radians(80), max(center, width - center) / radius)
    left, right = center - radius * math.sin(limit), center + radius * math.sin(limit)
    x_out = np.arange(math.ceil(left), math.floor(right), dtype=np.float64)
    theta = np.arcsin(np.clip((x_out - center) / radius, -1, 1))
    source = np.clip(center + radius * theta, 0, width - 1)
    low = np.floor(source).astype(int)
    high = np.minimum(low + 1, width - 1)
    frac = (source - low)[None, :, None]
    pixels = np.asarray(face, np.float32)
    curved = pixels[:, low] * (1 - frac) + pixels[:, high] * frac
    light = 0.55 + 0.45 * np.cos(theta) + 0.35 * np.exp(-((theta - rng.uniform(-0.6, 0.6)) / 0.1) ** 2)
    curved = np.clip(curved * light[None, :, None], 0, 255).astype(np.uint8)
    shift = math.ceil(left)

    def to_curved(x):
        return center + radius * math.sin((x - center) / radius) - shift

    return Image.fromarray(curved), to_curved


def homography(src, dst):
    """Coefficients (a..h) of the projective map src -> dst, 4 point pairs."""
    rows, values = [], []
    for (x, y), (u, v) in zip(src, dst):
        rows.append((x, y, 1, 0, 0, 0, -x * u, -y * u))
        rows.append((0, 0, 0, x, y, 1, -x * v, -y * v))
        values += (u, v)
    return np.linalg.solve(np.array(rows, np.float64), np.array(values, np.float64))


def corners_of(image):
    return [(0, 0), (image.width, 0), (image.width, image.height), (0, image.height)]


def apply(coefficients, x, y):
    a, b, c, d, e, f, g, h = coefficients
    w = g * x + h * y + 1
    return (a * x + b * y + c) / w, (d * x + e * y + f) / w


def background(size, rng):
    name = rng.choice(BACKGROUNDS)
    pixels = getattr(skimage.data, name)()
    if isinstance(pixels, tuple):  # stereo_motorcycle: (left, right, disparity)
        pixels = pixels[0]
    if pixels.ndim == 2:
        tint = np.array(random_color(rng, (0.1, 0.4), (0.6, 1.0)), np.float32) / 255
        pixels = (pixels[..., None] * tint).astype(np.uint8)
    image = Image.fromarray(pixels[..., :3])
    width, height = size
    aspect = width / height
    crop_w = min(image.width, int(image.height * aspect))
    crop_h = int(crop_w / aspect)
    x = rng.randint(0, image.width - crop_w)
    y = rng.randint(0, image.height - crop_h)
    image = image.crop((x, y, x + crop_w, y + crop_h))
    if rng.random() < 0.5:
        image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    # Out of focus: blurred before the upscale, which is cheaper than after it at 12 MP.
    image = image.filter(ImageFilter.GaussianBlur(crop_w / 500))
    return image.resize(size, Image.Resampling.BICUBIC)


def module_pixels(code, size, shrink, rng):
    """Scene pixels per module so the code spans a phone-like share of the frame (times `shrink`
    when two products share it)."""
    two_d = code.writer in ("QRCode", "DataMatrix")
    modules = code_bitmap(code, 1).shape[1]
    share = rng.uniform(0.18, 0.4) if two_d else rng.uniform(0.35, 0.75)
    pixels = share * shrink * min(size) / modules
    return max(pixels, 2.4 if two_d else 1.7)


def place(photo, face_index, face, boxes, group, to_curved, module_scene, module_face, angle, rng,
          taken):
    """Destination quad of the face in the scene such that its codes are in frame (or, for a
    cut-off photo, the code's centre on the frame's edge); returns (coefficients face -> scene,
    quad) or None."""
    width, height = photo.size
    scale = module_scene / module_face
    gx = (to_curved(group[0]) + to_curved(group[2])) / 2
    gy = (group[1] + group[3]) / 2
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    for _ in range(60):
        if photo.scene == "cutoff":
            cx = rng.choice((0, width))
            cy = height * rng.uniform(0.35, 0.65)
        elif len(photo.codes) == 2:
            cx = width * (0.28 + 0.44 * face_index) + width * rng.uniform(-0.05, 0.05)
            cy = height * rng.uniform(0.35, 0.65)
        else:
            cx, cy = width * rng.uniform(0.3, 0.7), height * rng.uniform(0.3, 0.7)
        quad = []
        for x, y in corners_of(face):
            dx, dy = (x - gx) * scale, (y - gy) * scale
            jitter = (rng.uniform(-0.09, 0.09) * face.width * scale,
                      rng.uniform(-0.09, 0.09) * face.height * scale)
            quad.append((cx + cos * dx - sin * dy + jitter[0], cy + sin * dx + cos * dy + jitter[1]))
        forward = homography(corners_of(face), quad)
        corners = [apply(forward, to_curved(x), y) for box in boxes
                   for x, y in ((box[0], box[1]), (box[2], box[1]), (box[2], box[3]), (box[0], box[3]))]
        xs, ys = [p[0] for p in corners], [p[1] for p in corners]
        if photo.scene == "cutoff" or not corners:
            return forward, quad
        margin = 0.03 * min(width, height)
        inside = (min(xs) > margin and max(xs) < width - margin and min(ys) > margin
                  and max(ys) < height - margin)
        # The face is drawn over what came before: it must not cover an earlier face's codes.
        cover = (min(p[0] for p in quad), min(p[1] for p in quad), max(p[0] for p in quad),
                 max(p[1] for p in quad))
        apart = all(cover[2] < other[0] or other[2] < cover[0] or cover[3] < other[1]
                    or other[3] < cover[1] for other in taken)
        if inside and apart:
            taken.append((min(xs), min(ys), max(xs), max(ys)))
            return forward, quad
        scale = max(scale * 0.97, 0.8 * module_scene / module_face)
    return None


def lighting(size, rng):
    """A smooth gain field: a gradient, vignetting, sometimes a highlight or a soft shadow."""
    small = (64, 48) if size[0] >= size[1] else (48, 64)
    y, x = np.mgrid[-1:1:complex(small[1]), -1:1:complex(small[0])].astype(np.float32)
    gain = rng.uniform(0.75, 1.1) * (1 + rng.uniform(-0.3, 0.3) * x + rng.uniform(-0.3, 0.3) * y)
    gain *= 1 - rng.uniform(0, 0.35) * (x * x + y * y) / 2
    if rng.random() < 0.3:
        hx, hy = rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6)
        gain += rng.uniform(0.2, 0.5) * np.exp(-((x - hx) ** 2 + (y - hy) ** 2) / 0.05)
    if rng.random() < 0.25:
        edge = rng.uniform(-0.5, 0.5)
        gain *= 1 - rng.uniform(0.2, 0.45) / (1 + np.exp(-(x * rng.choice((1, -1)) - edge) * 12))
    field = Image.fromarray(gain.astype(np.float32)).resize(size, Image.Resampling.BILINEAR)
    return np.asarray(field)


def render(arguments):
    index, photo, out = arguments
    rng = random.Random(f"{SEED}-{index}")
    noise_rng = np.random.default_rng([SEED, index])
    scene = background(photo.size, rng)
    positions, expected = [], []
    taken = []
    blur_module = None
    for face_index, codes in enumerate(photo.codes):
        shrink = 0.6 if len(photo.codes) == 2 else 1.0
        module_scene = (module_pixels(codes[0], photo.size, shrink, rng) if codes
                        else rng.uniform(2, 6) * min(photo.size) / 640)
        module_face = max(1, round(module_scene))
        face, boxes, group = make_face(codes, module_face, photo.scene, len(photo.codes) == 2, rng)
        to_curved = float
        if codes and codes[0].writer not in ("QRCode", "DataMatrix") and photo.scene != "cutoff" \
                and rng.random() < 0.15:
            face, to_curved = curve(face, boxes, group, rng)
        turn = rng.random()
        angle = rng.uniform(-15, 15)
        if photo.scene != "cutoff" and turn < 0.12:
            angle += rng.choice((90, -90))
        elif photo.scene != "cutoff" and turn < 0.2:
            angle += 180
        elif photo.scene == "cutoff":
            angle = rng.uniform(-8, 8)
        placed = place(photo, face_index, face, boxes, group, to_curved, module_scene, module_face,
                       angle, rng, taken)
        if placed is None:
            raise RuntimeError(f"{photo.name}: no placement keeps the codes in frame")
        forward, quad = placed
        xs, ys = [p[0] for p in quad], [p[1] for p in quad]
        x0, y0 = max(0, int(min(xs))), max(0, int(min(ys)))
        x1, y1 = min(photo.size[0], int(max(xs)) + 1), min(photo.size[1], int(max(ys)) + 1)
        if x1 > x0 and y1 > y0:
            backward = homography([(x - x0, y - y0) for x, y in quad], corners_of(face))
            warped = face.transform((x1 - x0, y1 - y0), Image.Transform.PERSPECTIVE, tuple(backward),
                                    Image.Resampling.BICUBIC)
            mask = Image.new("L", face.size, 255).transform(
                (x1 - x0, y1 - y0), Image.Transform.PERSPECTIVE, tuple(backward),
                Image.Resampling.BILINEAR)
            scene.paste(warped, (x0, y0), mask)
        if photo.scene != "cutoff":
            for code, box in zip(codes, boxes):
                if code.expected:
                    expected.append(code.expected)
                    positions.append([[round(v, 1) for v in apply(forward, to_curved(x), y)]
                                      for x, y in ((box[0], box[1]), (box[2], box[1]),
                                                   (box[2], box[3]), (box[0], box[3]))])
        blur_module = module_scene if blur_module is None else min(blur_module, module_scene)
    pixels = np.asarray(scene, np.float32)
    pixels = pixels * lighting(photo.size, rng)[..., None]
    pixels *= np.array([rng.uniform(0.9, 1.08) for _ in range(3)], np.float32)
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    module = blur_module or 3.0
    image = image.filter(ImageFilter.GaussianBlur(max(0.4, rng.uniform(0.1, 0.4) * module)))
    if rng.random() < 0.08:
        pixels = uniform_filter1d(np.asarray(image), max(2, int(module * rng.uniform(0.3, 0.6))),
                                  axis=rng.choice((0, 1)))
        image = Image.fromarray(pixels)
    # Luminance noise (a phone's denoiser leaves little colour noise).
    sigma = rng.uniform(1.5, 6.0)
    noisy = np.asarray(image, np.float32)
    noise = noise_rng.standard_normal(noisy.shape[:2], dtype=np.float32) * sigma
    noisy = noisy + noise[..., None]
    image = Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8))
    # The stored pixels are the upright ones turned back: a viewer applying the tag shows them upright.
    stored = {1: image, 3: image.transpose(Image.Transpose.ROTATE_180),
              6: image.transpose(Image.Transpose.ROTATE_90),
              8: image.transpose(Image.Transpose.ROTATE_270)}[photo.exif]
    exif = Image.Exif()
    exif[0x0110] = "Synthetic phone"
    if photo.exif != 1:
        exif[0x0112] = photo.exif
    stored.save(out / photo.name, quality=rng.randint(75, 92), exif=exif.tobytes())
    return photo.name, expected, positions


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    photos = plan_photos()
    with multiprocessing.Pool(2) as pool:
        results = pool.map(render, [(index, photo, out) for index, photo in enumerate(photos)],
                           chunksize=1)
    expected = {name: codes for name, codes, _ in results}
    positions = {name: corners for name, _, corners in results}
    (out / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    (out / "positions.json").write_text(json.dumps(positions, sort_keys=True) + "\n")
    print(f"{len(photos)} photos in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
