"""The catalog *shapes* the test servers can serve: one description per shape, both servers.

A shape is the schema a real OData service would have (namespace, entity types, entity sets,
navigation, mount path) filled from the seed rows of the catalog JSON, so that every shape
serves the same products and categories under other names. `serve_v2.py` writes its EDMX from
a shape, `serve_v4.py` builds odatapy Csdl objects from it, and both fill their stores with
`entity_rows`; no shape is written down twice.

Shapes:
  espm       the bundled ESPM-like catalog, exactly as before (mount /odata/)
  northwind  like the public Northwind service: Int32 keys, Categories with a collection
             navigation back to Products (mount /V4/Northwind/Northwind.svc/)
  gateway    like SAP's GWSAMPLE_BASIC on SAP Gateway: ProductSet, VH_CategorySet,
             BusinessPartnerSet, sap: annotations in v2, SAP's __count and error quirks
             (mount /sap/opu/odata/IWBEP/GWSAMPLE_BASIC/)
  custom     German names no heuristic knows; Artikel is a media entity whose $value is the
             product's picture (mount /odata/)
  s4         like S/4HANA's API_PRODUCT_SRV: A_Product keyed by Product, grouped by ProductGroup,
             its GTIN in ProductStandardID in the 14-digit form, SAP's quirks
             (mount /sap/opu/odata/sap/API_PRODUCT_SRV/)

The products' GTIN is the seed's `GTIN` (a GTIN-13 in the bundled catalog; absent is null): `GTIN`
in espm v4 and `EAN` in espm v2 (see `for_version`), so two of the names clients recognize are
served, and `ProductStandardID` in s4.
"""

import dataclasses
from dataclasses import dataclass

from catalog_model import CATEGORY_PROPERTIES, PRODUCT_PROPERTIES, python_value


@dataclass(frozen=True)
class Property:
    """A structural property; `source` is a seed field name or a function (row, seed) -> raw;
    `v2_name` is its name on the v2 server when that differs."""

    name: str
    edm_type: str
    source: object = None
    nullable: bool = True
    precision: int = None
    scale: int = None
    max_length: int = None
    sap: tuple = ()
    v2_name: str = None


@dataclass(frozen=True)
class EntityType:
    """An entity type with a single key property; `sap` holds v2-only sap: attributes."""

    name: str
    key: str
    properties: tuple
    has_stream: bool = False
    sap: tuple = ()


@dataclass(frozen=True)
class EntitySet:
    """An entity set of `entity_type`, filled from `rows(seed)` (a list of source rows)."""

    name: str
    entity_type: str
    rows: object
    sap: tuple = ()


@dataclass(frozen=True)
class End:
    """One end of a relationship: its role, entity set and the navigation property it owns."""

    role: str
    entity_type: str
    entity_set: str
    navigation: str
    multiplicity: str


@dataclass(frozen=True)
class Relationship:
    """A many-to-one relationship (v2 Association and AssociationSet, v4 partner navigations).

    Each row of the `many` end points at the `one` end's row whose key equals its `link`
    property.
    """

    association: str
    association_set: str
    many: End
    one: End
    link: str


@dataclass(frozen=True)
class Shape:
    """A whole service: schema, container, where it is mounted and which quirks it has.

    `mount` is the service root's path (`/odata/`); `sap_quirks` puts the service inside
    `sap_quirks.SapGatewayQuirks`; `media_set` names the entity set whose `$value` is each
    product's picture; `answers_outside_mount` leaves paths outside `mount` to the OData
    library (as `espm` always did) instead of answering 404.
    """

    name: str
    namespace: str
    container: str
    mount: str
    entity_types: tuple
    entity_sets: tuple
    relationships: tuple = ()
    sap_quirks: bool = False
    media_set: str = None
    answers_outside_mount: bool = False

    def entity_type(self, name):
        """The entity type called `name`."""
        return next(t for t in self.entity_types if t.name == name)

    def entity_set(self, name):
        """The entity set called `name`."""
        return next(s for s in self.entity_sets if s.name == name)

    def navigations(self, entity_type):
        """(end, other end, relationship) for every navigation property of `entity_type`."""
        found = []
        for relationship in self.relationships:
            for end, other in ((relationship.many, relationship.one),
                               (relationship.one, relationship.many)):
                if end.entity_type == entity_type:
                    found.append((end, other, relationship))
        return found


