"""Reads an ML Program package's program and weights with numpy, independently of coremltools.

Only coremltools' protobuf classes are used, to parse `Data/com.apple.CoreML/model.mlmodel`; the
blob file `weights/weight.bin` (MILBlob storage version 2) is read here byte by byte, and the
compressed constants (`constexpr_*` ops) are decompressed here, following the op definitions in
coremltools (`mil/ops/defs/iOS16/constexpr_ops.py`, `iOS18/compression.py`). The generator checks
with it that a package stores exactly the weights the reference runs.

Blob storage v2: a 64-byte header (uint32 count, uint32 version = 2, padding), then per blob a
64-byte metadata record (uint32 sentinel 0xDEADBEEF, uint32 data type, uint64 size in bytes,
uint64 offset of the data, padding) that a `blobFileValue.offset` points at. Sub-byte values are
packed from each byte's least significant bit up.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from coremltools.proto import MIL_pb2, Model_pb2

SENTINEL = 0xDEADBEEF

# MIL data type: (numpy type of the values, bits per value, blob storage data type)
DATA_TYPES = {
    MIL_pb2.FLOAT16: (np.float16, 16, 1),
    MIL_pb2.FLOAT32: (np.float32, 32, 2),
    MIL_pb2.UINT8: (np.uint8, 8, 3),
    MIL_pb2.INT8: (np.int8, 8, 4),
    MIL_pb2.BFLOAT16: (np.float32, 16, 5),
    MIL_pb2.INT16: (np.int16, 16, 6),
    MIL_pb2.UINT16: (np.uint16, 16, 7),
    MIL_pb2.INT4: (np.int8, 4, 8),
    MIL_pb2.UINT1: (np.uint8, 1, 9),
    MIL_pb2.UINT2: (np.uint8, 2, 10),
    MIL_pb2.UINT4: (np.uint8, 4, 11),
    MIL_pb2.UINT3: (np.uint8, 3, 12),
    MIL_pb2.UINT6: (np.uint8, 6, 13),
    MIL_pb2.INT32: (np.int32, 32, 14),
    MIL_pb2.UINT32: (np.uint32, 32, 15),
    MIL_pb2.INT64: (np.int64, 64, None),
    MIL_pb2.BOOL: (np.bool_, 8, None),
}

# Core ML specification version: the first OS that runs it.
DEPLOYMENT_TARGETS = {4: "iOS13", 5: "iOS14", 6: "iOS15", 7: "iOS16", 8: "iOS17", 9: "iOS18"}


class PackageError(Exception):
    """The package is not what the generator expects."""


def unpack_bits(raw: bytes, bits: int, count: int, signed: bool = False) -> np.ndarray:
    """`count` values of `bits` bits, packed from each byte's least significant bit up."""
    if len(raw) != math.ceil(count * bits / 8):
        raise PackageError(f"{count} values of {bits} bits in {len(raw)} bytes")
    stream = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
    codes = stream[: count * bits].reshape(count, bits).astype(np.int64)
    values = (codes << np.arange(bits)).sum(axis=1)
    if signed:
        values = np.where(values >= 1 << (bits - 1), values - (1 << bits), values)
    return values


class BlobFile:
    """The blobs of one `weight.bin`."""

    def __init__(self, path: Path) -> None:
        self.data = path.read_bytes()
        self.count, version = struct.unpack_from("<II", self.data, 0)
        if version != 2:
            raise PackageError(f"{path}: blob storage version {version}, expected 2")

    def read(self, offset: int, data_type: int, shape: tuple[int, ...]) -> np.ndarray:
        """The blob whose metadata is at `offset`, as values of the MIL type `data_type`."""
        sentinel, stored_type, size, start = struct.unpack_from("<IIQQ", self.data, offset)
        if sentinel != SENTINEL:
            raise PackageError(f"blob at {offset}: sentinel {sentinel:#x}")
        numpy_type, bits, blob_type = DATA_TYPES[data_type]
        if stored_type != blob_type:
            raise PackageError(f"blob at {offset}: stored type {stored_type}, MIL says {blob_type}")
        raw = self.data[start:start + size]
        if len(raw) != size:
            raise PackageError(f"blob at {offset}: {size} bytes past the end of the file")
        count = math.prod(shape)
        if bits < 8:
            values = unpack_bits(raw, bits, count, signed=data_type == MIL_pb2.INT4)
            return values.astype(numpy_type).reshape(shape)
        if size != count * bits // 8:
            raise PackageError(f"blob at {offset}: {size} bytes for {count} values of {bits} bits")
        if data_type == MIL_pb2.BFLOAT16:
            halves = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            return halves.view(np.float32).reshape(shape)
        return np.frombuffer(raw, dtype=np.dtype(numpy_type).newbyteorder("<")).reshape(shape)


