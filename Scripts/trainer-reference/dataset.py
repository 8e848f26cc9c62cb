"""Picture data sets for the image-classifier trainer's tests, with a scikit-learn reference fit.

From the reference photos in MODELS_DIR/photos (label = file stem; twelve in ../shared/models,
five in its rebuild from PyPI, whose enlarged JPEG is left out) this makes
deterministic augmented variants with Pillow, every random choice drawn from numpy Generators
seeded with SEED: a crop covering 35-90 % of each side (small ones favoured) at a random
position, optional mirror, rotation within +-25 degrees (corners filled with the border colour),
brightness and contrast 0.6-1.4, optional greyscale, optional slight Gaussian blur, then a Lanczos
resize. Variants of one photo resemble each other much more than any other photo, so the small
crops, greyscale and blur are what keep the held-out set from being trivially solved; SEED was
picked among 1-8 (held-out accuracy 0.94-1.0) for one with a few mistakes, cat/chelsea among them.

`dataset.py MODELS_DIR OUTPUT_DIR` writes into OUTPUT_DIR:

    photos/train/<label>/<label>-01.png ... -10.png   ten training variants per label
    photos/test/<label>/<label>-11.png ... -14.png    four held-out variants per label
    photos-reference.json   the reference fit: LogisticRegression(C=1) on EfficientNet-Lite0's
                            pooled features (ONNX Runtime) of the training PNGs, preprocessed
                            exactly as the Swift library does; held-out probabilities per file
    catalog/catalog.json    a catalog shaped like CatalogClient's bundled one: four categories
                            with one product per training photo of their label, two products
                            without a picture and one whose picture is a truncated PNG
    catalog/imgs/<ProductId>.png   the catalog's pictures (served with the OData test servers'
                            --pictures option)

`dataset.py --bench MODELS_DIR OUTPUT_DIR` writes bench-1000/<label>/<label>-001.jpg ... -100.jpg
for the first ten labels (longer side 640 px, JPEG quality 90) and extracts no features.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageEnhance, ImageFilter
from sklearn.linear_model import LogisticRegression

from generate import derived_photos, features

SEED = 1
TRAIN_VARIANTS = 10
TEST_VARIANTS = 4
PHOTO_SIDE = 320
BENCH_LABELS = 10
BENCH_VARIANTS = 100
BENCH_SIDE = 640
BENCH_QUALITY = 90
INPUT_SIDE = 224
CROP_PADDING = 32
# Augmentation. Variants of one photo are easy to tell apart from the other photos' variants, so
# small crops are favoured and blur is frequent: the held-out set is then not trivially solved.
CROP_SMALLEST = 0.35
CROP_LARGEST = 0.9
CROP_SKEW = 3
MAX_ROTATION = 25.0
BLUR_PROBABILITY = 0.5
BLUR_RADIUS = (0.4, 1.6)
GREY_PROBABILITY = 0.25

# Seed streams, so the picture sets do not depend on each other.
PHOTOS_STREAM = 0
BENCH_STREAM = 1

# label -> (category name, product name stem, ProductId stem)
# Labels in both ../shared/models and its rebuild from PyPI (Scripts/reference-models).
CATALOG_LABELS = {
    "coffee": ("Espresso Machines", "Espresso Machine", "COFFEE"),
    "camera": ("Cameras", "Camera", "CAMERA"),
    "chelsea": ("Cats", "Cat", "CAT"),
    "rocket": ("Rockets", "Rocket", "ROCKET"),
}
MAIN_CATEGORY = "Training"
# Products without a usable picture: (ProductId, label of their category, PictureUrl).
EXTRA_PRODUCTS = [
    ("TR-NOPIC-01", "coffee", ""),
    ("TR-NOPIC-02", "chelsea", ""),
    ("TR-BROKEN-01", "rocket", "/imgs/TR-BROKEN-01.png"),
]
BROKEN_BYTES = 100


def load_photos(models: Path) -> dict[str, Image.Image]:
    """The reference photos as RGB images, keyed by label (file stem), in sorted label order."""
    paths = sorted([*models.glob("photos/*.png"), *models.glob("photos/*.jpg")])
    derived = derived_photos(models)
    photos = {}
    for path in [path for path in paths if path.stem not in derived]:
        with Image.open(path) as image:
            photos[path.stem] = image.convert("RGB")
    return dict(sorted(photos.items()))


def border_colour(image: Image.Image) -> tuple[int, int, int]:
    """The mean colour of the image's outermost pixels, used to fill rotated-in corners."""
    pixels = np.asarray(image, dtype=np.float64)
    border = np.concatenate([pixels[0], pixels[-1], pixels[:, 0], pixels[:, -1]])
    return tuple(int(round(value)) for value in border.mean(axis=0))


def side_fraction(rng: np.random.Generator) -> float:
    """A crop's share of one side, 0.35-0.9, small shares favoured (0.35 + 0.55 u^3)."""
    return CROP_SMALLEST + (CROP_LARGEST - CROP_SMALLEST) * rng.random() ** CROP_SKEW


