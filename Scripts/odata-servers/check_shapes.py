"""Starts both test servers in every shape and checks the queries a client relies on.

Usage: .cache/odata-venv/bin/python Scripts/odata-servers/check_shapes.py [--catalog FILE]

For each shape x server it checks, against the rows computed from the seed here:
$metadata (well-formed, names), a filter on the category (and on the navigation path
Category/CategoryName where there is one), the categories "Joe's" and "Ümlaut" (no rows), /$count,
the inline count, $select, $orderby on the key, following next links with --page-size 5, an
unknown entity set (404), Basic and bearer authentication, /imgs (with --picture-delay-ms) and
/__stats, for custom the media resource $value, and for shapes with a GTIN property a filter on
the GTIN of the first product in each form the shape might store it in.
Prints one line per check and exits 1 when any failed.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree

from catalog_model import load_catalog, picture_bytes
from catalog_shapes import SHAPES, Seed, entity_rows, for_version

HERE = os.path.dirname(os.path.abspath(__file__))
CREDENTIALS = "checker:pa55 w\u00f6rd"
BEARER = "check-token-1"


class Server:
    """One running server process and its service root."""

    def __init__(self, script, shape, catalog, extra=()):
        arguments = [sys.executable, os.path.join(HERE, script), "--catalog", catalog,
                     "--shape", shape, "--page-size", "5", *extra]
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        self.process = subprocess.Popen(arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, cwd=HERE, env=env)
        fields = self.process.stdout.readline().decode("utf-8").split()
        self.origin = "http://127.0.0.1:%s" % fields[1]
        self.root = self.origin + fields[2]
        self.mount = fields[2]

    def stop(self):
        self.process.stdin.close()
        self.process.wait()


def get(url, accept="application/json", authorization=None):
    """(status, content type, body bytes) of a GET."""
    request = urllib.request.Request(url)
    if accept:
        request.add_header("Accept", accept)
    if authorization:
        request.add_header("Authorization", authorization)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read()


def query(root, path, **options):
    """The URL of `path` with system query options, percent-encoded as a client would."""
    if not options:
        return root + path
    encoded = "&".join(
        "$%s=%s" % (name, urllib.parse.quote(str(value), safe="',/()"))
        for name, value in options.items()
    )
    return root + path + "?" + encoded


def rows_of(body, version):
    """The entities and the next link (or None) of a collection payload."""
    document = json.loads(body)
    if version == 2:
        data = document["d"]
        results = data["results"] if isinstance(data, dict) else data
        following = data.get("__next") if isinstance(data, dict) else None
        if isinstance(following, dict):
            following = following.get("uri")
        return results, following, data.get("__count") if isinstance(data, dict) else None
    return document["value"], document.get("@odata.nextLink"), document.get("@odata.count")


def all_rows(url, version, cap=40):
    """Follows next links from `url`; pyslet's memory store never ends, so stop on empty."""
    rows = []
    pages = 0
    while url and pages < cap:
        status, _, body = get(url)
        if status != 200:
            raise AssertionError("HTTP %d for %s: %s" % (status, url, body[:200]))
        page, url, _ = rows_of(body, version)
        pages += 1
        if not page:
            break
        rows += page
    return rows


class Checker:
    """Collects the outcome of each check."""

    def __init__(self):
        self.results = []

    def check(self, label, function):
        try:
            detail = function()
            self.results.append((label, True, detail or ""))
        except Exception as error:  # noqa: BLE001 - report every failure and go on
            self.results.append((label, False, "%s: %s" % (type(error).__name__, error)))


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def product_names(shape):
    """Names in `shape` of: the product set, its key, its category property, a category path
    for filtering, the category set and its name property."""
    return {
        "espm": ("Products", "ProductId", "CategoryName", "CategoryName",
                 "ProductCategories", "CategoryName"),
        "northwind": ("Products", "ProductID", "CategoryID", "Category/CategoryName",
                      "Categories", "CategoryName"),
        "gateway": ("ProductSet", "ProductID", "Category", "Category",
                    "VH_CategorySet", "Category"),
        "custom": ("Artikel", "Nummer", "Warengruppe", "Warengruppe", None, None),
        "s4": ("A_Product", "Product", "ProductGroup", "ProductGroup", None, None),
    }[shape.name]