def tensor_shape(value_type) -> tuple[int, ...]:
    return tuple(int(dimension.constant.size) for dimension in value_type.tensorType.dimensions)


def parse_value(value, blobs: BlobFile) -> np.ndarray | None:
    """A MIL value as an array (None for what is not a tensor, such as a list of class labels)."""
    if value.type.WhichOneof("type") != "tensorType":
        return None
    data_type = value.type.tensorType.dataType
    shape = tensor_shape(value.type)
    kind = value.WhichOneof("value")
    if kind == "blobFileValue":
        return blobs.read(value.blobFileValue.offset, data_type, shape)
    tensor = value.immediateValue.tensor
    which = tensor.WhichOneof("value")
    if which == "strings":
        return np.asarray(list(tensor.strings.values), dtype=object).reshape(shape)
    if which == "bytes":
        numpy_type, bits, _ = DATA_TYPES[data_type]
        raw = tensor.bytes.values
        if bits < 8:
            values = unpack_bits(raw, bits, math.prod(shape), signed=data_type == MIL_pb2.INT4)
            return values.astype(numpy_type).reshape(shape)
        return np.frombuffer(raw, dtype=np.dtype(numpy_type).newbyteorder("<")).reshape(shape)
    numpy_type = DATA_TYPES[data_type][0]
    values = {"floats": tensor.floats, "ints": tensor.ints, "bools": tensor.bools,
              "longInts": tensor.longInts, "doubles": tensor.doubles}[which].values
    return np.asarray(list(values), dtype=numpy_type).reshape(shape)


def affine_dequantize(quantized_data, zero_point, scale, axis) -> np.ndarray:
    """iOS16 constexpr_affine_dequantize: (quantized_data - zero_point) * scale along `axis`."""
    shape = [1] * quantized_data.ndim
    axis = int(axis)
    shape[axis] = -1
    zero = np.asarray(zero_point, np.float64)
    factor = np.asarray(scale, np.float64)
    zero = zero.reshape(shape) if zero.ndim == 1 else zero
    factor = factor.reshape(shape) if factor.ndim == 1 else factor
    return (quantized_data.astype(np.float64) - zero) * factor


def lut_to_dense_ios16(indices, lut, shape) -> np.ndarray:
    """iOS16 constexpr_lut_to_dense: `lut[index]`, indices packed into bytes, then `shape`."""
    bits = int(round(math.log2(lut.size)))
    count = math.prod(int(size) for size in shape)
    codes = unpack_bits(indices.tobytes(), bits, count)
    return lut.astype(np.float64)[codes].reshape(tuple(int(size) for size in shape))