def random_crop(image: Image.Image, rng: np.random.Generator) -> Image.Image:
    """A crop covering 35-90 % of each side at a random position."""
    width, height = image.size
    crop_width = max(1, int(round(width * side_fraction(rng))))
    crop_height = max(1, int(round(height * side_fraction(rng))))
    left = int(rng.integers(0, width - crop_width + 1))
    top = int(rng.integers(0, height - crop_height + 1))
    return image.crop((left, top, left + crop_width, top + crop_height))


def resize_longer_side(image: Image.Image, side: int) -> Image.Image:
    """The image scaled (Lanczos) so that its longer side is `side` pixels."""
    width, height = image.size
    scale = side / max(width, height)
    size = (max(1, int(round(width * scale))), max(1, int(round(height * scale))))
    return image.resize(size, Image.LANCZOS)


def augment(image: Image.Image, rng: np.random.Generator, side: int) -> Image.Image:
    """One random variant of `image`, resized so that its longer side is `side` pixels.

    In order: crop, mirror, rotation, brightness, contrast, greyscale, blur, resize. Every random
    draw is made whether or not its effect applies, so the sequence of draws (and with it every
    later variant) does not depend on earlier outcomes.
    """
    variant = random_crop(image, rng)
    mirror = rng.random() < 0.5
    angle = rng.uniform(-MAX_ROTATION, MAX_ROTATION)
    brightness = rng.uniform(0.6, 1.4)
    contrast = rng.uniform(0.6, 1.4)
    blur = rng.random() < BLUR_PROBABILITY
    radius = rng.uniform(*BLUR_RADIUS)
    grey = rng.random() < GREY_PROBABILITY
    if mirror:
        variant = variant.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    variant = variant.rotate(
        angle, resample=Image.BILINEAR, expand=False, fillcolor=border_colour(variant)
    )
    variant = ImageEnhance.Brightness(variant).enhance(brightness)
    variant = ImageEnhance.Contrast(variant).enhance(contrast)
    if grey:
        variant = variant.convert("L").convert("RGB")
    if blur:
        variant = variant.filter(ImageFilter.GaussianBlur(radius))
    return resize_longer_side(variant, side).convert("RGB")


