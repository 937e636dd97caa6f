"""Messages between the trusted judge and the untrusted worker.

A frame is `>II` (header length, blob length), a JSON header, then the blobs (raw tensor bytes). Values are
JSON with tagged objects for what JSON lacks (tuples, tensors, opaque objects). Nothing is pickled or
evaluated, every length is checked against a cap before memory is allocated for it, and a tensor is rebuilt
only after its dtype, shape, strides and offset have been checked against its storage.

This module is imported by the worker inside the sandbox (as a top-level module) and by the judge (as
grader.protocol), so it depends on nothing but the standard library and torch.
"""

from __future__ import annotations

import json
import math
import socket
import struct
from dataclasses import dataclass, field
from typing import Any

import torch

FRAME = struct.Struct(">II")
MAX_HEADER_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 32
MAX_ITEMS = 100_000
MAX_STRING = 1024 * 1024
MAX_DIMS = 16
COALESCE_BYTES = 256 * 1024  # frames whose tensors total less than this are sent with one sendall

DTYPES: dict[str, torch.dtype] = {
    "bool": torch.bool,
    "uint8": torch.uint8,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
}
DTYPE_NAMES = {dtype: name for name, dtype in DTYPES.items()}


class ProtocolError(Exception):
    """A frame or value broke the protocol: too large, too deep, malformed, or an unknown tag."""


class MessageTooLarge(ProtocolError):
    def __init__(self, size: int, cap: int) -> None:
        self.size = size
        self.cap = cap
        super().__init__(f"message of {size} bytes exceeds the cap of {cap} bytes")


@dataclass(frozen=True)
class Opaque:
    """A value the protocol cannot carry (an arbitrary object, a tensor subclass). It equals nothing."""

    type_name: str

    def __eq__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"<{self.type_name} object>"


# ----------------------------------------------------------------------------------------------- framing


def send_frame(sock: socket.socket, header: dict[str, Any], blobs: list[bytes] | None = None) -> None:
    blobs = blobs or []
    offsets = []
    position = 0
    for blob in blobs:
        offsets.append([position, len(blob)])
        position += len(blob)
    header = dict(header, _blobs=offsets)
    encoded = json.dumps(header, separators=(",", ":"), allow_nan=True).encode()
    if position <= COALESCE_BYTES:  # one system call (and one wake-up of the peer) for a typical small frame
        sock.sendall(b"".join([FRAME.pack(len(encoded), position), encoded, *blobs]))
        return
    sock.sendall(FRAME.pack(len(encoded), position) + encoded)
    for blob in blobs:
        if blob:
            sock.sendall(blob)


def _recv_exactly(sock: socket.socket, size: int) -> bytearray:
    buffer = bytearray(size)
    view = memoryview(buffer)
    received = 0
    while received < size:
        count = sock.recv_into(view[received:], size - received)
        if count == 0:
            raise EOFError("peer closed the connection")
        received += count
    return buffer


def recv_frame(sock: socket.socket, *, max_blob_bytes: int) -> tuple[dict[str, Any], list[bytearray]]:
    """Read one frame. Raises MessageTooLarge before allocating anything over the caps."""
    header_size, blob_size = FRAME.unpack(bytes(_recv_exactly(sock, FRAME.size)))
    if header_size > MAX_HEADER_BYTES:
        raise MessageTooLarge(header_size, MAX_HEADER_BYTES)
    if blob_size > max_blob_bytes:
        raise MessageTooLarge(blob_size, max_blob_bytes)
    try:
        header = json.loads(_recv_exactly(sock, header_size))
    except (ValueError, RecursionError) as exc:  # bad UTF-8 or JSON, a 5000-digit integer, nesting too deep
        raise ProtocolError(f"malformed header: {str(exc)[:200]}") from None
    if not isinstance(header, dict):
        raise ProtocolError("header must be a JSON object")
    payload = _recv_exactly(sock, blob_size) if blob_size else bytearray()
    blobs = []
    for entry in header.pop("_blobs", []):
        if not (isinstance(entry, list) and len(entry) == 2 and all(type(x) is int for x in entry)):
            raise ProtocolError("malformed blob table")
        start, length = entry
        if start < 0 or length < 0 or start + length > blob_size:
            raise ProtocolError("blob out of range")
        blobs.append(payload[start : start + length])
    return header, blobs


# ---------------------------------------------------------------------------------------------- encoding


