#!/usr/bin/env python3
"""Hostile clients against a live `vision-catalog serve` (or the test's CatalogServer).

Usage: hostile_clients.py PORT PHOTO

Each attack runs over raw sockets (the standard library only) and records what the server
answered; then a well-behaved client checks that the server still serves. Prints one JSON
object: {"attacks": {name: {...}}, "after": {"health": status, "classify": status}}.
"""

import json
import socket
import struct
import sys
import threading
import time
import zlib

HOST = "127.0.0.1"


def connect(port, timeout=10.0):
    sock = socket.create_connection((HOST, port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_status(sock):
    """The status code of the response on `sock`, or None when the server closed it first."""
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, socket.timeout, BrokenPipeError):
        pass
    if not data.startswith(b"HTTP/1."):
        return None
    try:
        return int(data.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def exchange(port, raw, timeout=10.0):
    sock = connect(port, timeout)
    try:
        try:
            sock.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass
        return read_status(sock)
    finally:
        sock.close()


def request(port, method, path, body=b"", headers=None):
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", f"Content-Length: {len(body)}",
             "Connection: close"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return exchange(port, ("\r\n".join(lines) + "\r\n\r\n").encode() + body, timeout=60.0)


def oversized_declared(port):
    # Declares 1 GiB and sends 1 MiB of it: refused from the header, before the body is read.
    sock = connect(port)
    try:
        sock.sendall(b"POST /v1/classify HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\n")
        try:
            sock.sendall(b"\0" * (1 << 20))
        except (BrokenPipeError, ConnectionResetError):
            pass
        return {"status": read_status(sock)}
    finally:
        sock.close()


def oversized_chunked(port, megabytes):
    # A chunked body past the limit: the server closes the connection (or answers 413).
    sock = connect(port)
    closed_early = False
    try:
        sock.sendall(b"POST /v1/classify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"100000\r\n" + b"\1" * 0x100000 + b"\r\n"
        for _ in range(megabytes):
            try:
                sock.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                closed_early = True
                break
        status = read_status(sock)
        return {"status": status, "closed": closed_early or status is None or status == 413}
    finally:
        sock.close()


def truncated_multipart(port):
    boundary = "hostile"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.jpg\"\r\n"
            "Content-Type: image/jpeg\r\n\r\n").encode()
    body = head + b"\xff\xd8\xff" + b"\0" * 5000  # no closing boundary
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    complete_but_cut = request(port, "POST", "/v1/classify", body, headers)
    # Declares more than it sends, then closes: the server must drop it without an answer.
    sock = connect(port)
    try:
        sock.sendall((f"POST /v1/classify HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; "
                      f"boundary={boundary}\r\nContent-Length: {len(body) * 2}\r\n\r\n").encode() + body)
    finally:
        sock.close()
    return {"status": complete_but_cut}


def slow_loris(port, connections, seconds):
    # Connections that send one header byte a second; meanwhile normal requests must succeed.
    socks = []
    for index in range(connections):
        sock = connect(port)
        sock.sendall(INCOMPLETE[index % 2] if index < 4 else b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        socks.append(sock)
    served = 0
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        for sock in socks[4:]:
            try:
                sock.sendall(b"X")
            except OSError:
                pass
        if request(port, "GET", "/healthz") == 200:
            served += 1
        time.sleep(0.5)
    for sock in socks:
        sock.close()
    return {"connections": connections, "served_meanwhile": served}


# Requests the server must refuse at once (400, 404, 413, 414, 431, 505) or close.
MALFORMED = [
    b"GET\r\n\r\n",
    b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    b"BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n",
    b"POST /v1/classify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 100000 + b"\r\n\r\n",
    b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\n" + b"H: v\r\n" * 5000 + b"\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
]

# Requests that are not complete yet (binary junk without a line's end, blank lines before a
# request line): the server waits for the rest, as HTTP lets it, until the idle timeout; these
# run as the slow clients do, beside normal requests.
INCOMPLETE = [b"\x00\x01\x02\x03\r\n\r\n", b"\r\n\r\n\r\n\r\n"]


def malformed(port, count, threads=8):
    statuses = {}
    lock = threading.Lock()
    errors = []

    def worker(start):
        for index in range(start, count, threads):
            try:
                status = exchange(port, MALFORMED[index % len(MALFORMED)], timeout=10.0)
            except OSError as error:
                status = None
                with lock:
                    errors.append(str(error))
            with lock:
                key = str(status)
                statuses[key] = statuses.get(key, 0) + 1

    workers = [threading.Thread(target=worker, args=(start,)) for start in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    return {"count": count, "statuses": statuses, "connect_errors": len(errors),
            "server_errors": sum(n for key, n in statuses.items() if key in ("500", "502", "503"))}


def traversal(port):
    paths = ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/v1/../../etc/passwd",
             "//etc/passwd", "/static/..%2f..%2fetc%2fpasswd"]
    return {"statuses": [request(port, "GET", path) for path in paths]}


def bomb():
    """A valid PNG of 60,000 x 60,000 RGB pixels of zeros (10.8 GB decoded), cut to its first
    rows: the decoder must refuse it from the header."""
    def chunk(kind, payload):
        return (struct.pack(">I", len(payload)) + kind + payload
                + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))
    side = 60000
    rows = zlib.compress(b"\0" * ((side * 3 + 1) * 64), 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", rows) + chunk(b"IEND", b""))


def main():
    port = int(sys.argv[1])
    with open(sys.argv[2], "rb") as handle:
        photo = handle.read()
    attacks = {
        "oversized_declared": oversized_declared(port),
        "oversized_chunked": oversized_chunked(port, 70),
        "truncated_multipart": truncated_multipart(port),
        "slow_loris": slow_loris(port, 20, 3.0),
        "malformed": malformed(port, 10000),
        "traversal": traversal(port),
        "not_an_image": {"status": request(port, "POST", "/v1/classify", b"hello, world")},
        "decompression_bomb": {"status": request(port, "POST", "/v1/classify", bomb())},
    }
    after = {
        "health": request(port, "GET", "/healthz"),
        "classify": request(port, "POST", "/v1/classify", photo, {"Content-Type": "image/jpeg"}),
    }
    print(json.dumps({"attacks": attacks, "after": after}, sort_keys=True))


if __name__ == "__main__":
    main()