def blocks(shape: tuple[int, ...], grid: tuple[int, ...]) -> tuple[int, ...]:
    """Block sizes: each dimension of the tensor divided by the grid's."""
    if len(shape) != len(grid) or any(size % count for size, count in zip(shape, grid)):
        raise PackageError(f"shape {shape} is not a grid of {grid} blocks")
    return tuple(size // count for size, count in zip(shape, grid))


def interleaved(grid_values: np.ndarray, block: tuple[int, ...]) -> tuple[np.ndarray, list[int]]:
    """A per-block array shaped (g0, 1, g1, 1, ...), and the shape (g0, b0, g1, b1, ...) that
    the tensor takes to broadcast against it."""
    expanded, split = [], []
    for count, size in zip(grid_values.shape, block):
        expanded += [count, 1]
        split += [count, size]
    return grid_values.reshape(expanded), split


def lut_to_dense_ios18(indices, lut, vector_axis=None) -> np.ndarray:
    """iOS18 constexpr_lut_to_dense: a palette per block of `indices` (scalar palettes only)."""
    rank = indices.ndim
    if lut.ndim != rank + 2 or lut.shape[-1] != 1:
        raise PackageError(f"lut of shape {lut.shape} for indices of rank {rank} (vector LUT?)")
    grid = lut.shape[:rank]
    block = blocks(indices.shape, grid)
    palettes = lut.reshape(math.prod(grid), lut.shape[-2]).astype(np.float64)
    # The palette of each element: its block's index in row-major order over the grid.
    group = np.zeros(indices.shape, dtype=np.int64)
    for axis in range(rank):
        position = np.arange(indices.shape[axis]) // block[axis]
        shape = [1] * rank
        shape[axis] = -1
        group = group * grid[axis] + position.reshape(shape)
    return palettes[group, indices.astype(np.int64)]


def blockwise_shift_scale(data, scale, offset=None) -> np.ndarray:
    """iOS18 constexpr_blockwise_shift_scale: scale * (data - offset), one scale per block."""
    block = blocks(data.shape, scale.shape)
    factor, split = interleaved(np.asarray(scale, np.float64), block)
    values = data.astype(np.float64).reshape(split)
    if offset is not None:
        shift, _ = interleaved(np.asarray(offset, np.float64), block)
        values = values - shift
    return (values * factor).reshape(data.shape)


@dataclass
class Program:
    """The main function of an ML Program: its operations and the value of every constant."""

    spec: Model_pb2.Model
    operations: list
    values: dict[str, np.ndarray] = field(default_factory=dict)
    # constexpr output name: (op type, {parameter: (MIL data type name, shape)})
    compressed: dict[str, tuple[str, dict]] = field(default_factory=dict)

    @property
    def operation_types(self) -> list[str]:
        return sorted({op.type for op in self.operations})

    @property
    def deployment_target(self) -> str:
        return DEPLOYMENT_TARGETS[self.spec.specificationVersion]

    def consumers(self, name: str) -> list:
        return [op for op in self.operations
                if any(argument.name == name for binding in op.inputs.values()
                       for argument in binding.arguments)]


def operation_parameters(op, program: Program, blobs: BlobFile) -> dict[str, np.ndarray]:
    """An op's parameters: attributes (iOS16 constexpr ops) and inputs (iOS18), by name."""
    parameters = {key: parse_value(value, blobs) for key, value in op.attributes.items()
                  if key != "name"}
    for key, binding in op.inputs.items():
        argument = binding.arguments[0]
        if argument.WhichOneof("binding") == "name":
            parameters[key] = program.values[argument.name]
        else:
            parameters[key] = parse_value(argument.value, blobs)
    return parameters


def walk(operations):
    for op in operations:
        yield op
        for block in op.blocks:
            yield from walk(block.operations)


def read_program(package: Path) -> Program:
    """The main function of `package`, with every const and constexpr value decompressed."""
    manifest = json.loads((package / "Manifest.json").read_text())
    root = manifest["itemInfoEntries"][manifest["rootModelIdentifier"]]["path"]
    model_path = package / "Data" / root
    spec = Model_pb2.Model()
    spec.ParseFromString(model_path.read_bytes())
    if spec.WhichOneof("Type") == "neuralNetworkClassifier" or not spec.HasField("mlProgram"):
        raise PackageError(f"{package}: not an ML Program")
    blob_path = model_path.parent / "weights" / "weight.bin"
    blobs = BlobFile(blob_path) if blob_path.exists() else None
    function = spec.mlProgram.functions["main"]
    block = function.block_specializations[function.opset]
    program = Program(spec=spec, operations=list(walk(block.operations)))
    decompress = {
        ("constexpr_affine_dequantize", "iOS16"): affine_dequantize,
        ("constexpr_lut_to_dense", "iOS16"): lut_to_dense_ios16,
        ("constexpr_lut_to_dense", "iOS18"): lut_to_dense_ios18,
        ("constexpr_blockwise_shift_scale", "iOS18"): blockwise_shift_scale,
    }
    for op in program.operations:
        if op.type == "const":
            program.values[op.outputs[0].name] = parse_value(op.attributes["val"], blobs)
        elif op.type.startswith("constexpr_"):
            parameters = operation_parameters(op, program, blobs)
            # iOS16's forms keep their parameters as attributes, iOS18's as inputs.
            form = "iOS18" if len(op.inputs) else "iOS16"
            function_ = decompress.get((op.type, form))
            if function_ is None:
                raise PackageError(f"{op.type} ({form} form) is not decompressed here")
            output = op.outputs[0]
            value = function_(**parameters)
            if tuple(value.shape) != tensor_shape(output.type):
                raise PackageError(f"{output.name}: decompressed to {value.shape}")
            program.values[output.name] = value
            program.compressed[output.name] = (op.type + " " + form, describe_parameters(op))
    return program


def describe_parameters(op) -> dict[str, tuple[str, list[int]]]:
    """Each parameter's MIL data type name and shape, as written."""
    described = {}
    for key, value in op.attributes.items():
        if key != "name":
            described[key] = (MIL_pb2.DataType.Name(value.type.tensorType.dataType),
                              list(tensor_shape(value.type)))
    for key, binding in op.inputs.items():
        argument = binding.arguments[0]
        if argument.WhichOneof("binding") == "value":
            value_type = argument.value.type
            described[key] = (MIL_pb2.DataType.Name(value_type.tensorType.dataType),
                              list(tensor_shape(value_type)))
        else:
            described[key] = ("name:" + argument.name, [])
    return described
