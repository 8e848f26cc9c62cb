"""The HTTP load case of `Benchmarks/compare --filter http`: 1,000 concurrent clients each upload
the 12 MP JPEG to `POST /v1/classify`, against `vision-catalog serve` and against the FastAPI +
ONNX Runtime + Pillow server of fastapi_server.py (uvicorn, one worker per core), one after the
other in the same run.

Usage: http_bench.py --bin DIR --inputs DIR --models DIR --ours-out FILE [--filter TEXT]
       [--clients N]

Rows (tab-separated `name, median_ms, min_ms, iterations, tool`, for ratios.py; lower is better):
- `VisionCatalog.http.classify.12MP.clients1000`: wall time / requests, in ms per request (the
  inverse of requests per second);
- `...clients1000.p99` and `.p50`: the nearest-rank latency percentiles, each request timed from
  its connect to its whole answer (so it includes the wait in the listen backlog).
Ours go to --ours-out, the reference's to standard output. Each server's peak threads and
resident memory (its worker processes summed for uvicorn), requests per second and the status
counts go to standard error.
"""

import argparse
import asyncio
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

NAME = "VisionCatalog.http.classify.12MP.clients{clients}"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_ready(port, process, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if sock.recv(64).startswith(b"HTTP/1.1 200"):
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("the server did not become ready")


def descendants(pid):
    """`pid` and every process below it."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        queue.extend(children.get(current, []))
    return found


class Sampler(threading.Thread):
    """Peak threads and resident memory of a process tree, every 50 ms."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.running = pid, True
        self.threads = self.rss_mb = 0

    def run(self):
        while self.running:
            threads = rss = 0
            for pid in descendants(self.pid):
                try:
                    with open(f"/proc/{pid}/status") as handle:
                        for line in handle:
                            if line.startswith("Threads:"):
                                threads += int(line.split()[1])
                            elif line.startswith("VmRSS:"):
                                rss += int(line.split()[1])
                except OSError:
                    pass
            self.threads = max(self.threads, threads)
            self.rss_mb = max(self.rss_mb, rss // 1024)
            time.sleep(0.05)


async def upload(port, request, latencies, statuses):
    started = time.monotonic()
    status = None
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        await writer.drain()
        line = await reader.readline()
        status = int(line.split()[1]) if line.startswith(b"HTTP/1.") else None
        length = 0
        while True:
            header = await reader.readline()
            if header in (b"\r\n", b""):
                break
            if header.lower().startswith(b"content-length:"):
                length = int(header.split(b":", 1)[1])
        await reader.readexactly(length)
        writer.close()
    except (OSError, asyncio.IncompleteReadError, ValueError):
        status = None
    latencies.append(time.monotonic() - started)
    statuses[status] = statuses.get(status, 0) + 1


async def load(port, photo, clients):
    request = (f"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\n"
               f"Content-Length: {len(photo)}\r\nConnection: close\r\n\r\n").encode() + photo
    latencies, statuses = [], {}
    started = time.monotonic()
    await asyncio.gather(*(upload(port, request, latencies, statuses) for _ in range(clients)))
    return time.monotonic() - started, sorted(latencies), statuses


def percentile(values, fraction):
    return values[min(len(values) - 1, max(0, int(round(fraction * len(values))) - 1))]


def measure(tool, command, port, photo, clients, env=None):
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        wait_ready(port, process)
        sampler = Sampler(process.pid)
        sampler.start()
        wall, latencies, statuses = asyncio.run(load(port, photo, clients))
        sampler.running = False
        sampler.join()
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            code = "killed"
    print(f"http {tool}: {clients} clients, {clients / wall:.1f} requests/s, "
          f"p50 {percentile(latencies, 0.5) * 1000:.0f} ms, p99 {percentile(latencies, 0.99) * 1000:.0f} ms, "
          f"statuses {statuses}, peak threads {sampler.threads}, peak RSS {sampler.rss_mb} MB, "
          f"exit after SIGTERM: {code}", file=sys.stderr)
    name = NAME.format(clients=clients)
    per_request = wall * 1000 / clients
    return [
        f"{name}\t{per_request:.3f}\t{per_request:.3f}\t{clients}\t{tool}",
        f"{name}.p50\t{percentile(latencies, 0.5) * 1000:.3f}\t{latencies[0] * 1000:.3f}\t{clients}\t{tool}",
        f"{name}.p99\t{percentile(latencies, 0.99) * 1000:.3f}\t{latencies[0] * 1000:.3f}\t{clients}\t{tool}",
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", type=Path, required=True)
    parser.add_argument("--inputs", type=Path, required=True)
    parser.add_argument("--models", type=Path, required=True)
    parser.add_argument("--ours-out", type=Path, required=True)
    parser.add_argument("--filter", default="")
    parser.add_argument("--clients", type=int, default=1000)
    arguments = parser.parse_args()
    if arguments.filter and arguments.filter not in NAME.format(clients=arguments.clients):
        return
    photo_path = arguments.inputs / "photo-12mp.jpg"
    model = arguments.models / "onnx" / "efficientnet-lite0.onnx"
    if not photo_path.exists() or not model.exists():
        print(f"http case skipped: {photo_path} or {model} is absent", file=sys.stderr)
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * arguments.clients + 256)), hard))
    photo = photo_path.read_bytes()
    root = Path(__file__).resolve().parent.parent.parent

    port = free_port()
    ours = measure("ours", [str(arguments.bin / "vision-catalog"), "serve", "--port", str(port)],
                   port, photo, arguments.clients)
    with arguments.ours_out.open("a") as handle:
        handle.write("".join(row + "\n" for row in ours))

    port = free_port()
    env = dict(os.environ, VC_MODEL=str(model),
               VC_LABELS=str(root / "Sources/ClassifierKit/Resources/imagenet1k_labels.txt"))
    workers = len(os.sched_getaffinity(0))
    command = [sys.executable, "-m", "uvicorn", "fastapi_server:app", "--app-dir",
               str(Path(__file__).resolve().parent), "--host", "127.0.0.1", "--port", str(port),
               "--workers", str(workers), "--log-level", "warning", "--backlog", "4096"]
    for row in measure(f"fastapi+onnxruntime+pillow ({workers} uvicorn workers)", command, port,
                       photo, arguments.clients, env):
        print(row)


if __name__ == "__main__":
    main()
