#!/usr/bin/env python3
"""Write small PyTorch checkpoints in both torch.save layouts without installing torch.

torch.save pickles a state dict with Python's own pickle module (protocol 2), turning every
tensor into `torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
backward_hooks)` and every storage into the persistent id
`('storage', torch.FloatStorage, key, 'cpu', numel)` (plus a `None` view entry in the legacy
layout). This script registers stand-in `torch` and `torch._utils` modules so that the same
pickler emits the same opcodes, then writes

    <out>/zip.pth      the zip layout of torch >= 1.6: archive/data.pkl, archive/byteorder,
                       archive/data/<key>, archive/version (entries stored, not compressed)
    <out>/legacy.pth   the legacy layout: magic, protocol version and sys-info pickles, the
                       state-dict pickle, the sorted storage-key list, then per storage an
                       8-byte little-endian element count and the raw data
    <out>/expected.json  every entry's name, dtype, shape and row-major values

Only the standard library is used (pickle, struct, zipfile).
"""

from __future__ import annotations

import collections
import io
import json
import pickle
import struct
import sys
import types
import zipfile
from pathlib import Path

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001


def install_stand_in_torch() -> types.ModuleType:
    torch = types.ModuleType("torch")
    utils = types.ModuleType("torch._utils")

    def _rebuild_tensor_v2(*_):
        raise RuntimeError("stand-in: only pickled, never called")

    _rebuild_tensor_v2.__module__ = "torch._utils"
    _rebuild_tensor_v2.__qualname__ = "_rebuild_tensor_v2"
    utils._rebuild_tensor_v2 = _rebuild_tensor_v2
    torch._utils = utils
    for name in ("FloatStorage", "DoubleStorage", "HalfStorage", "LongStorage", "BoolStorage"):
        setattr(torch, name, type(name, (), {"__module__": "torch"}))
    sys.modules["torch"] = torch
    sys.modules["torch._utils"] = utils
    return torch


TORCH = install_stand_in_torch()
FORMATS = {
    "FloatStorage": ("<f", "float32"),
    "DoubleStorage": ("<d", "float64"),
    "HalfStorage": ("<e", "float16"),
    "LongStorage": ("<q", "int64"),
    "BoolStorage": ("<?", "bool"),
}


class Storage:
    def __init__(self, key: str, type_name: str, values: list):
        self.key = key
        self.type_name = type_name
        self.values = values

    @property
    def data(self) -> bytes:
        code = FORMATS[self.type_name][0]
        return b"".join(struct.pack(code, value) for value in self.values)


class Tensor:
    def __init__(self, storage: Storage, offset: int, size: tuple, stride: tuple):
        self.storage, self.offset, self.size, self.stride = storage, offset, size, stride

    def __reduce_ex__(self, protocol):
        return (
            TORCH._utils._rebuild_tensor_v2,
            (self.storage, self.offset, self.size, self.stride, False, collections.OrderedDict()),
        )

    def row_major_values(self) -> list:
        count = 1
        for dimension in self.size:
            count *= dimension
        values = []
        for flat in range(count):
            offset, rest = self.offset, flat
            for dimension, stride in reversed(list(zip(self.size, self.stride))):
                offset += (rest % dimension) * stride
                rest //= dimension
            values.append(float(self.storage.values[offset]))
        return values


def state_dict():
    weights = Storage("0", "FloatStorage", [0.5 * i - 3 for i in range(24)])
    bias = Storage("1", "FloatStorage", [0.25, -1.5, 3.0, 1e-8])
    tracked = Storage("2", "LongStorage", [123456])
    half = Storage("3", "HalfStorage", [1.5, -2.0, 65504.0])
    double = Storage("4", "DoubleStorage", [0.1, -0.2])
    mask = Storage("5", "BoolStorage", [True, False, True])
    entries = collections.OrderedDict()
    # A permuted convolution weight, as the EfficientNet-Lite checkpoints store them.
    entries["conv.weight"] = Tensor(weights, 0, (4, 3, 2, 1), (1, 8, 4, 4))
    entries["conv.bias"] = Tensor(bias, 0, (4,), (1,))
    entries["bn.num_batches_tracked"] = Tensor(tracked, 0, (), ())
    entries["tail"] = Tensor(weights, 20, (2, 2), (2, 1))
    entries["half"] = Tensor(half, 0, (3,), (1,))
    entries["double"] = Tensor(double, 0, (2,), (1,))
    entries["mask"] = Tensor(mask, 0, (3,), (1,))
    # torch.nn.Module.state_dict() carries this attribute, pickled as BUILD state.
    entries._metadata = collections.OrderedDict([("", {"version": 1})])
    return entries


def pickle_state_dict(entries, legacy: bool) -> tuple[bytes, dict]:
    storages: dict[str, Storage] = {}

    class Pickler(pickle.Pickler):
        def persistent_id(self, obj):
            if not isinstance(obj, Storage):
                return None
            storages[obj.key] = obj
            storage_type = getattr(TORCH, obj.type_name)
            if legacy:
                return ("storage", storage_type, obj.key, "cpu", len(obj.values), None)
            return ("storage", storage_type, obj.key, "cpu", len(obj.values))

    buffer = io.BytesIO()
    Pickler(buffer, protocol=2).dump(entries)
    return buffer.getvalue(), storages


def write_zip(entries, path: Path) -> None:
    data, storages = pickle_state_dict(entries, legacy=False)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("archive/data.pkl", data)
        archive.writestr("archive/byteorder", "little")
        for key in sorted(storages):
            archive.writestr(f"archive/data/{key}", storages[key].data)
        archive.writestr("archive/version", "3\n")


def write_legacy(entries, path: Path) -> None:
    output = io.BytesIO()
    sys_info = {
        "protocol_version": PROTOCOL_VERSION,
        "little_endian": True,
        "type_sizes": {"short": 2, "int": 4, "long": 4},
    }
    for value in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
        pickle.dump(value, output, protocol=2)
    data, storages = pickle_state_dict(entries, legacy=True)
    output.write(data)
    keys = sorted(storages)
    pickle.dump(keys, output, protocol=2)
    for key in keys:
        output.write(struct.pack("<q", len(storages[key].values)))
        output.write(storages[key].data)
    path.write_bytes(output.getvalue())


def main() -> int:
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} OUTPUT_DIR", file=sys.stderr)
        return 2
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    entries = state_dict()
    write_zip(entries, out / "zip.pth")
    write_legacy(entries, out / "legacy.pth")
    expected = [
        {
            "name": name,
            "dtype": FORMATS[tensor.storage.type_name][1],
            "shape": list(tensor.size),
            "values": tensor.row_major_values(),
        }
        for name, tensor in entries.items()
    ]
    (out / "expected.json").write_text(json.dumps(expected, indent=1))
    print(f"wrote zip.pth, legacy.pth and expected.json ({len(expected)} tensors) to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
