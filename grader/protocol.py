"""Messages between the trusted judge and the untrusted worker.

A frame is `>II` (header length, blob length), a JSON header, then the blobs (raw tensor bytes). Frames the
worker sends carry a 32-byte HMAC-SHA256 of header and blobs right after the prefix, keyed by a secret the
judge gives each child when it loads a submission: bytes the learner's code writes on the channel itself do
not verify. Values are JSON with tagged objects for what JSON lacks (tuples, tensors, opaque objects). Nothing
is pickled or evaluated, every length is checked against a cap before memory is allocated for it, every
receive has one deadline for the whole frame, and a tensor is rebuilt only after its dtype, shape, strides and
offset have been checked against its storage.

The tensors of a `calls` request do not travel in the frame: the judge writes them into a sealed memfd (an
`Arena`) that it keeps mapped and passes to the worker with the frame. The learner's function works on that
shared memory, so whether it wrote to its arguments is something the judge sees for itself afterwards.

This module is imported by the worker inside the sandbox (privately, with its own copy of the builtins) and by
the judge (as grader.protocol), so it depends on nothing but the standard library and torch. Everything it
calls after import is captured here at import time and is C code (the `_json` encoder and scanner, `_socket`
methods, `torch._C.TensorBase` descriptors): learner code running in the worker can rebind module attributes,
Python classes and builtins, and none of that reaches what this module does.
"""

from __future__ import annotations

import _hashlib
import _json
import _socket
import array
import fcntl
import hmac
import math
import mmap
import os
import socket
import struct
import time
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import torch

FRAME = struct.Struct(">II")
MAC_BYTES = 32
MAX_HEADER_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 32
MAX_ITEMS = 100_000  # per value: the worker counts per call result, and so does the judge
MAX_STRING = 1024 * 1024
MAX_DIMS = 16
INT_RANGE = (-(2**63), 2**64)  # results carry machine integers; a 400-digit int is no answer to any check
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
DEVICES = ("cpu", "meta")  # meta: shape and dtype only, the second device a CPU-only machine has

# --- captured at import: C code only, out of reach of whatever the learner rebinds later ----------------------
_TensorBase = torch._C.TensorBase
_Tensor = torch.Tensor
_Parameter = torch.nn.Parameter
_descriptor = _TensorBase.__dict__.__getitem__
_t_requires_grad = _descriptor("requires_grad").__get__
_t_shape = _descriptor("shape").__get__
_t_dtype = _descriptor("dtype").__get__
_t_device = _descriptor("device").__get__
_t_stride = _descriptor("stride")
_t_storage_offset = _descriptor("storage_offset")
_t_untyped_storage = _descriptor("untyped_storage")
_t_detach = _descriptor("detach")
_t_contiguous = _descriptor("contiguous")
_t_numel = _descriptor("numel")
_t_reshape = _descriptor("reshape")
_t_view = _descriptor("view")
_t_numpy = _descriptor("numpy")
_t_set = _descriptor("set_")
_t_requires_grad_ = _descriptor("requires_grad_")
_t_element_size = _descriptor("element_size")
_storage_data_ptr = torch._C.StorageBase.data_ptr  # type: ignore[attr-defined]
_storage_nbytes = torch._C.StorageBase.nbytes  # type: ignore[attr-defined]
_empty = torch.empty
_as_strided = torch.as_strided
_frombuffer = torch.frombuffer
_make_parameter = torch.Tensor._make_subclass
_uint8 = torch.uint8
_tobytes = __import__("numpy").ndarray.tobytes
_no_torch_function = torch._C.DisableTorchFunction
_json_encoder = _json.make_encoder(  # markers, default, encoder, indent, separators, sort, skipkeys, allow_nan
    None, None, _json.encode_basestring_ascii, None, ":", ",", False, False, True  # type: ignore[arg-type]
)
_json_scanner = _json.make_scanner(__import__("json").JSONDecoder())
_sendall = _socket.socket.sendall
_sendmsg = _socket.socket.sendmsg
_recv_into = _socket.socket.recv_into
_recvmsg_into = _socket.socket.recvmsg_into
_settimeout = _socket.socket.settimeout
_hmac_new = _hashlib.hmac_new
_monotonic = time.monotonic
_CMSG_SPACE = socket.CMSG_SPACE
_SOL_SOCKET = socket.SOL_SOCKET
_SCM_RIGHTS = socket.SCM_RIGHTS
_isfinite = math.isfinite
_prod = math.prod
_join = "".join


