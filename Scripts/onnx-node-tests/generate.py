#!/usr/bin/env python3
"""Write ONNX's backend node test cases as model.onnx + TensorProto files.

For every case of onnx.backend.test.case.node.collect_testcases() this writes

    <out>/<case name>/model.onnx
    <out>/<case name>/test_data_set_<k>/input_<j>.pb    (serialized TensorProto)
    <out>/<case name>/test_data_set_<k>/output_<j>.pb
    <out>/<case name>/case.json   (op types, tolerances, and the kind of every input and output)

which is the layout ONNX itself used for its pre-generated data (onnx/backend/test/data/node).
Sequence, map and optional values are written as SequenceProto/MapProto/OptionalProto exactly as
onnx's own cmd_tools does; case.json names their kind so a reader can skip them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper
from onnx.backend.test.case import node


def value_kind(value_info: onnx.ValueInfoProto) -> str:
    kind = value_info.type.WhichOneof("value")
    return {
        "tensor_type": "tensor",
        "sequence_type": "sequence",
        "map_type": "map",
        "optional_type": "optional",
        "sparse_tensor_type": "sparse_tensor",
    }.get(kind or "", "unknown")


def serialize(value, value_info: onnx.ValueInfoProto) -> bytes:
    kind = value_kind(value_info)
    if kind == "map":
        return numpy_helper.from_dict(value, value_info.name).SerializeToString()
    if kind == "sequence":
        return numpy_helper.from_list(value, value_info.name).SerializeToString()
    if kind == "optional":
        return numpy_helper.from_optional(value, value_info.name).SerializeToString()
    if isinstance(value, TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(value, value_info.name).SerializeToString()


def summary(data: bytes, value_info: onnx.ValueInfoProto) -> dict | None:
    """Shape, type and checksums of a written tensor, so a reader can verify its decoding."""
    if value_kind(value_info) != "tensor":
        return None
    tensor = TensorProto()
    tensor.ParseFromString(data)
    result = {"dims": list(tensor.dims), "data_type": tensor.data_type}
    if tensor.data_type == TensorProto.STRING:
        return result
    if tensor.data_type in (TensorProto.COMPLEX64, TensorProto.COMPLEX128):
        return result
    array = numpy_helper.to_array(tensor).astype(np.float64).ravel()
    finite = array[np.isfinite(array)]
    result["nan_count"] = int(np.isnan(array).sum())
    result["finite_sum"] = float(finite.sum())
    result["finite_abs_sum"] = float(np.abs(finite).sum())
    return result


def write_case(case, root: Path) -> None:
    directory = root / case.name
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    model = case.model
    (directory / "model.onnx").write_bytes(model.SerializeToString())
    graph = model.graph
    summaries = []
    for index, (inputs, outputs) in enumerate(case.data_sets or []):
        data_dir = directory / f"test_data_set_{index}"
        data_dir.mkdir()
        files = [("input", j, v, graph.input[j]) for j, v in enumerate(inputs)]
        files += [("output", j, v, graph.output[j]) for j, v in enumerate(outputs)]
        for role, j, value, info in files:
            data = serialize(value, info)
            (data_dir / f"{role}_{j}.pb").write_bytes(data)
            entry = summary(data, info)
            if entry is not None:
                entry["file"] = f"test_data_set_{index}/{role}_{j}.pb"
                summaries.append(entry)
    manifest = {
        "name": case.name,
        "op_types": sorted({n.op_type for n in graph.node}),
        "opset": [{"domain": o.domain, "version": o.version} for o in model.opset_import],
        "rtol": case.rtol,
        "atol": case.atol,
        "inputs": [{"name": i.name, "kind": value_kind(i)} for i in graph.input],
        "outputs": [{"name": o.name, "kind": value_kind(o)} for o in graph.output],
        "data_sets": len(case.data_sets or []),
        "tensors": summaries,
    }
    (directory / "case.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="directory to write the cases into")
    args = parser.parse_args()
    args.output.mkdir(parents=True, exist_ok=True)
    cases = [c for c in node.collect_testcases() if c.kind == "node" and c.model is not None]
    for case in cases:
        write_case(case, args.output)
    (args.output / "VERSION").write_text(f"onnx {onnx.__version__}\ncases {len(cases)}\n")
    print(f"wrote {len(cases)} ONNX node test cases (onnx {onnx.__version__}) to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
