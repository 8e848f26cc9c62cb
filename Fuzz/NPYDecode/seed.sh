#!/usr/bin/env bash
# Seeds the .npy corpus with small arrays of every element type the reader knows, in format
# versions 1.0 and 2.0, written with the standard library only.
set -euo pipefail
corpus="$1"
python3 - "$corpus" <<'PY'
import struct, sys
out = sys.argv[1]
def npy(name, descr, shape, payload, major=1):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    prefix = 10 if major == 1 else 12
    header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H", len(header)) if major == 1 else struct.pack("<I", len(header))
    with open("%s/%s.npy" % (out, name), "wb") as f:
        f.write(b"\x93NUMPY" + bytes([major, 0]) + size + header.encode() + payload)
npy("f4", "<f4", "(1, 3, 2, 2)", struct.pack("<12f", *range(12)))
npy("f8", "<f8", "(3,)", struct.pack("<3d", 0.5, -1.0, 1e300))
npy("f2", "<f2", "(2, 2)", struct.pack("<4e", 1.0, -2.0, 65504.0, 0.0))
npy("i8", "<i8", "(2,)", struct.pack("<2q", -5, 1 << 40))
npy("u1", "|u1", "(4,)", bytes([0, 1, 128, 255]))
npy("scalar", "<f4", "()", struct.pack("<f", 3.25))
npy("empty", "<f4", "(0, 3)", b"")
npy("v2", "<f4", "(2,)", struct.pack("<2f", 1.5, 2.5), major=2)
npy("bigendian", ">f4", "(2,)", struct.pack(">2f", 1.5, 2.5))
PY