class ProtocolError(Exception):
    """A frame or value broke the protocol: too large, too deep, malformed, or an unknown tag."""


class MessageTooLarge(ProtocolError):
    def __init__(self, size: int, cap: int) -> None:
        self.size = size
        self.cap = cap
        super().__init__(f"message of {size} bytes exceeds the cap of {cap} bytes")


class Unsigned(ProtocolError):
    """A frame from the worker whose signature does not verify: written by something other than the worker's
    own serving code (the learner's code wrote on the channel)."""


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


def dumps(value: Any) -> bytes:
    return _join(_json_encoder(value, 0)).encode()


def loads(data: bytes | bytearray | memoryview) -> Any:
    try:
        text = bytes(data).decode()
        value, end = _json_scanner(text, 0)
    except StopIteration:
        raise ProtocolError("malformed header: not JSON") from None
    except (ValueError, RecursionError) as exc:  # bad UTF-8, a 5000-digit integer, nesting too deep
        raise ProtocolError(f"malformed header: {str(exc)[:200]}") from None
    if text[end:].strip():
        raise ProtocolError("malformed header: extra data after the JSON value")
    return value


def signature(key: bytes, header: bytes | bytearray, blobs: list[bytes] | list[bytearray]) -> bytes:
    mac = _hmac_new(key, digestmod="sha256")
    mac.update(header)
    for blob in blobs:
        mac.update(blob)
    return bytes(mac.digest())


def send_frame(sock: socket.socket, header: dict[str, Any], blobs: list[bytes] | None = None, *,
               key: bytes | None = None, fds: tuple[int, ...] = ()) -> None:
    """Send one frame. `key`: sign it (the worker's replies). `fds`: pass these descriptors with it."""
    blobs = blobs or []
    offsets = []
    position = 0
    for blob in blobs:
        offsets.append([position, len(blob)])
        position += len(blob)
    encoded = dumps(dict(header, _blobs=offsets))
    prefix = FRAME.pack(len(encoded), position)
    if key is not None:
        prefix += signature(key, encoded, blobs)
    head = [prefix, encoded]
    if position <= COALESCE_BYTES:  # one system call (and one wake-up of the peer) for a typical small frame
        head, blobs = [b"".join([*head, *blobs])], []
    data = b"".join(head)
    if fds:
        rights = [(_SOL_SOCKET, _SCM_RIGHTS, array.array("i", fds).tobytes())]
        sent = _sendmsg(sock, [data], rights)
        data = data[sent:]
    if data:
        _sendall(sock, data)
    for blob in blobs:
        if blob:
            _sendall(sock, blob)


def _recv_exactly(sock: socket.socket, size: int, deadline: float | None) -> bytearray:
    buffer = bytearray(size)
    view = memoryview(buffer)
    received = 0
    while received < size:
        _wait_budget(sock, deadline)
        count = _recv_into(sock, view[received:], size - received)
        if count == 0:
            raise EOFError("peer closed the connection")
        received += count
    return buffer


def _wait_budget(sock: socket.socket, deadline: float | None) -> None:
    """Every read of a frame shares one deadline: a peer that trickles a byte at a time still runs out."""
    if deadline is None:
        return
    remaining = deadline - _monotonic()
    if remaining <= 0:
        raise TimeoutError("the frame did not arrive in time")
    _settimeout(sock, remaining)


def _recv_prefix_with_fds(sock: socket.socket, size: int, deadline: float | None) -> tuple[bytearray, list[int]]:
    """The first `size` bytes and the descriptors that came with them (sent with the frame's first byte)."""
    buffer = bytearray(size)
    view = memoryview(buffer)
    received = 0
    fds: list[int] = []
    while received < size:
        _wait_budget(sock, deadline)
        count, ancillary, _, _ = _recvmsg_into(sock, [view[received:]], _CMSG_SPACE(4 * 4))
        for level, kind, data in ancillary:
            if level == _SOL_SOCKET and kind == _SCM_RIGHTS:
                fds.extend(array.array("i", data[: len(data) - len(data) % 4]))
        if count == 0:
            for fd in fds:
                os.close(fd)
            raise EOFError("peer closed the connection")
        received += count
    return buffer, fds


