"""The ESPM-like catalog model shared by the v2 and v4 test servers.

Both servers load the same JSON file (the one bundled with CatalogClient) so that a query
must return the same rows from either server and from the offline provider.
"""

import datetime
import decimal
import json

NAMESPACE = "ESPM"

# (name, EDM type) in declaration order; v2 spells the timestamp Edm.DateTime.
PRODUCT_PROPERTIES = [
    ("ProductId", "Edm.String"),
    ("Name", "Edm.String"),
    ("ShortDescription", "Edm.String"),
    ("CategoryName", "Edm.String"),
    ("MainCategoryName", "Edm.String"),
    ("Price", "Edm.Decimal"),
    ("CurrencyCode", "Edm.String"),
    ("PictureUrl", "Edm.String"),
    ("Weight", "Edm.Decimal"),
    ("WeightUnit", "Edm.String"),
    ("StockQuantity", "Edm.Int64"),
    ("UpdatedTimestamp", "Edm.DateTimeOffset"),
]

CATEGORY_PROPERTIES = [
    ("CategoryName", "Edm.String"),
    ("MainCategoryName", "Edm.String"),
    ("NumberOfProducts", "Edm.Int64"),
]


def load_catalog(path):
    """Reads the catalog JSON and returns (categories, products) as lists of dicts."""
    with open(path, "rb") as handle:
        document = json.load(handle)
    return document["categories"], document["products"]


def python_value(edm_type, raw):
    """Converts a JSON value of the catalog file into the Python value for `edm_type`."""
    if edm_type == "Edm.Decimal":
        return decimal.Decimal(raw)
    if edm_type in ("Edm.Int64", "Edm.Int32", "Edm.Int16"):
        return int(raw)
    if edm_type == "Edm.Boolean":
        return bool(raw)
    if edm_type in ("Edm.DateTimeOffset", "Edm.DateTime"):
        return datetime.datetime.strptime(raw, "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc
        )
    return raw


def picture_bytes(product_id):
    """Deterministic picture payload for a product, so tests can check which one arrived."""
    return ("VCIMG:" + product_id + ":" + "x" * 64).encode("utf-8")