GTIN_NAMES = ("GTIN", "EAN", "ProductStandardID")


def gtin_property(shape, products_set):
    """The name of the product type's GTIN property in `shape`, or None."""
    entity_type = shape.entity_type(shape.entity_set(products_set).entity_type)
    names = [p.name for p in entity_type.properties if p.name in GTIN_NAMES]
    return names[0] if names else None


def check_server(checker, script, version, shape, catalog, seed):
    shape = for_version(shape, version)
    products_set, key, _, category_path, category_set, _ = product_names(shape)
    expected_rows = entity_rows(shape, shape.entity_set(products_set), seed)
    expected_keys = sorted(row[key] for row in expected_rows)
    by_category = {}
    for product in seed.products:
        by_category.setdefault(product["CategoryName"], set()).add(product["ProductId"])
    category = seed.categories[0]["CategoryName"]
    literal = "'%s'" % category.replace("'", "''")
    key_of_id = dict(zip((p["ProductId"] for p in seed.products), (r[key] for r in expected_rows)))
    server = Server(script, shape.name, catalog, ["--picture-delay-ms", "50"])
    prefix = "%s %s v%d: " % (shape.name, script, version)
    root = server.root
    try:
        def metadata():
            status, _, body = get(root + "$metadata", accept=None)
            expect(status == 200, "status %d" % status)
            document = ElementTree.fromstring(body)
            names = {e.get("Name") for e in document.iter()} | {
                e.get("Namespace") for e in document.iter()}
            wanted = {shape.namespace} | {s.name for s in shape.entity_sets} | {
                t.name for t in shape.entity_types} | {p.name for t in shape.entity_types
                                                        for p in t.properties}
            expect(wanted <= names, "missing %s" % sorted(wanted - names))
            return "%d names" % len(wanted)

        def category_filter():
            url = query(root, products_set, filter="%s eq %s" % (category_path, literal))
            got = sorted(r[key] for r in all_rows(url, version))
            want = sorted(key_of_id[i] for i in by_category[category])
            expect(got == want, "%s != %s" % (got, want))
            return "%d rows" % len(got)

        def navigation_filter():
            navigation = shape.relationships[0].many.navigation
            url = query(root, products_set,
                        filter="%s/CategoryName eq %s" % (navigation, literal))
            got = sorted(r[key] for r in all_rows(url, version))
            want = sorted(key_of_id[i] for i in by_category[category])
            expect(got == want, "%s != %s" % (got, want))
            return "%d rows" % len(got)

        def odd_literals():
            for odd in ("'Joe''s'", "'\u00dcmlaut'"):
                url = query(root, products_set, filter="%s eq %s" % (category_path, odd))
                status, _, body = get(url)
                expect(status == 200, "status %d %s" % (status, body[:200]))
                expect(rows_of(body, version)[0] == [], "rows for %s" % odd)

        def count():
            status, content_type, body = get(root + products_set + "/$count", accept="text/plain")
            expect(status == 200 and body.strip() == str(len(expected_keys)).encode(),
                   "%d %r" % (status, body[:80]))
            return "%s %s" % (body.decode().strip(), content_type)

        def inline_count():
            options = {"inlinecount": "allpages"} if version == 2 else {"count": "true"}
            status, _, body = get(query(root, products_set, top=2, **options))
            _, _, total = rows_of(body, version)
            want = str(len(expected_keys)) if shape.sap_quirks and version == 2 else len(
                expected_keys)
            expect(total == want, "count %r, want %r" % (total, want))
            return "%r" % (total,)

        def select():
            status, _, body = get(query(root, products_set, select=key, top=3))
            rows = rows_of(body, version)[0]
            extra = {name for row in rows for name in row if not name.startswith(("__", "@"))}
            expect(status == 200 and extra == {key}, "properties %s" % sorted(extra))

        def orderby():
            got = [r[key] for r in all_rows(query(root, products_set, orderby=key), version)]
            expect(got == expected_keys, "order %s" % got[:6])
            got = [r[key] for r in all_rows(query(root, products_set, orderby=key + " desc",
                                                  top=3), version)]
            expect(got[:3] == expected_keys[::-1][:3], "desc %s" % got)

        def paging():
            status, _, body = get(root + products_set)
            page, following, _ = rows_of(body, version)
            expect(len(page) == 5 and following, "first page %d, next %r" % (len(page), following))
            got = sorted(r[key] for r in all_rows(root + products_set, version))
            expect(got == expected_keys, "%d rows" % len(got))
            return "%d rows" % len(got)

        def unknown_set():
            status, content_type, body = get(root + "Nope")
            expect(status == 404, "status %d" % status)
            return "%d %s %s" % (status, content_type, body[:90].decode("utf-8", "replace"))

        def pictures():
            started = time.monotonic()
            status, _, body = get(server.origin + "/imgs/%s.jpg" % seed.products[0]["ProductId"],
                                  accept=None)
            expect(status == 200 and body == picture_bytes(seed.products[0]["ProductId"]),
                   "status %d" % status)
            expect(time.monotonic() - started >= 0.05, "no picture delay")
            status, _, body = get(server.origin + "/__stats", accept=None)
            expect(json.loads(body), "no stats")

        def media():
            product_id = seed.products[0]["ProductId"]
            path = "%s('%s')/$value" % (products_set, product_id)
            status, content_type, body = get(root + urllib.parse.quote(path), accept=None)
            expect(status == 200 and body == picture_bytes(product_id),
                   "status %d %r" % (status, body[:40]))
            _, _, stats = get(server.origin + "/__stats", accept=None)
            expect(json.loads(stats).get(server.mount + path) == 1, "stats %s" % stats[:200])
            return content_type

        def gtin_filter():
            name = gtin_property(shape, products_set)
            stored = expected_rows[0][name]
            want = [expected_rows[0][key]]
            for form in (stored, stored.lstrip("0")):
                url = query(root, products_set, filter="%s eq '%s'" % (name, form))
                got = [r[key] for r in all_rows(url, version)]
                expect(got == (want if form == stored else []), "%s: %s" % (form, got))
            return "%s eq '%s'" % (name, stored)

        checks = [("metadata", metadata), ("category filter", category_filter),
                  ("Joe's, \u00dcmlaut", odd_literals), ("/$count", count),
                  ("inline count", inline_count), ("$select", select),
                  ("$orderby key", orderby), ("paging", paging),
                  ("unknown set", unknown_set), ("/imgs, /__stats", pictures)]
        if shape.media_set:
            checks.append(("$value", media))
        if shape.relationships:
            checks.append(("Category/CategoryName filter", navigation_filter))
        if gtin_property(shape, products_set) and seed.products[0].get("GTIN"):
            checks.append(("GTIN filter", gtin_filter))
        if category_set:
            def categories():
                got = all_rows(root + category_set, version)
                expect(len(got) == len(seed.categories), "%d categories" % len(got))
            checks.append(("categories", categories))
        for label, function in checks:
            checker.check(prefix + label, function)
    finally:
        server.stop()

    protected = Server(script, shape.name, catalog,
                       ["--basic-auth", CREDENTIALS, "--bearer", BEARER])
    try:
        def basic_auth():
            token = base64.b64encode(CREDENTIALS.encode("utf-8")).decode("ascii")
            status, _, _ = get(protected.root + products_set)
            expect(status == 401, "without: %d" % status)
            status, _, _ = get(protected.root + products_set, authorization="Basic " + token)
            expect(status == 200, "with: %d" % status)
            status, _, _ = get(protected.root + products_set, authorization="Bearer " + BEARER)
            expect(status == 200, "bearer: %d" % status)

        checker.check(prefix + "basic auth, bearer", basic_auth)
    finally:
        protected.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--catalog",
        default=os.path.join(HERE, "..", "..", "Sources", "CatalogClient", "Resources",
                             "catalog.json"),
    )
    args = parser.parse_args()
    args.catalog = os.path.abspath(args.catalog)
    seed = Seed(*load_catalog(args.catalog))
    checker = Checker()
    for shape in SHAPES.values():
        for script, version in (("serve_v2.py", 2), ("serve_v4.py", 4)):
            check_server(checker, script, version, shape, args.catalog, seed)
    for label, ok, detail in checker.results:
        print("%s %s%s" % ("ok  " if ok else "FAIL", label, " (%s)" % detail if detail else ""))
    sys.exit(0 if all(ok for _, ok, _ in checker.results) else 1)


if __name__ == "__main__":
    main()