def recv_frame(
    sock: socket.socket, *, max_blob_bytes: int, key: bytes | None = None, deadline: float | None = None,
    with_fds: bool = False,
) -> tuple[dict[str, Any], list[bytearray]] | tuple[dict[str, Any], list[bytearray], list[int]]:
    """Read one frame before `deadline` (time.monotonic(); TimeoutError after it). Raises MessageTooLarge before
    allocating anything over the caps, Unsigned when `key` is given and the signature does not verify.
    `with_fds`: also return the descriptors that came with the frame (the caller owns them)."""
    prefix_size = FRAME.size + (MAC_BYTES if key is not None else 0)
    if with_fds:
        prefix, fds = _recv_prefix_with_fds(sock, prefix_size, deadline)
    else:
        prefix, fds = _recv_exactly(sock, prefix_size, deadline), []
    try:
        header_size, blob_size = FRAME.unpack(bytes(prefix[: FRAME.size]))
        if header_size > MAX_HEADER_BYTES:
            raise MessageTooLarge(header_size, MAX_HEADER_BYTES)
        if blob_size > max_blob_bytes:
            raise MessageTooLarge(blob_size, max_blob_bytes)
        encoded = _recv_exactly(sock, header_size, deadline)
        payload = _recv_exactly(sock, blob_size, deadline) if blob_size else bytearray()
        if key is not None and not hmac.compare_digest(bytes(prefix[FRAME.size :]), signature(key, encoded, [payload])):
            raise Unsigned("a message on the worker's channel was not written by the worker")
        header = loads(encoded)
        if type(header) is not dict:
            raise ProtocolError("header must be a JSON object")
        blobs = _blob_table(header.pop("_blobs", []), payload)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return (header, blobs, fds) if with_fds else (header, blobs)


def _blob_table(table: Any, payload: bytearray | memoryview) -> list[Any]:
    if type(table) is not list:
        raise ProtocolError("malformed blob table")
    blobs = []
    for entry in table:
        if not (type(entry) is list and len(entry) == 2 and all(type(x) is int for x in entry)):
            raise ProtocolError("malformed blob table")
        start, length = entry
        if start < 0 or length < 0 or start + length > len(payload):
            raise ProtocolError("blob out of range")
        blobs.append(payload[start : start + length])
    return blobs


# ------------------------------------------------------------------------------------------------ arenas