class Seed:
    """The seed rows of the catalog JSON and the numbers the Int32-keyed shapes give them."""

    def __init__(self, categories, products):
        self.categories = categories
        self.products = products
        ordered = sorted(p["ProductId"] for p in products)
        self.product_numbers = {product_id: n for n, product_id in enumerate(ordered, 1)}
        self.category_numbers = {c["CategoryName"]: n for n, c in enumerate(categories, 1)}
        self.positions = {p["ProductId"]: index for index, p in enumerate(products)}

    def index(self, product):
        """The position of `product` in the seed file (0-based)."""
        return self.positions[product["ProductId"]]


def for_version(shape, version):
    """`shape` as the server of OData `version` (2 or 4) serves it: on v2, every property with a
    `v2_name` is called that, still filled from the same seed field."""
    if version != 2:
        return shape

    def renamed(prop):
        if prop.v2_name is None:
            return prop
        source = prop.name if prop.source is None else prop.source
        return dataclasses.replace(prop, name=prop.v2_name, source=source, v2_name=None)

    types = tuple(
        dataclasses.replace(t, properties=tuple(renamed(p) for p in t.properties))
        for t in shape.entity_types
    )
    return dataclasses.replace(shape, entity_types=types)


def seed_gtin(row, seed):
    """The seed's GTIN of a product, or None (a catalog file need not have one)."""
    return row.get("GTIN")


def constant(value):
    """A property source that is the same raw value on every row."""
    return lambda row, seed: value


def entity_rows(shape, entity_set, seed):
    """The rows of `entity_set` as {property name: Python value}, in seed order."""
    entity_type = shape.entity_type(entity_set.entity_type)
    rows = []
    for source_row in entity_set.rows(seed):
        row = {}
        for prop in entity_type.properties:
            source = prop.name if prop.source is None else prop.source
            raw = source(source_row, seed) if callable(source) else source_row[source]
            row[prop.name] = None if raw is None else python_value(prop.edm_type, raw)
        rows.append(row)
    return rows


def links(shape, relationship, seed):
    """(key of the many-side row, key of the one-side row) for every related pair."""
    many_set = shape.entity_set(relationship.many.entity_set)
    many_type = shape.entity_type(relationship.many.entity_type)
    one_keys = {
        row[shape.entity_type(relationship.one.entity_type).key]
        for row in entity_rows(shape, shape.entity_set(relationship.one.entity_set), seed)
    }
    pairs = []
    for row in entity_rows(shape, many_set, seed):
        if row[relationship.link] in one_keys:
            pairs.append((row[many_type.key], row[relationship.link]))
    return pairs


# --- espm: the seed file's own fields, as served before shapes existed -----------------------

def _espm_properties(seed_properties, key):
    return tuple(
        Property(
            name,
            edm_type,
            nullable=name != key,
            precision=12 if edm_type == "Edm.Decimal" else None,
            scale=3 if edm_type == "Edm.Decimal" else None,
        )
        for name, edm_type in seed_properties
    )


# The GTIN is optional in a seed file, so it is read with seed_gtin rather than by name.
_ESPM_GTIN = Property("GTIN", "Edm.String", seed_gtin, max_length=14, v2_name="EAN")


ESPM = Shape(
    name="espm",
    namespace="ESPM",
    container="EntityContainer",
    mount="/odata/",
    entity_types=(
        EntityType(
            "Product",
            "ProductId",
            _espm_properties(PRODUCT_PROPERTIES, "ProductId") + (_ESPM_GTIN,),
        ),
        EntityType(
            "ProductCategory",
            "CategoryName",
            _espm_properties(CATEGORY_PROPERTIES, "CategoryName"),
        ),
    ),
    entity_sets=(
        EntitySet("Products", "Product", lambda seed: seed.products),
        EntitySet("ProductCategories", "ProductCategory", lambda seed: seed.categories),
    ),
    # As before shapes: pyslet answers 500 and odatapy serves the service at any other path.
    answers_outside_mount=True,
    relationships=(
        Relationship(
            association="Product_Category",
            association_set="Products_Categories",
            many=End("Product", "Product", "Products", "Category", "*"),
            one=End("Category", "ProductCategory", "ProductCategories", "Products", "0..1"),
            link="CategoryName",
        ),
    ),
)


