#!/usr/bin/env bash
# Seeds the index corpus with small index files written here from the format's description
# (VisualSearch's IndexFileHeader), independently of the writer: half and int8 rows, names with
# non-ASCII text, an empty index.
set -euo pipefail
corpus="$1"
python3 - "$corpus" <<'PY'
import struct, sys, zlib
out = sys.argv[1]
def text(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b
def index(name, dims, rows, encoding=1, embedder="seed 1"):
    stride = (dims + 31) // 32 * 32
    if encoding == 1:
        vectors = b"".join(struct.pack("<%de" % stride, *(r + [0.0] * (stride - dims))) for r, _ in rows)
        scales = b""
    else:
        vectors = b"".join(struct.pack("<%db" % stride, *(r + [0] * (stride - dims))) for r, _ in rows)
        scales = b"".join(struct.pack("<f", 0.01) for _ in rows)
    records = text(embedder) + b"".join(
        text(p) + text("name " + p) + text("Fruit") + text("pictures/%s.jpg" % p) + bytes(range(32))
        for _, p in rows)
    count = len(rows)
    vectors_offset = 128
    scales_offset = vectors_offset + len(vectors) if encoding == 2 else 0
    records_offset = vectors_offset + len(vectors) + len(scales)
    file_length = records_offset + len(records)
    header = b"VCSRCHIX" + struct.pack("<II", 1, dims) + bytes([encoding]) + bytes(7)
    header += struct.pack("<7Q", count, stride, vectors_offset, scales_offset, records_offset, len(records), file_length)
    header += struct.pack("<3I", zlib.crc32(vectors), zlib.crc32(scales), zlib.crc32(records))
    header += bytes(124 - len(header))
    header += struct.pack("<I", zlib.crc32(header))
    with open("%s/%s.vcindex" % (out, name), "wb") as f:
        f.write(header + vectors + scales + records)
index("half", 5, [([0.5, -0.25, 1.0, 0.0, 0.125], "A1"), ([1.0, 0.0, 0.0, 0.0, 0.0], "B2")])
index("int8", 40, [([i % 7 - 3 for i in range(40)], "Käse"), ([1] * 40, "C3"), ([-1] * 40, "C3")], encoding=2)
index("empty", 8, [])
PY