@dataclass
class Encoder:
    """Encodes values into a JSON tree plus blobs. Tensors sharing a storage share one blob, so views and
    aliasing between arguments survive the trip (`preserve_views`); results are sent compact instead."""

    preserve_views: bool = True
    blobs: list[bytes] = field(default_factory=list)
    _storages: dict[int, int] = field(default_factory=dict)
    _items: int = 0

    def encode(self, value: Any, depth: int = 0) -> Any:
        self._items += 1
        if self._items > MAX_ITEMS or depth > MAX_DEPTH:
            raise ProtocolError(f"value too large or too deeply nested (limits: {MAX_ITEMS} items, depth {MAX_DEPTH})")
        kind = type(value)
        if value is None or kind is bool or kind is int or kind is float:
            if kind is float and not math.isfinite(value):
                return {"float": repr(value)}
            return value
        if kind is str:
            if len(value) > MAX_STRING:
                raise ProtocolError(f"string of {len(value)} characters exceeds {MAX_STRING}")
            return value
        if kind is tuple:
            return {"tuple": [self.encode(item, depth + 1) for item in value]}
        if kind is list:
            return {"list": [self.encode(item, depth + 1) for item in value]}
        if kind is dict:
            if not all(type(key) is str for key in value):
                return {"opaque": "dict with non-string keys"}
            return {"dict": [[key, self.encode(item, depth + 1)] for key, item in value.items()]}
        if kind is torch.Tensor or kind is torch.nn.Parameter:
            return {"tensor": self._tensor(value)}
        return {"opaque": _type_name(value)}

    def _tensor(self, t: torch.Tensor) -> dict[str, Any]:
        if t.dtype not in DTYPE_NAMES:
            raise ProtocolError(f"dtype {t.dtype} is not supported")
        if t.device.type == "meta":  # a second device on any machine, for checks of mixed devices: no data
            return {
                "device": "meta",
                "dtype": DTYPE_NAMES[t.dtype],
                "shape": list(t.shape),
                "requires_grad": bool(t.requires_grad),
                "parameter": type(t) is torch.nn.Parameter,
            }
        if t.device.type != "cpu":
            raise ProtocolError(f"device {t.device} is not supported")
        meta: dict[str, Any] = {
            "dtype": DTYPE_NAMES[t.dtype],
            "shape": list(t.shape),
            "requires_grad": bool(t.requires_grad),
            "parameter": type(t) is torch.nn.Parameter,
            "stride": list(t.stride()),
        }
        data = t.detach()
        if self.preserve_views:
            storage = data.untyped_storage()
            key = storage.data_ptr()
            if key not in self._storages:
                raw = torch.empty(0, dtype=torch.uint8).set_(storage)
                self._storages[key] = len(self.blobs)
                self.blobs.append(raw.numpy().tobytes())
            meta["storage"] = self._storages[key]
            meta["offset"] = data.storage_offset()
        else:
            compact = data.contiguous()
            meta["storage"] = len(self.blobs)
            meta["offset"] = 0
            meta["layout_stride"] = _contiguous_strides(list(t.shape))
            self.blobs.append(compact.reshape(-1).view(torch.uint8).numpy().tobytes() if compact.numel() else b"")
        return meta


def _contiguous_strides(shape: list[int]) -> list[int]:
    strides = []
    running = 1
    for size in reversed(shape):
        strides.append(running)
        running *= max(size, 1)
    return list(reversed(strides))


def _type_name(value: Any) -> str:
    kind = type(value)
    name = getattr(kind, "__qualname__", None) or getattr(kind, "__name__", "object")
    if isinstance(value, torch.Tensor):
        return f"{name} (a torch.Tensor subclass)"
    return str(name)[:200]


def encode(value: Any, *, preserve_views: bool = True) -> tuple[Any, list[bytes]]:
    encoder = Encoder(preserve_views=preserve_views)
    return encoder.encode(value), encoder.blobs