# --- northwind: Int32 keys numbered from the seed ---------------------------------------------
# ProductID is 1..N in ProductId order (HT-1000 is 1), CategoryID 1..M in the seed file's order
# of categories (Notebooks is 1); Description is the seed's MainCategoryName, UnitsInStock its
# StockQuantity, Discontinued whether that is 0.

def _northwind_supplier(row, seed):
    """1..5 in turn; every tenth product has no supplier, so nulls are served too."""
    index = seed.index(row)
    return None if index % 10 == 9 else 1 + index % 5


NORTHWIND = Shape(
    name="northwind",
    namespace="NorthwindModel",
    container="NorthwindEntities",
    mount="/V4/Northwind/Northwind.svc/",
    entity_types=(
        EntityType(
            "Product",
            "ProductID",
            (
                Property(
                    "ProductID",
                    "Edm.Int32",
                    lambda row, seed: seed.product_numbers[row["ProductId"]],
                    nullable=False,
                ),
                Property("ProductName", "Edm.String", "Name", nullable=False, max_length=40),
                Property("SupplierID", "Edm.Int32", _northwind_supplier),
                Property(
                    "CategoryID",
                    "Edm.Int32",
                    lambda row, seed: seed.category_numbers.get(row["CategoryName"]),
                ),
                Property(
                    "QuantityPerUnit",
                    "Edm.String",
                    lambda row, seed: "1 x %s %s" % (row["Weight"], row["WeightUnit"]),
                    max_length=20,
                ),
                Property("UnitPrice", "Edm.Decimal", "Price", precision=19, scale=4),
                Property("UnitsInStock", "Edm.Int16", "StockQuantity"),
                Property(
                    "Discontinued",
                    "Edm.Boolean",
                    lambda row, seed: row["StockQuantity"] == 0,
                    nullable=False,
                ),
            ),
        ),
        EntityType(
            "Category",
            "CategoryID",
            (
                Property(
                    "CategoryID",
                    "Edm.Int32",
                    lambda row, seed: seed.category_numbers[row["CategoryName"]],
                    nullable=False,
                ),
                Property(
                    "CategoryName", "Edm.String", "CategoryName", nullable=False, max_length=15
                ),
                Property("Description", "Edm.String", "MainCategoryName"),
            ),
        ),
    ),
    entity_sets=(
        EntitySet("Products", "Product", lambda seed: seed.products),
        EntitySet("Categories", "Category", lambda seed: seed.categories),
    ),
    relationships=(
        Relationship(
            association="FK_Products_Categories",
            association_set="FK_Products_Categories",
            many=End("Products", "Product", "Products", "Category", "*"),
            one=End("Categories", "Category", "Categories", "Products", "0..1"),
            link="CategoryID",
        ),
    ),
)


# --- gateway: SAP's GWSAMPLE_BASIC ------------------------------------------------------------
# Products keep their seed ids; suppliers are the four business partners in turn; CreatedAt and
# ChangedAt are both the seed's UpdatedTimestamp (Edm.DateTime in v2, DateTimeOffset in v4).

BUSINESS_PARTNERS = [
    {"BusinessPartnerID": "0100000000", "CompanyName": "SAP",
     "EmailAddress": "do.not.reply@sap.com"},
    {"BusinessPartnerID": "0100000001", "CompanyName": "Becker Berlin",
     "EmailAddress": "dagmar.schulze@beckerberlin.de"},
    {"BusinessPartnerID": "0100000002", "CompanyName": "DelBont Industries",
     "EmailAddress": "maria.brown@delbont.com"},
    {"BusinessPartnerID": "0100000003", "CompanyName": "Talpa",
     "EmailAddress": "bob.buyer@talpa.com"},
]


def _gateway_supplier(field):
    """The supplier of a product (business partners in turn), reading `field` of it."""
    return lambda row, seed: BUSINESS_PARTNERS[seed.index(row) % len(BUSINESS_PARTNERS)][field]


def _sap(label, *flags):
    """sap: attributes: a label and `creatable="false"`-like flags."""
    return (("label", label),) + tuple((flag, "false") for flag in flags)


