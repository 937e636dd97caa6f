"""Values: JSON with tagged objects for what JSON lacks (tuples, tensors, opaque objects). Nothing is pickled or
evaluated, every value is capped in items, depth and string length, and a tensor is rebuilt only after its dtype,
shape, strides and offset have been checked against its storage. Everything called after import is captured here
at import time and is C code (`torch._C.TensorBase` descriptors): learner code running in the worker can rebind
module attributes, Python classes and builtins, and none of that reaches what this module does."""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import torch

from grader.protocol.exceptions import OverBudget, ProtocolError

MAX_DEPTH = 32
MAX_ITEMS = 100_000  # per value: the worker counts per call result, and so does the judge
MAX_STRING = 1024 * 1024
MAX_DIMS = 16
INT_RANGE = (-(2**63), 2**64)  # results carry machine integers; a 400-digit int is no answer to any check


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
ITEM_SIZES = {dtype: dtype.itemsize for dtype in DTYPES.values()}  # a dtype's bytes, read once: no tensor made
DEVICES = ("cpu", "meta")  # meta: shape and dtype only, the second device a CPU-only machine has

# Captured at import: C code only, out of reach of whatever the learner rebinds later.
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
_t_resolve_neg = _descriptor("resolve_neg")
_t_contiguous = _descriptor("contiguous")
_t_numel = _descriptor("numel")
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
_isfinite = math.isfinite
_prod = math.prod
_mul = operator.mul
_INT_ONLY = frozenset({int})


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