def fresh_directory(path: Path) -> Path:
    """Removes what an earlier run left at `path` and creates it empty."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def write_photos(photos: dict[str, Image.Image], out: Path) -> list[dict]:
    """Writes the training and held-out PNGs; returns one record (split, label, path) per file."""
    root = fresh_directory(out / "photos")
    records = []
    for index, (label, image) in enumerate(photos.items()):
        rng = np.random.default_rng([SEED, PHOTOS_STREAM, index])
        for number in range(1, TRAIN_VARIANTS + TEST_VARIANTS + 1):
            split = "train" if number <= TRAIN_VARIANTS else "test"
            path = root / split / label / f"{label}-{number:02d}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            augment(image, rng, PHOTO_SIDE).save(path, format="PNG", optimize=False)
            records.append({"split": split, "label": label, "path": path})
    return records


def write_bench(photos: dict[str, Image.Image], out: Path) -> int:
    """Writes the 1000-picture benchmark set of JPEGs; returns the number of files."""
    root = fresh_directory(out / f"bench-{BENCH_LABELS * BENCH_VARIANTS}")
    count = 0
    for index, (label, image) in enumerate(list(photos.items())[:BENCH_LABELS]):
        rng = np.random.default_rng([SEED, BENCH_STREAM, index])
        folder = root / label
        folder.mkdir()
        for number in range(1, BENCH_VARIANTS + 1):
            variant = augment(image, rng, BENCH_SIDE)
            variant.save(folder / f"{label}-{number:03d}.jpg", format="JPEG",
                         quality=BENCH_QUALITY)
            count += 1
    return count


def preprocess(path: Path) -> np.ndarray:
    """The EfficientNet-Lite0 input [3, 224, 224] for a picture, exactly as the Swift library.

    Center crop of side int(224 / 256 * min(H, W)) (odd margins put the extra pixel at the
    top/left), antialiased bilinear resize on floats per channel, then (x - 127) / 128.
    """
    with Image.open(path) as image:
        rgb = np.asarray(image.convert("RGB"))
    height, width = rgb.shape[:2]
    side = int(INPUT_SIDE / (INPUT_SIDE + CROP_PADDING) * min(height, width))
    top, left = ((height - side) + 1) // 2, ((width - side) + 1) // 2
    crop = rgb[top:top + side, left:left + side]
    channels = [
        np.asarray(
            Image.fromarray(crop[:, :, channel].astype(np.float32), mode="F").resize(
                (INPUT_SIDE, INPUT_SIDE), Image.BILINEAR
            )
        )
        for channel in range(3)
    ]
    return ((np.stack(channels) - 127.0) / 128.0).astype(np.float32)


def reference_fit(models: Path, out: Path, records: list[dict]) -> dict:
    """Fits the reference LogisticRegression and writes photos-reference.json; returns it."""
    classes = sorted({record["label"] for record in records})
    inputs = np.stack([preprocess(record["path"]) for record in records])
    x = features(models / "onnx/efficientnet-lite0.onnx", inputs).astype(np.float64)
    y = np.asarray([classes.index(record["label"]) for record in records])
    train = np.asarray([record["split"] == "train" for record in records])
    fit = LogisticRegression(C=1.0, tol=1e-10, max_iter=100_000)
    fit.fit(x[train], y[train])
    probabilities = fit.predict_proba(x[~train])
    held_out_records = [record for record in records if record["split"] == "test"]
    reference = {
        "C": 1.0,
        "classes": classes,
        "training_accuracy": float((fit.predict(x[train]) == y[train]).mean()),
        "held_out_accuracy": float((probabilities.argmax(axis=1) == y[~train]).mean()),
        "held_out": {
            f"{record['label']}/{record['path'].name}": {
                "label": record["label"],
                "probabilities": [float(p) for p in row],
            }
            for record, row in zip(held_out_records, probabilities)
        },
    }
    (out / "photos-reference.json").write_text(json.dumps(reference, indent=2) + "\n")
    print(
        f"trainer-reference photos: {int(train.sum())} training / {int((~train).sum())} held-out "
        f"pictures, {fit.n_iter_[0]} iterations, training accuracy "
        f"{reference['training_accuracy']:.3f}, held-out accuracy "
        f"{reference['held_out_accuracy']:.3f}",
        file=sys.stderr,
    )
    return reference


def catalog_product(product_id: str, label: str, number: int, picture_url: str) -> dict:
    """One catalog product row, with the bundled catalog's fields and value formats."""
    category, name, _ = CATALOG_LABELS[label]
    minute = len(CATALOG_LABELS) * number + list(CATALOG_LABELS).index(label)
    return {
        "ProductId": product_id,
        "Name": f"{name} {number:02d}",
        "ShortDescription": f"{name} from the trainer's picture set ({product_id})",
        "CategoryName": category,
        "MainCategoryName": MAIN_CATEGORY,
        "Price": f"{19 + 7 * number + 3 * len(label)}.00",
        "CurrencyCode": "EUR",
        "PictureUrl": picture_url,
        "Weight": f"{1 + (number % 5) * 0.3:.1f}",
        "WeightUnit": "KG",
        "StockQuantity": 10 + (number * 13) % 90,
        "UpdatedTimestamp": f"2024-03-01T09:{minute % 60:02d}:00Z",
    }


def write_catalog(out: Path, records: list[dict]) -> dict:
    """Writes catalog/catalog.json and catalog/imgs; returns the catalog document."""
    root = fresh_directory(out / "catalog")
    pictures = fresh_directory(root / "imgs")
    products = []
    for label, (_, _, stem) in CATALOG_LABELS.items():
        training = [r for r in records if r["split"] == "train" and r["label"] == label]
        for number, record in enumerate(training, start=1):
            product_id = f"TR-{stem}-{number:02d}"
            shutil.copyfile(record["path"], pictures / f"{product_id}.png")
            products.append(catalog_product(product_id, label, number, f"/imgs/{product_id}.png"))
    for number, (product_id, label, picture_url) in enumerate(EXTRA_PRODUCTS, start=1):
        products.append(catalog_product(product_id, label, TRAIN_VARIANTS + number, picture_url))
        if picture_url:
            source = next(r["path"] for r in records if r["label"] == label)
            (pictures / Path(picture_url).name).write_bytes(source.read_bytes()[:BROKEN_BYTES])
    categories = [
        {
            "CategoryName": category,
            "MainCategoryName": MAIN_CATEGORY,
            "NumberOfProducts": sum(p["CategoryName"] == category for p in products),
        }
        for category, _, _ in CATALOG_LABELS.values()
    ]
    catalog = {"categories": categories, "products": products}
    (root / "catalog.json").write_text(json.dumps(catalog, indent=2) + "\n")
    return catalog


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """The command line: [--bench] MODELS_DIR OUTPUT_DIR."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", action="store_true", help="write only the benchmark JPEGs")
    parser.add_argument("models", type=Path, help="../shared/models")
    parser.add_argument("output", type=Path, help="output folder")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    """Writes the photo set, reference fit and catalog, or (--bench) the benchmark set."""
    args = parse_arguments(argv)
    args.output.mkdir(parents=True, exist_ok=True)
    photos = load_photos(args.models)
    if args.bench:
        count = write_bench(photos, args.output)
        print(f"trainer-reference bench: {count} JPEGs", file=sys.stderr)
        return 0
    records = write_photos(photos, args.output)
    reference_fit(args.models, args.output, records)
    write_catalog(args.output, records)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