_READ_ONLY_SET = (("creatable", "false"), ("updatable", "false"), ("deletable", "false"),
                  ("content-version", "1"))

GATEWAY = Shape(
    name="gateway",
    namespace="GWSAMPLE_BASIC",
    container="GWSAMPLE_BASIC_Entities",
    mount="/sap/opu/odata/IWBEP/GWSAMPLE_BASIC/",
    entity_types=(
        EntityType(
            "Product",
            "ProductID",
            (
                Property("ProductID", "Edm.String", "ProductId", nullable=False, max_length=10,
                         sap=_sap("Product ID", "updatable")),
                Property("TypeCode", "Edm.String", constant("PR"), nullable=False, max_length=2,
                         sap=_sap("Type Code")),
                Property("Category", "Edm.String", "CategoryName", nullable=False, max_length=40,
                         sap=_sap("Category")),
                Property("Name", "Edm.String", "Name", nullable=False, max_length=255,
                         sap=_sap("Product Name")),
                Property("NameLanguage", "Edm.String", constant("EN"), max_length=2,
                         sap=_sap("Language", "creatable", "updatable")),
                Property("Description", "Edm.String", "ShortDescription", max_length=255,
                         sap=_sap("Prod.Descrip.")),
                Property("SupplierID", "Edm.String", _gateway_supplier("BusinessPartnerID"),
                         nullable=False, max_length=10, sap=_sap("Business Partner ID")),
                Property("SupplierName", "Edm.String", _gateway_supplier("CompanyName"),
                         max_length=80, sap=_sap("Company", "creatable", "updatable")),
                Property("MeasureUnit", "Edm.String", constant("EA"), nullable=False,
                         max_length=3, sap=_sap("Qty. Unit") + (("semantics", "unit-of-measure"),)),
                Property("WeightMeasure", "Edm.Decimal", "Weight", precision=13, scale=3,
                         sap=_sap("Wt. Measure") + (("unit", "WeightUnit"),)),
                Property("WeightUnit", "Edm.String", "WeightUnit", max_length=3,
                         sap=_sap("Qty. Unit") + (("semantics", "unit-of-measure"),)),
                Property("CurrencyCode", "Edm.String", "CurrencyCode", nullable=False,
                         max_length=5, sap=_sap("Currency") + (("semantics", "currency-code"),)),
                Property("Price", "Edm.Decimal", "Price", precision=16, scale=3,
                         sap=_sap("Unit Price") + (("unit", "CurrencyCode"),)),
                Property("CreatedAt", "Edm.DateTimeOffset", "UpdatedTimestamp",
                         sap=_sap("Time Stamp", "creatable", "updatable")),
                Property("ChangedAt", "Edm.DateTimeOffset", "UpdatedTimestamp",
                         sap=_sap("Time Stamp", "creatable", "updatable")),
            ),
            sap=(("content-version", "1"),),
        ),
        EntityType(
            "VH_Category",
            "Category",
            (
                Property("Category", "Edm.String", "CategoryName", nullable=False, max_length=40,
                         sap=_sap("Category")),
                Property("MainCategory", "Edm.String", "MainCategoryName", nullable=False,
                         max_length=40, sap=_sap("Main Category")),
                Property("MainCategoryName", "Edm.String", "MainCategoryName", max_length=40,
                         sap=_sap("Main Category Name")),
            ),
            sap=(("content-version", "1"),),
        ),
        EntityType(
            "BusinessPartner",
            "BusinessPartnerID",
            (
                Property("BusinessPartnerID", "Edm.String", nullable=False, max_length=10,
                         sap=_sap("Business Partner ID", "creatable", "updatable")),
                Property("CompanyName", "Edm.String", nullable=False, max_length=80,
                         sap=_sap("Company Name")),
                Property("EmailAddress", "Edm.String", max_length=255,
                         sap=_sap("E-Mail Address") + (("semantics", "email"),)),
            ),
            sap=(("content-version", "1"),),
        ),
    ),
    entity_sets=(
        EntitySet("BusinessPartnerSet", "BusinessPartner", lambda seed: BUSINESS_PARTNERS,
                  sap=(("pageable", "true"),) + _READ_ONLY_SET),
        EntitySet("ProductSet", "Product", lambda seed: seed.products,
                  sap=(("pageable", "true"),) + _READ_ONLY_SET),
        EntitySet("VH_CategorySet", "VH_Category", lambda seed: seed.categories,
                  sap=(("pageable", "false"), ("addressable", "false")) + _READ_ONLY_SET),
    ),
    sap_quirks=True,
)


