"""A tiny HTTP server producing the faults real OData servers cannot: for client error tests.

Prints `READY <port>` once listening; exits when stdin closes. Each path prefix is one fault:
  /slow/...            answers after 30 s
  /malformed/...       200 with truncated JSON
  /status/<code>/...   <code> with a v4 error body
  /sap400/...          400 with SAP's v2 error body ({"message":{"lang","value"}})
  /flaky/<n>/<id>/...  503 (Retry-After: 0) for the first <n> requests of <id>, then a v4 page
  /always503/...       503 forever
  /endless/...         v4 pages of one entity whose next link never ends
  /loop/...            a v4 page whose next link is the page itself
  /huge/...            a 200 body of 64 MiB, announced in Content-Length
  /stream/...          a 200 body of 64 MiB in chunked encoding, no length announced
  /foreign-next/...    a v4 page whose next link is on another host
  /headers/...         a v4 page echoing the request's Authorization and sap-client headers,
                       and an X-CSRF-Token response header when asked with "Fetch"
  /redirect-home/...   302 to a v4 page on this server
  /redirect-away/...   302 to another host
  /v2old/...           a v2 payload in the old {"d":[…]} form
  /v2next/...          v2 pages with a string __next (SAP form) and string __count
  /reset/...           200 announcing 1 MiB, 4 KiB of it, then a TCP reset
  /trickle/...         200 announcing 4 KiB, one byte every 100 ms (gives up after 60 s)
  /retry-after/<s>/... 503 with Retry-After: <s> forever
  /deep/...            200 with 1 MiB of nested arrays ([[[[…)
  /wide/...            200 with a valid v4 page of 20,000 entities (about 2 MiB)
  /cycle/...           v4 pages 0 -> 1 -> 2 -> 0 … whose next links cycle with period 3
"""

import json
import os
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

COUNTS = {}
LOCK = threading.Lock()


def _product(product_id, price="9.00"):
    return {"ProductId": product_id, "Name": "Item " + product_id, "Price": price}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - http.server's signature
        pass

    def _send(self, status, body, content_type="application/json", headers=()):
        data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):  # noqa: N802 - http.server's naming
        parts = urlsplit(self.path)
        segments = [s for s in parts.path.split("/") if s]
        query = parse_qs(parts.query)
        origin = "http://127.0.0.1:%d" % self.server.server_address[1]
        kind = segments[0] if segments else ""
        if kind == "slow":
            time.sleep(30)
            self._send(200, {"value": []})
        elif kind == "malformed":
            self._send(200, b'{"value":[{"ProductId":"HT-1000","Name":')
        elif kind == "status":
            code = int(segments[1])
            self._send(code, {"error": {"code": str(code), "message": "fault %d" % code}})
        elif kind == "sap400":
            self._send(
                400,
                {
                    "error": {
                        "code": "SY/530",
                        "message": {"lang": "en", "value": "Property 'Nope' is unknown"},
                    }
                },
            )
        elif kind == "flaky":
            failures, key = int(segments[1]), segments[2]
            with LOCK:
                COUNTS[key] = COUNTS.get(key, 0) + 1
                seen = COUNTS[key]
            if seen <= failures:
                status = 429 if seen % 2 else 503
                self._send(status, {"error": {"code": "busy", "message": "retry"}},
                           headers=[("Retry-After", "0")])
            else:
                self._send(200, {"value": [_product("HT-1000")], "attempts": seen})
        elif kind == "always503":
            self._send(503, {"error": {"code": "busy", "message": "down"}},
                       headers=[("Retry-After", "0")])
        elif kind == "endless":
            page = int(query.get("page", ["0"])[0])
            self._send(200, {
                "value": [_product("HT-%d" % page)],
                "@odata.nextLink": "%s/endless/Products?page=%d" % (origin, page + 1),
            })
        elif kind == "loop":
            self._send(200, {"value": [_product("HT-1")], "@odata.nextLink": origin + self.path})
        elif kind == "huge":
            size = 64 << 20
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            chunk = b" " * (1 << 20)
            try:
                for _ in range(size >> 20):
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif kind == "stream":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b" " * (1 << 20)
            try:
                for _ in range(64):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif kind == "foreign-next":
            self._send(200, {
                "value": [_product("HT-1")],
                "@odata.nextLink": "http://other.invalid/Products?page=2",
            })
        elif kind == "headers":
            headers = []
            if self.headers.get("X-CSRF-Token", "").lower() == "fetch":
                headers.append(("X-CSRF-Token", "token-123"))
            self._send(200, {"value": [{
                "ProductId": "echo",
                "Authorization": self.headers.get("Authorization", ""),
                "SapClient": self.headers.get("sap-client", ""),
                "Accept": self.headers.get("Accept", ""),
            }]}, headers=headers)
        elif kind == "redirect-home":
            self._send(302, b"", "text/plain",
                       headers=[("Location", origin + "/flaky/0/home/Products")])
        elif kind == "redirect-away":
            self._send(302, b"", "text/plain",
                       headers=[("Location", "http://other.invalid/Products")])
        elif kind == "v2old":
            self._send(200, {"d": [{
                "__metadata": {"uri": origin + "/v2old/Products('HT-1000')"},
                "ProductId": "HT-1000", "Price": "956.00", "StockQuantity": "142",
                "UpdatedTimestamp": "/Date(1705307400000)/",
            }]})
        elif kind == "v2next":
            token = query.get("$skiptoken", [None])[0]
            if token is None:
                self._send(200, {"d": {"results": [_product("HT-1000", "1.50")], "__count": "2",
                                       "__next": origin + "/v2next/Products?$skiptoken=1"}})
            else:
                self._send(200, {"d": {"results": [_product("HT-1001", "2.50")]}})
        elif kind == "reset":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(1 << 20))
            self.end_headers()
            try:
                self.wfile.write(b'{"value":[' + b" " * 4096)
                self.wfile.flush()
                time.sleep(0.1)
                # SO_LINGER with a zero timeout turns close() into a reset (RST).
                self.connection.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
            except OSError:
                pass
            self.close_connection = True
        elif kind == "trickle":
            body = json.dumps({"value": [_product("HT-%04d" % i) for i in range(80)]}).encode()
            body = body[:4096].ljust(4096, b" ")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                for index in range(min(len(body), 600)):
                    self.wfile.write(body[index:index + 1])
                    self.wfile.flush()
                    time.sleep(0.1)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
        elif kind == "retry-after":
            self._send(503, {"error": {"code": "busy", "message": "come back later"}},
                       headers=[("Retry-After", segments[1])])
        elif kind == "deep":
            self._send(200, b"[" * (1 << 20))
        elif kind == "wide":
            self._send(200, json.dumps(
                {"value": [_product("HT-%05d" % i) for i in range(20000)]}).encode())
        elif kind == "cycle":
            page = int(query.get("page", ["0"])[0])
            self._send(200, {
                "value": [_product("HT-%d" % page)],
                "@odata.nextLink": "%s/cycle/Products?page=%d" % (origin, (page + 1) % 3),
            })
        else:
            self._send(404, {"error": {"code": "404", "message": "no fault " + kind}})


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True

    def watch():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
    sys.stdout.write("READY %d\n" % server.server_address[1])
    sys.stdout.flush()
    server.serve_forever(poll_interval=0.2)


if __name__ == "__main__":
    main()
