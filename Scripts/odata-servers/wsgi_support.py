"""Shared HTTP plumbing for the test servers: threaded WSGI on 127.0.0.1, pictures, ready line."""

import argparse
import json
import os
import socketserver
import sys
import threading
import time
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from catalog_model import picture_bytes


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - wsgiref's signature
        pass


class _ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


def common_arguments(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--catalog", required=True, help="catalog JSON file")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--page-size", type=int, default=0, help="server-driven page size")
    parser.add_argument(
        "--picture-delay-ms", type=int, default=0, help="delay before answering a picture"
    )
    return parser


class PictureAndStatsApp:
    """Serves /imgs/<id>.jpg and /__stats next to the OData service, delegating the rest."""

    def __init__(self, product_ids, picture_delay_ms):
        self.product_ids = set(product_ids)
        self.delay = picture_delay_ms / 1000.0
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
            with self.lock:
                self.counts[path] = self.counts.get(path, 0) + 1
            if self.delay:
                time.sleep(self.delay)
            name = path[len("/imgs/"):]
            product_id = name[:-4] if name.endswith(".jpg") else None
            if product_id not in self.product_ids:
                start_response("404 Not Found", [("Content-Type", "text/plain")])
                return [b"no such picture"]
            start_response("200 OK", [("Content-Type", "image/jpeg")])
            return [picture_bytes(product_id)]
        return self.service(environ, start_response)


def exit_when_stdin_closes():
    """Ends the process when the parent (the test run) closes our stdin or dies."""

    def watch():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def serve(app, port, make_service):
    """Binds 127.0.0.1:port, builds the service for the real root, prints the ready line."""
    httpd = make_server(
        "127.0.0.1", port, app, server_class=_ThreadingServer, handler_class=_QuietHandler
    )
    bound = httpd.server_address[1]
    app.service = make_service("http://127.0.0.1:%d" % bound)
    exit_when_stdin_closes()
    sys.stdout.write("READY %d\n" % bound)
    sys.stdout.flush()
    try:
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
