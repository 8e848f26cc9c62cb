"""Shared HTTP plumbing for the test servers: threaded WSGI on 127.0.0.1, pictures, ready line."""

import argparse
import base64
import hmac
import json
import os
import re
import socketserver
import sys
import threading
import time
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from catalog_model import picture_bytes
from catalog_shapes import SHAPES
from sap_quirks import SapGatewayQuirks


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - wsgiref's signature
        pass


class _ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


def common_arguments(description):
    """The command-line options both OData servers share."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--catalog", required=True, help="catalog JSON file")
    parser.add_argument(
        "--shape",
        choices=sorted(SHAPES),
        default="espm",
        help="the schema to serve the catalog in (see catalog_shapes.py); default espm",
    )
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--page-size", type=int, default=0, help="server-driven page size")
    parser.add_argument(
        "--picture-delay-ms", type=int, default=0, help="delay before answering a picture"
    )
    parser.add_argument(
        "--basic-auth",
        metavar="USER:PASSWORD",
        help="require HTTP Basic authentication with these credentials",
    )
    parser.add_argument(
        "--bearer", metavar="TOKEN", help="require (or also accept) this bearer token"
    )
    parser.add_argument(
        "--pictures",
        metavar="DIR",
        help="serve /imgs/<name> from DIR/<name> when that file exists (else the fake bytes)",
    )
    return parser


def accepted_authorizations(args):
    """The `Authorization` header values the parsed arguments accept; empty means no check."""
    accepted = []
    if args.basic_auth:
        if ":" not in args.basic_auth:
            raise SystemExit("--basic-auth needs USER:PASSWORD")
        token = base64.b64encode(args.basic_auth.encode("utf-8")).decode("ascii")
        accepted.append("Basic " + token)
    if args.bearer:
        accepted.append("Bearer " + args.bearer)
    return accepted


class RequireAuthorization:
    """WSGI middleware answering 401 with `WWW-Authenticate` unless the request carries one of
    the accepted `Authorization` values; `/__stats` stays open because only tests read it."""

    def __init__(self, app, accepted):
        self.app = app
        self.accepted = [value.encode("utf-8") for value in accepted]
        self.schemes = sorted({value.split(" ", 1)[0] for value in accepted})

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO", "") == "/__stats" or self._authorized(environ):
            return self.app(environ, start_response)
        body = json.dumps(
            {"error": {"code": "Unauthorized", "message": "authentication required"}}
        ).encode("utf-8")
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        headers += [("WWW-Authenticate", '%s realm="catalog"' % s) for s in self.schemes]
        start_response("401 Unauthorized", headers)
        return [body]

    def _authorized(self, environ):
        # wsgiref hands header bytes over as latin-1 text; re-encoding restores the raw bytes.
        sent = environ.get("HTTP_AUTHORIZATION", "").encode("latin-1", "replace")
        # Every accepted value is compared, in constant time, so timing does not tell which part
        # of a guess was right.
        matches = [hmac.compare_digest(sent, value) for value in self.accepted]
        return any(matches)


# Content types of the picture files served from --pictures, by lower-case extension.
PICTURE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".bmp": "image/bmp",
    ".webp": "image/webp",
    ".heic": "image/heic",
    ".heif": "image/heif",
    ".tif": "image/tiff",
    ".tiff": "image/tiff",
}


def picture_file(directory, name):
    """The path of `directory/name` when `name` is a plain file name of a regular file there.

    Returns None for no directory, a name with a path separator, NUL, `.` or `..`, or no such
    file, so a request can never reach outside `directory`.
    """
    if not directory or name in ("", ".", "..") or any(c in name for c in "/\\\0"):
        return None
    path = os.path.join(directory, name)
    return path if os.path.isfile(path) else None


def picture_type(name):
    """The Content-Type for a picture file name, from its extension."""
    extension = os.path.splitext(name)[1].lower()
    return PICTURE_TYPES.get(extension, "application/octet-stream")


class PictureAndStatsApp:
    """Serves /imgs/<name> and /__stats next to the OData service, delegating the rest.

    A picture is the file `<pictures>/<name>` when a pictures directory is given and holds that
    file; otherwise `<id>.jpg` of a known product answers deterministic fake bytes, and anything
    else 404.

    With `media` (a `MediaResources`), `<entity set path>('<key>')/$value` of a media entity
    answers the same bytes as that product's picture and is counted under its (unquoted) path.
    """

    def __init__(self, product_ids, picture_delay_ms, pictures=None, media=None):
        self.product_ids = set(product_ids)
        self.delay = picture_delay_ms / 1000.0
        self.pictures = pictures
        self.media = media
        self.counts = {}
        self.lock = threading.Lock()
        self.service = None

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path == "/__stats":
            with self.lock:
                body = json.dumps(self.counts, sort_keys=True).encode("utf-8")
            start_response("200 OK", [("Content-Type", "application/json")])
            return [body]
        if path.startswith("/imgs/"):
            self._count(path)
            return self._picture(path[len("/imgs/"):], start_response)
        if self.media is not None:
            # wsgiref unquotes PATH_INFO as latin-1; the URL's bytes are UTF-8.
            unquoted = path.encode("latin-1", "replace").decode("utf-8", "replace")
            key = self.media.key(unquoted)
            if key is not None:
                self._count(unquoted)
                name = self.media.pictures.get(key)
                if name is None:
                    return _not_found(start_response, "no media resource for %r" % key)
                return self._picture(name, start_response, product_id=key)
        return self.service(environ, start_response)

    def _count(self, path):
        with self.lock:
            self.counts[path] = self.counts.get(path, 0) + 1

    def _picture(self, name, start_response, product_id=None):
        """Answers picture `name` (after the configured delay), as `read_picture` finds it."""
        if self.delay:
            time.sleep(self.delay)
        found = read_picture(self.pictures, name, self.product_ids, product_id)
        if found is None:
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"no such picture"]
        content_type, body = found
        start_response(
            "200 OK", [("Content-Type", content_type), ("Content-Length", str(len(body)))]
        )
        return [body]


def read_picture(pictures, name, product_ids, product_id=None):
    """(content type, bytes) of picture `name`, or None.

    The file `<pictures>/<name>` when it exists; otherwise the fake bytes of `product_id` (by
    default `<id>` of a name `<id>.jpg`) when that is a known product.
    """
    file = picture_file(pictures, name)
    if file is not None:
        with open(file, "rb") as handle:
            return picture_type(name), handle.read()
    if product_id is None and name.endswith(".jpg"):
        product_id = name[:-4]
    if product_id not in product_ids:
        return None
    return "image/jpeg", picture_bytes(product_id)


def _not_found(start_response, message):
    body = json.dumps(
        {"error": {"code": "404", "message": message}}, separators=(",", ":")
    ).encode("utf-8")
    start_response(
        "404 Not Found",
        [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
    )
    return [body]


class MediaResources:
    """The `$value` paths of a media entity set and the picture each key answers.

    `prefix` is the entity set's path (`/odata/Artikel`); `key_name` its key property, so both
    `Artikel('K')` and `Artikel(Nummer='K')` match (quotes doubled inside the key, as in URLs).
    """

    def __init__(self, prefix, key_name, pictures):
        self.pattern = re.compile(
            re.escape(prefix) + r"\((?:" + re.escape(key_name) + r"=)?'((?:[^']|'')*)'\)/\$value"
        )
        self.pictures = pictures

    def key(self, path):
        """The key a `$value` path names, or None for any other path."""
        match = self.pattern.fullmatch(path)
        return match.group(1).replace("''", "'") if match else None

    def media(self, key, directory):
        """(content type, bytes) of the media resource of `key`, as `$value` answers it, or
        None; the servers also store it so their payloads announce the right content type."""
        name = self.pictures.get(key)
        return None if name is None else read_picture(directory, name, {key}, key)


def product_picture_name(product):
    """The /imgs/ file name of a product's picture: its PictureUrl's when that is under /imgs/,
    else `<ProductId>.jpg` (what the bundled catalog's PictureUrl says anyway)."""
    url = product.get("PictureUrl") or ""
    if url.startswith("/imgs/") and "/" not in url[len("/imgs/"):]:
        return url[len("/imgs/"):]
    return product["ProductId"] + ".jpg"


class OnlyUnderMount:
    """Answers 404 (JSON) for every path outside the service's mount path.

    Without it pyslet answers 500 (a crash in its error page) and odatapy serves the service
    at any prefix, so a client that lost the mount path would still get rows.
    """

    def __init__(self, app, mount):
        self.app = app
        self.mount = mount

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path.startswith(self.mount) or path == self.mount.rstrip("/"):
            return self.app(environ, start_response)
        return _not_found(
            start_response, "no service at %s; the service root is %s" % (path, self.mount)
        )


def shape_service(shape, service):
    """The OData service as `shape` serves it: only under its mount path (except `espm`,
    which answers as it always has), inside SAP's quirks for `gateway` and `s4`."""
    if not shape.answers_outside_mount:
        service = OnlyUnderMount(service, shape.mount)
    if shape.sap_quirks:
        service = SapGatewayQuirks(service, shape.mount.rstrip("/").rsplit("/", 1)[-1])
    return service


def media_resources(shape, products):
    """The `MediaResources` of the shape's media entity set (keyed by ProductId), or None."""
    if not shape.media_set:
        return None
    entity_set = shape.entity_set(shape.media_set)
    return MediaResources(
        shape.mount + entity_set.name,
        shape.entity_type(entity_set.entity_type).key,
        {p["ProductId"]: product_picture_name(p) for p in products},
    )


def shape_app(products, args, media):
    """The PictureAndStatsApp for a shape: pictures, stats and the shape's media resources."""
    return PictureAndStatsApp(
        [p["ProductId"] for p in products], args.picture_delay_ms, args.pictures, media
    )


def exit_when_stdin_closes():
    """Ends the process when the parent (the test run) closes our stdin or dies."""

    def watch():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def serve(app, port, make_service, accepted=(), mount="/odata/"):
    """Binds 127.0.0.1:port, builds the service for the real root, prints the ready line
    `READY <port> <mount>` (the service root is http://127.0.0.1:<port><mount>).

    With `accepted` `Authorization` values, every request must carry one of them.
    """
    served = RequireAuthorization(app, accepted) if accepted else app
    httpd = make_server(
        "127.0.0.1", port, served, server_class=_ThreadingServer, handler_class=_QuietHandler
    )
    bound = httpd.server_address[1]
    app.service = make_service("http://127.0.0.1:%d" % bound)
    exit_when_stdin_closes()
    sys.stdout.write("READY %d %s\n" % (bound, mount))
    sys.stdout.flush()
    try:
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