@dataclass
class Arena:
    """The tensors of one request, in a sealed memfd that the judge maps and the worker maps too.

    The judge keeps the bytes it wrote; after the worker's reply, `written()` compares them with what the
    memory holds now. Sealed against shrinking and growing, so the worker cannot make the judge's mapping
    fault. The worker gets the descriptor, the judge keeps only the mapping."""

    blobs: list[bytes]
    offsets: list[tuple[int, int]]
    memory: mmap.mmap | None
    fd: int = -1

    @classmethod
    def create(cls, blobs: list[bytes]) -> Arena:
        offsets, position = [], 0
        for blob in blobs:
            offsets.append((position, len(blob)))
            position += len(blob)
        if position == 0:
            return cls(blobs=list(blobs), offsets=offsets, memory=None)
        fd = os.memfd_create("paperlab-arena", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(fd, position)
            memory = mmap.mmap(fd, position)
            memory[:] = b"".join(blobs)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        except BaseException:
            os.close(fd)
            raise
        return cls(blobs=list(blobs), offsets=offsets, memory=memory, fd=fd)

    @property
    def size(self) -> int:
        return sum(length for _, length in self.offsets)

    def table(self) -> list[list[int]]:
        return [[start, length] for start, length in self.offsets]

    def release_fd(self) -> None:
        """After the descriptor went to the worker: the judge needs only its mapping."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def written(self) -> tuple[bool, ...]:
        """For each blob: whether its bytes differ from what the judge wrote."""
        if self.memory is None:
            return tuple(False for _ in self.blobs)
        return tuple(self.memory[start : start + length] != blob
                     for (start, length), blob in zip(self.offsets, self.blobs, strict=True))

    def close(self) -> None:
        self.release_fd()
        if self.memory is not None:
            self.memory.close()
            self.memory = None


def map_arena(fd: int, size: int, table: Any) -> list[memoryview]:
    """The worker's side: the request's blobs as writable views of the shared memory (closes `fd`)."""
    try:
        if type(size) is not int or size < 0 or os.fstat(fd).st_size < size:
            raise ProtocolError("arena smaller than announced")
        memory = mmap.mmap(fd, size) if size else None
    finally:
        os.close(fd)
    return _blob_table(table, memoryview(memory) if memory is not None else memoryview(bytearray()))


# ---------------------------------------------------------------------------------------------- encoding


@dataclass
class Encoder:
    """Encodes values into a JSON tree plus blobs. Tensors sharing a storage share one blob, so views and
    aliasing between arguments survive the trip (`preserve_views`); results are sent compact instead.

    `storage_blobs`: for each top-level value encoded since the last `begin()`, the blobs its tensors use."""

    preserve_views: bool = True
    blobs: list[bytes] = field(default_factory=list)
    _storages: dict[int, int] = field(default_factory=dict)
    _items: int = 0

    def begin(self) -> None:
        """Start a new value whose storages are its own (one call's arguments never share bytes with another's:
        what one call writes must not change the next call's inputs, and must be blamed on the right call)."""
        self._storages = {}
        self._items = 0

    def encode(self, value: Any, depth: int = 0) -> Any:
        self._items += 1
        if self._items > MAX_ITEMS or depth > MAX_DEPTH:
            raise ProtocolError(f"value too large or too deeply nested (limits: {MAX_ITEMS} items, depth {MAX_DEPTH})")
        kind = type(value)
        if value is None or kind is bool or kind is float:
            if kind is float and not _isfinite(value):
                return {"float": repr(value)}
            return value
        if kind is int:
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
            for key in value:
                if type(key) is not str:
                    return {"opaque": "dict with non-string keys"}
            return {"dict": [[key, self.encode(item, depth + 1)] for key, item in value.items()]}
        if kind is _Tensor or kind is _Parameter:
            with _no_torch_function():
                return {"tensor": self._tensor(value)}
        return {"opaque": _type_name(value)}

    def _tensor(self, t: torch.Tensor) -> dict[str, Any]:
        dtype = _t_dtype(t)
        if dtype not in DTYPE_NAMES:
            raise ProtocolError(f"dtype {dtype} is not supported")
        device = _t_device(t).type
        if device not in DEVICES:
            raise ProtocolError(f"device {device} is not supported")
        shape = list(_t_shape(t))
        meta: dict[str, Any] = {
            "dtype": DTYPE_NAMES[dtype],
            "shape": shape,
            "requires_grad": bool(_t_requires_grad(t)),
            "parameter": type(t) is _Parameter,
            "stride": list(_t_stride(t)),
        }
        if device == "meta":
            meta["device"] = "meta"
            return meta
        data = _t_detach(t)
        if self.preserve_views:
            storage = _t_untyped_storage(data)
            # Every empty storage has the null address: keyed by it, distinct empty arguments would arrive as one
            # tensor (a gradient into one would show on the other). Nothing can alias in no bytes.
            key = _storage_data_ptr(storage) if _storage_nbytes(storage) else None
            if key is None or key not in self._storages:
                raw = _t_set(_empty(0, dtype=_uint8), storage)
                if key is not None:
                    self._storages[key] = len(self.blobs)
                meta["storage"] = len(self.blobs)
                self.blobs.append(_tobytes(_t_numpy(raw)))
            else:
                meta["storage"] = self._storages[key]
            meta["offset"] = _t_storage_offset(data)
        else:
            compact = _t_contiguous(data)
            meta["storage"] = len(self.blobs)
            meta["offset"] = 0
            meta["layout_stride"] = _contiguous_strides(shape)
            # contiguous by torch's rule, a tensor may still have any stride on a dimension of size 1 (a gradient
            # expanded from a scalar is [1, 1] with strides (0, 0)) and reshape keeps it, which view(uint8)
            # refuses: read the elements as the flat run they are
            flat = _t_view(_as_strided(compact, (_t_numel(compact),), (1,)), _uint8)
            self.blobs.append(_tobytes(_t_numpy(flat)) if _t_numel(compact) else b"")
        return meta


def _contiguous_strides(shape: list[int]) -> list[int]:
    strides = []
    running = 1
    for size in reversed(shape):
        strides.append(running)
        running *= max(size, 1)
    return list(reversed(strides))


def _type_name(value: Any) -> str:
    """The value's class name, read through `type`'s own descriptors (a class may lie through its metaclass)."""
    kind = type(value)
    name = _type_qualname(kind)
    if _TensorBase in _type_mro(kind):
        return f"{name} (a torch.Tensor subclass)"
    return str(name)[:200]


_type_qualname = type.__dict__["__qualname__"].__get__
_type_mro = type.__dict__["__mro__"].__get__


def encode(value: Any, *, preserve_views: bool = True) -> tuple[Any, list[bytes]]:
    encoder = Encoder(preserve_views=preserve_views)
    return encoder.encode(value), encoder.blobs


@dataclass
class Decoder:
    """Rebuilds values from a tree and blobs. `copy`: tensors get private memory (the judge, and tests);
    without it they are views of the blobs themselves (the worker's arena, where the judge watches writes).
    `results`: the tree came from the worker: opaque tags are allowed, integers must be machine-sized.
    Without it (the worker decoding a request) an opaque value becomes an instance of `opaque`, a class of the
    learner's own namespace, or is refused: no object of this module reaches the learner."""

    blobs: list[Any]
    copy: bool = True
    results: bool = True
    opaque: Any = None  # for a request: the class an opaque argument becomes (one defined outside this module)
    _bytes: dict[int, torch.Tensor] = field(default_factory=dict)
    _memory: dict[int, tuple[int, int]] = field(default_factory=dict)  # blob index -> (address, length)
    # One tensor object per distinct description: a tensor the check passed as two arguments (or twice in a list)
    # arrives as one object, as the learner's own caller would pass it (code that tells arguments apart by
    # identity must meet that case).
    _tensors: dict[str, torch.Tensor] = field(default_factory=dict)
    _items: int = 0

    def decode(self, tree: Any, depth: int = 0) -> Any:
        self._items += 1
        if self._items > MAX_ITEMS or depth > MAX_DEPTH:
            raise ProtocolError("value too large or too deeply nested")
        kind = type(tree)
        if tree is None or kind is bool or kind is float or kind is str:
            return tree
        if kind is int:
            if self.results and not INT_RANGE[0] <= tree < INT_RANGE[1]:
                raise ProtocolError("an integer beyond 64 bits")
            return tree
        if kind is not dict or len(tree) != 1:
            raise ProtocolError(f"unexpected value {kind.__name__}")
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
            if self.results:
                return Opaque(body[:200])
            if self.opaque is not None:  # e.g. a NumPy array a check passes to test that it is refused
                return self.opaque(body[:200])
        if tag == "tensor" and type(body) is dict:
            key = repr(sorted(body.items()))
            if key not in self._tensors:
                with _no_torch_function():
                    self._tensors[key] = self._tensor(body)
            return self._tensors[key]
        raise ProtocolError(f"unknown tag {tag!r}")

    def _tensor(self, meta: dict[str, Any]) -> torch.Tensor:
        dtype = DTYPES.get(meta.get("dtype"))  # type: ignore[arg-type]
        if dtype is None:
            raise ProtocolError(f"dtype {meta.get('dtype')!r} is not allowed")
        shape, device = meta.get("shape"), meta.get("device", "cpu")
        if device not in DEVICES:
            raise ProtocolError(f"device {str(device)[:20]!r} is not allowed")
        if device == "meta":
            if not (isinstance(shape, list) and _int_list(shape)):
                raise ProtocolError("malformed tensor metadata")
            if len(shape) > MAX_DIMS or any(size < 0 for size in shape):
                raise ProtocolError("invalid tensor shape")
            tensor = _empty(shape, dtype=dtype, device="meta")
        else:
            tensor = self._cpu_tensor(meta, dtype)
        if meta.get("parameter") is True and dtype.is_floating_point:
            return _make_parameter(_Parameter, tensor, bool(meta.get("requires_grad")))
        if meta.get("requires_grad") is True and dtype.is_floating_point:
            _t_requires_grad_(tensor, True)
            if not _t_requires_grad(tensor):  # requires_grad_ is an operator: a kernel could leave it off
                raise ProtocolError("a decoded argument does not require grad as it was sent (an operator the "
                                    "grader uses to rebuild arguments was changed)")
        return tensor

    def _cpu_tensor(self, meta: dict[str, Any], dtype: torch.dtype) -> torch.Tensor:
        shape, stride, offset, index = meta.get("shape"), meta.get("stride"), meta.get("offset"), meta.get("storage")
        layout = meta.get("layout_stride", stride)
        if not (_int_list(shape) and _int_list(layout) and type(offset) is int and type(index) is int):
            raise ProtocolError("malformed tensor metadata")
        if len(shape) > MAX_DIMS or len(layout) != len(shape) or any(s < 0 for s in shape + layout) or offset < 0:
            raise ProtocolError("invalid tensor shape or strides")
        if not 0 <= index < len(self.blobs):
            raise ProtocolError("tensor refers to a missing blob")
        base = self._base(index, dtype)
        count = _t_numel(base)
        if _prod(shape):
            last = offset + sum((size - 1) * step for size, step in zip(shape, layout, strict=True))
            if last >= count:
                raise ProtocolError("tensor view reaches outside its storage")
            return self._verified(_as_strided(base, shape, layout, offset), index, dtype, shape, layout, offset)
        if offset > count:
            raise ProtocolError("tensor view starts outside its storage")
        return _empty(shape, dtype=dtype)

    def _base(self, index: int, dtype: torch.dtype) -> torch.Tensor:
        """The blob's bytes seen as `dtype`. One byte buffer per blob, so views of a storage in different dtypes
        still share memory after decoding."""
        if index not in self._bytes:
            blob = self.blobs[index]
            if not len(blob):
                raw = _empty(0, dtype=_uint8)
            else:
                raw = _frombuffer(bytearray(blob) if self.copy else blob, dtype=_uint8)
            storage = _t_untyped_storage(raw)  # frombuffer wraps the buffer itself: no operator, no kernel runs
            self._memory[index] = (_storage_data_ptr(storage), _storage_nbytes(storage))
            self._bytes[index] = raw
        raw = self._bytes[index]
        itemsize = _t_element_size(_empty(0, dtype=dtype))
        if _t_numel(raw) % itemsize:
            raise ProtocolError("tensor storage size is not a multiple of its element size")
        return _t_view(raw, dtype)


    def _verified(self, tensor: Any, index: int, dtype: torch.dtype, shape: list[int], stride: list[int],
                  offset: int) -> torch.Tensor:
        """The view as asked for, over the blob's own memory. `view` and `as_strided` are operators, and a kernel
        registered for them runs whatever its author wrote: a private copy would let a function write its
        arguments where the judge does not look. Checked through descriptors, which no kernel reaches."""
        storage = _t_untyped_storage(tensor) if type(tensor) is _Tensor else None
        if (storage is None or (_storage_data_ptr(storage), _storage_nbytes(storage)) != self._memory[index]
                or _t_dtype(tensor) != dtype or list(_t_shape(tensor)) != shape or list(_t_stride(tensor)) != stride
                or _t_storage_offset(tensor) != offset):
            raise ProtocolError("a decoded argument is not the memory it was sent in (an operator the grader uses "
                                "to rebuild arguments was changed)")
        return tensor


def _int_list(value: Any) -> TypeGuard[list[int]]:
    return type(value) is list and all(type(item) is int for item in value)


def decode(tree: Any, blobs: list[Any]) -> Any:
    return Decoder(blobs).decode(tree)


# Public names for the sandbox side (grader/sandboxed/), which reads an arena sent without a descriptor.
blob_table = _blob_table