@dataclass
class Encoder:
    """Encodes values into a JSON tree plus blobs. Tensors sharing a storage share one blob, so views and
    aliasing between arguments survive the trip (`preserve_views`); results are sent compact instead.

    `storage_blobs`: for each top-level value encoded since the last `begin()`, the blobs its tensors use."""

    preserve_views: bool = True
    blobs: list[bytes] = field(default_factory=list)
    max_bytes: int | None = None  # OverBudget before a blob's copy would take `nbytes` past it
    nbytes: int = 0  # bytes of the blobs counted against max_bytes (start it at what is already spent)
    # Whether this encoder raised OverBudget (code run beside it, a backward, may raise one of its own). A flag,
    # not the exception: the exception's traceback holds this encoder's frames, and the cycle kept the value being
    # encoded (the too-large result) alive after its request ended, so the next call ran out of memory.
    over: bool = False
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
            # A compact value is a result, whose integers the judge reads as machine integers: a larger one is a
            # value the worker names as unreadable, not a reply the judge refuses as malformed.
            if not self.preserve_views and not INT_RANGE[0] <= value < INT_RANGE[1]:
                raise ProtocolError("an integer beyond 64 bits")
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
        if self.preserve_views:  # the storage and offset are the tensor's own, whether or not it requires grad
            storage = _t_untyped_storage(t)
            # Every empty storage has the null address: keyed by it, distinct empty arguments would arrive as one
            # tensor (a gradient into one would show on the other). Nothing can alias in no bytes.
            key = _storage_data_ptr(storage) if _storage_nbytes(storage) else None
            if key is None or key not in self._storages:
                self._spend(_storage_nbytes(storage))
                raw = _t_set(_empty(0, dtype=_uint8), storage)
                if key is not None:
                    self._storages[key] = len(self.blobs)
                meta["storage"] = len(self.blobs)
                self.blobs.append(_tobytes(_t_numpy(raw)))
            else:
                meta["storage"] = self._storages[key]
            meta["offset"] = _t_storage_offset(t)
        else:
            # numpy() refuses a tensor that requires grad; a negative view (z.conj().imag) holds its values
            # unnegated, so its bytes alone would read as the wrong sign, and view() refuses it outright
            data = _t_resolve_neg(_t_detach(t))
            self._spend(_t_numel(data) * _t_element_size(data))  # before contiguous(), the first copy
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

    def _spend(self, size: int) -> None:
        self.nbytes += size
        if self.max_bytes is not None and self.nbytes > self.max_bytes:
            self.over = True
            raise OverBudget(self.nbytes)


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
    _tensors: dict[tuple[Any, ...], torch.Tensor] = field(default_factory=dict)
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
        if tag == "tensor" and type(body) is dict:  # first: the commonest by far
            with _no_torch_function():
                return self._tensor(body)
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
        raise ProtocolError(f"unknown tag {tag!r}")

    def blob_address(self, index: int) -> int | None:
        """Where blob `index`'s bytes lie once a decoded tensor uses them (the start of its storage), else None:
        how the worker tells which blob a rebuilt tensor is over, through descriptors only."""
        memory = self._memory.get(index)
        return memory[0] if memory is not None else None

    def _tensor(self, meta: dict[str, Any]) -> torch.Tensor:
        """The tensor `meta` describes, checked field by field. Its key in `_tensors` is made of the checked fields
        alone, everything the tensor is built from: two descriptions share one object exactly when they would be
        built alike (a field this decoder does not read tells nothing apart)."""
        dtype = DTYPES.get(meta.get("dtype"))  # type: ignore[arg-type]
        if dtype is None:
            raise ProtocolError(f"dtype {meta.get('dtype')!r} is not allowed")
        shape, device = meta.get("shape"), meta.get("device", "cpu")
        if device not in DEVICES:
            raise ProtocolError(f"device {str(device)[:20]!r} is not allowed")
        floating = dtype.is_floating_point
        parameter = meta.get("parameter") is True and floating
        requires_grad = meta.get("requires_grad") is True and floating
        if device == "meta":
            if not _int_list(shape):
                raise ProtocolError("malformed tensor metadata")
            if len(shape) > MAX_DIMS or min(shape, default=0) < 0:
                raise ProtocolError("invalid tensor shape")
            key: tuple[Any, ...] = (dtype, tuple(shape), parameter, requires_grad)
            found = self._tensors.get(key)
            if found is None:
                meta_tensor = _empty(shape, dtype=dtype, device="meta")
                found = self._tensors[key] = self._flagged(meta_tensor, parameter, requires_grad)
            return found
        layout = meta["layout_stride"] if "layout_stride" in meta else meta.get("stride")
        offset, index = meta.get("offset"), meta.get("storage")
        if not (_int_list(shape) and _int_list(layout) and type(offset) is int and type(index) is int):
            raise ProtocolError("malformed tensor metadata")
        if (len(shape) > MAX_DIMS or len(layout) != len(shape) or min(shape, default=0) < 0
                or min(layout, default=0) < 0 or offset < 0):
            raise ProtocolError("invalid tensor shape or strides")
        if not 0 <= index < len(self.blobs):
            raise ProtocolError("tensor refers to a missing blob")
        sizes, steps = tuple(shape), tuple(layout)
        key = (dtype, sizes, steps, offset, index, parameter, requires_grad)
        found = self._tensors.get(key)
        if found is None:
            cpu_tensor = self._cpu_tensor(dtype, sizes, steps, offset, index)
            found = self._tensors[key] = self._flagged(cpu_tensor, parameter, requires_grad)
        return found

    @staticmethod
    def _flagged(tensor: torch.Tensor, parameter: bool, requires_grad: bool) -> torch.Tensor:
        """`tensor` as the parameter or the leaf requiring grad it was sent as."""
        if parameter:
            return _make_parameter(_Parameter, tensor, requires_grad)
        if requires_grad:
            _t_requires_grad_(tensor, True)
            if not _t_requires_grad(tensor):  # requires_grad_ is an operator: a kernel could leave it off
                raise ProtocolError("a decoded argument does not require grad as it was sent (an operator the "
                                    "grader uses to rebuild arguments was changed)")
        return tensor

    def _cpu_tensor(self, dtype: torch.dtype, shape: tuple[int, ...], layout: tuple[int, ...], offset: int,
                    index: int) -> torch.Tensor:
        base = self._base(index, dtype)
        count = _t_numel(base)
        if _prod(shape):
            last = offset + sum(map(_mul, shape, layout)) - sum(layout)  # each dimension's last index times its step
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
        if _t_numel(raw) % ITEM_SIZES[dtype]:
            raise ProtocolError("tensor storage size is not a multiple of its element size")
        return _t_view(raw, dtype)


    def _verified(self, tensor: Any, index: int, dtype: torch.dtype, shape: tuple[int, ...],
                  stride: tuple[int, ...], offset: int) -> torch.Tensor:
        """The view as asked for, over the blob's own memory. `view` and `as_strided` are operators, and a kernel
        registered for them runs whatever its author wrote: a private copy would let a function write its
        arguments where the judge does not look. Checked through descriptors, which no kernel reaches."""
        storage = _t_untyped_storage(tensor) if type(tensor) is _Tensor else None
        if (storage is None or (_storage_data_ptr(storage), _storage_nbytes(storage)) != self._memory[index]
                or _t_dtype(tensor) != dtype or _t_shape(tensor) != shape or _t_stride(tensor) != stride
                or _t_storage_offset(tensor) != offset):
            raise ProtocolError("a decoded argument is not the memory it was sent in (an operator the grader uses "
                                "to rebuild arguments was changed)")
        return tensor


def storages_of(tree: Any) -> set[int]:
    """The blobs an encoded value's tensors use. The tree is the judge's own encoding, so only its tagged
    containers are walked: a list of numbers (an argument passed as .tolist()) is skipped item by
    item, never pushed."""
    found: set[int] = set()
    stack = [tree] if type(tree) is dict else []  # a number or a string: no tensor
    while stack:
        node = stack.pop()
        for tag, body in node.items():
            if tag == "tensor":
                if type(body) is dict and type(body.get("storage")) is int:  # a meta tensor has none
                    found.add(body["storage"])
            elif tag == "tuple" or tag == "list":
                stack += [item for item in body if type(item) is dict]
            elif tag == "dict":
                stack += [value for _, value in body if type(value) is dict]
    return found


def _int_list(value: Any) -> TypeGuard[list[int]]:
    return type(value) is list and _INT_ONLY.issuperset(map(type, value))  # int itself: True is no size


def decode(tree: Any, blobs: list[Any]) -> Any:
    return Decoder(blobs).decode(tree)