# --- custom: names no heuristic recognizes ----------------------------------------------------
# Artikel('<ProductId>')/$value is the product's picture, answered by the WSGI wrapper.

LIEFERANTEN = [
    {"LieferantNr": "L-001", "Firma": "Kaffeehaus Müller GmbH"},
    {"LieferantNr": "L-002", "Firma": "Bürotechnik Schmidt & Söhne"},
    {"LieferantNr": "L-003", "Firma": "Joe's Elektro"},
]

CUSTOM = Shape(
    name="custom",
    namespace="Shop",
    container="ShopContainer",
    mount="/odata/",
    entity_types=(
        EntityType(
            "Artikel",
            "Nummer",
            (
                Property("Nummer", "Edm.String", "ProductId", nullable=False),
                Property("Bezeichnung", "Edm.String", "Name"),
                Property("Warengruppe", "Edm.String", "CategoryName"),
                Property("Preis", "Edm.Decimal", "Price", precision=12, scale=3),
                Property("Waehrung", "Edm.String", "CurrencyCode"),
                Property("Gewicht", "Edm.Decimal", "Weight", precision=12, scale=3),
            ),
            has_stream=True,
        ),
        EntityType(
            "Lieferant",
            "LieferantNr",
            (
                Property("LieferantNr", "Edm.String", nullable=False),
                Property("Firma", "Edm.String"),
            ),
        ),
    ),
    entity_sets=(
        EntitySet("Artikel", "Artikel", lambda seed: seed.products),
        EntitySet("Lieferanten", "Lieferant", lambda seed: LIEFERANTEN),
    ),
    media_set="Artikel",
)

# --- s4: S/4HANA's product master API (API_PRODUCT_SRV) --------------------------------------
# No name, price or category list: A_Product has the product number, its product group (the
# seed's category) and its GTIN, stored as S/4HANA stores a GTIN-14, so a client that asked for
# the 13 digits of an EAN-13 only would miss it.

def _s4_gtin(row, seed):
    gtin = seed_gtin(row, seed)
    return None if gtin is None else gtin.rjust(14, "0")


S4 = Shape(
    name="s4",
    namespace="API_PRODUCT_SRV",
    container="API_PRODUCT_SRV_Entities",
    mount="/sap/opu/odata/sap/API_PRODUCT_SRV/",
    entity_types=(
        EntityType(
            "A_ProductType",
            "Product",
            (
                Property("Product", "Edm.String", "ProductId", nullable=False, max_length=40,
                         sap=_sap("Product", "updatable")),
                Property("ProductType", "Edm.String", constant("HAWA"), max_length=4,
                         sap=_sap("Product Type")),
                Property("ProductGroup", "Edm.String", "CategoryName", max_length=40,
                         sap=_sap("Product Group")),
                Property("BaseUnit", "Edm.String", constant("EA"), max_length=3,
                         sap=_sap("Base Unit") + (("semantics", "unit-of-measure"),)),
                Property("GrossWeight", "Edm.Decimal", "Weight", precision=13, scale=3,
                         sap=_sap("Gross Weight") + (("unit", "WeightUnit"),)),
                Property("WeightUnit", "Edm.String", "WeightUnit", max_length=3,
                         sap=_sap("Unit of Weight") + (("semantics", "unit-of-measure"),)),
                Property("ProductStandardID", "Edm.String", _s4_gtin, max_length=18,
                         sap=_sap("International Article Number (EAN/UPC)")),
            ),
            sap=(("content-version", "1"),),
        ),
    ),
    entity_sets=(
        EntitySet("A_Product", "A_ProductType", lambda seed: seed.products,
                  sap=(("content-version", "1"),)),
    ),
    sap_quirks=True,
)

SHAPES = {shape.name: shape for shape in (ESPM, NORTHWIND, GATEWAY, CUSTOM, S4)}