@dataclass
class Decoder:
    blobs: list[bytearray]
    _bytes: dict[int, torch.Tensor] = field(default_factory=dict)
    _items: int = 0

    def decode(self, tree: Any, depth: int = 0) -> Any:
        self._items += 1
        if self._items > MAX_ITEMS or depth > MAX_DEPTH:
            raise ProtocolError("value too large or too deeply nested")
        if tree is None or type(tree) in (bool, int, float, str):
            return tree
        if type(tree) is not dict or len(tree) != 1:
            raise ProtocolError(f"unexpected value {type(tree).__name__}")
        ((tag, body),) = tree.items()
        if tag == "float" and body in ("nan", "inf", "-inf"):
            return float(body)
        if tag == "tuple" and type(body) is list:
            return tuple(self.decode(item, depth + 1) for item in body)
        if tag == "list" and type(body) is list:
            return [self.decode(item, depth + 1) for item in body]
        if tag == "dict" and type(body) is list:
            result = {}
            for pair in body:
                if not (type(pair) is list and len(pair) == 2 and type(pair[0]) is str):
                    raise ProtocolError("malformed dict entry")
                result[pair[0]] = self.decode(pair[1], depth + 1)
            return result
        if tag == "opaque" and type(body) is str:
            return Opaque(body[:200])
        if tag == "tensor" and type(body) is dict:
            return self._tensor(body)
        raise ProtocolError(f"unknown tag {tag!r}")

    def _tensor(self, meta: dict[str, Any]) -> torch.Tensor:
        dtype = DTYPES.get(meta.get("dtype"))  # type: ignore[arg-type]
        if dtype is None:
            raise ProtocolError(f"dtype {meta.get('dtype')!r} is not allowed")
        if "device" in meta:
            return self._meta_tensor(meta, dtype)
        shape, stride, offset, index = meta.get("shape"), meta.get("stride"), meta.get("offset"), meta.get("storage")
        layout = meta.get("layout_stride", stride)
        if not (_int_list(shape) and _int_list(layout) and type(offset) is int and type(index) is int):
            raise ProtocolError("malformed tensor metadata")
        assert isinstance(shape, list) and isinstance(layout, list) and isinstance(offset, int)
        if len(shape) > MAX_DIMS or len(layout) != len(shape) or any(s < 0 for s in shape + layout) or offset < 0:
            raise ProtocolError("invalid tensor shape or strides")
        if not 0 <= index < len(self.blobs):
            raise ProtocolError("tensor refers to a missing blob")
        base = self._base(index, dtype)
        numel = math.prod(shape)
        if numel:
            last = offset + sum((size - 1) * step for size, step in zip(shape, layout, strict=True))
            if last >= base.numel():
                raise ProtocolError("tensor view reaches outside its storage")
        elif offset > base.numel():
            raise ProtocolError("tensor view starts outside its storage")
        tensor = torch.as_strided(base, shape, layout, offset) if numel else torch.empty(shape, dtype=dtype)
        if meta.get("parameter") is True and dtype.is_floating_point:
            return torch.nn.Parameter(tensor, requires_grad=bool(meta.get("requires_grad")))
        if meta.get("requires_grad") is True and (dtype.is_floating_point or dtype.is_complex):
            tensor.requires_grad_(True)
        return tensor

    def _meta_tensor(self, meta: dict[str, Any], dtype: torch.dtype) -> torch.Tensor:
        """A tensor on the meta device: dtype, shape and requires_grad, no bytes (so no storage to check)."""
        shape = meta.get("shape")
        if meta.get("device") != "meta":
            raise ProtocolError(f"device {meta.get('device')!r} is not allowed")
        if not _int_list(shape):
            raise ProtocolError("malformed tensor metadata")
        assert isinstance(shape, list)
        if len(shape) > MAX_DIMS or any(size < 0 for size in shape):
            raise ProtocolError("invalid tensor shape or strides")
        tensor = torch.empty(shape, dtype=dtype, device="meta")
        if meta.get("parameter") is True and dtype.is_floating_point:
            return torch.nn.Parameter(tensor, requires_grad=bool(meta.get("requires_grad")))
        if meta.get("requires_grad") is True and (dtype.is_floating_point or dtype.is_complex):
            tensor.requires_grad_(True)
        return tensor

    def _base(self, index: int, dtype: torch.dtype) -> torch.Tensor:
        """The blob's bytes seen as `dtype`. One byte buffer per blob, so views of a storage in different dtypes
        still share memory after decoding."""
        if index not in self._bytes:
            blob = self.blobs[index]
            # A private copy per decoder: calls in one batch share blobs, and one call may write to its inputs.
            self._bytes[index] = (
                torch.frombuffer(bytearray(blob), dtype=torch.uint8) if blob else torch.empty(0, dtype=torch.uint8)
            )
        raw = self._bytes[index]
        itemsize = torch.empty(0, dtype=dtype).element_size()
        if raw.numel() % itemsize:
            raise ProtocolError("tensor storage size is not a multiple of its element size")
        return raw.view(dtype)


def _int_list(value: Any) -> bool:
    return type(value) is list and all(type(item) is int for item in value)


def decode(tree: Any, blobs: list[bytearray]) -> Any:
    return Decoder(blobs).decode(tree)
