"""grader.protocol: every value kind survives the trip, every cap holds, forged frames and metadata are refused."""

from __future__ import annotations

import json
import math
import socket
from collections.abc import Callable
from typing import Any

import pytest
import torch

from grader import protocol
from grader.protocol import (
    DTYPES,
    FRAME,
    MAX_HEADER_BYTES,
    MAX_ITEMS,
    MessageTooLarge,
    Opaque,
    ProtocolError,
    decode,
    encode,
    recv_frame,
    send_frame,
)


def wire(tree: Any, blobs: list[bytes]) -> tuple[Any, list[bytearray]]:
    """What the other side sees: the tree after JSON (as in a frame header), the blobs as fresh buffers."""
    return json.loads(json.dumps(tree, allow_nan=True)), [bytearray(blob) for blob in blobs]


def round_trip(value: Any, *, preserve_views: bool = True) -> Any:
    return decode(*wire(*encode(value, preserve_views=preserve_views)))


# ------------------------------------------------------------------------------------------- python values


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(None, id="none"),
        pytest.param(True, id="true"),
        pytest.param(False, id="false"),
        pytest.param(0, id="zero"),
        pytest.param(-(2**63), id="smallest-int64"),
        pytest.param(2**64 - 1, id="largest-uint64"),
        pytest.param(1.5, id="float"),
        pytest.param(-0.0, id="negative-zero"),
        pytest.param(math.inf, id="inf"),
        pytest.param(-math.inf, id="minus-inf"),
        pytest.param("", id="empty-str"),
        pytest.param("héllo \u2603 \"quoted\" \n", id="unicode-str"),
        pytest.param((), id="empty-tuple"),
        pytest.param((1,), id="one-tuple"),
        pytest.param([1, (2, [3.5, None])], id="nested"),
        pytest.param({"a": 1, "b": (True, "x"), "": []}, id="dict"),
        pytest.param({"inner": {"deeper": [1, 2]}}, id="nested-dict"),
    ],
)
def test_python_values_round_trip_with_their_exact_types(value: Any) -> None:
    got = round_trip(value)
    assert got == value
    assert repr(got) == repr(value)  # tuple stays tuple, True stays True (not 1), -0.0 keeps its sign


def test_a_request_carries_integers_of_any_size() -> None:
    tree, blobs = wire(*encode(-(2**70)))
    assert protocol.Decoder(blobs, results=False).decode(tree) == -(2**70)


@pytest.mark.parametrize("number", [2**64, -(2**63) - 1, 10**400], ids=["2^64", "below-int64", "400-digits"])
def test_a_result_integer_beyond_64_bits_is_refused(number: int) -> None:
    # A check that calls float() on a 400-digit int crashes as "a bug in the problem's checks"; refusing it
    # while decoding blames the submission instead (the check fails with a malformed-message verdict).
    with pytest.raises(ProtocolError, match="beyond 64 bits"):
        decode(number, [])


def test_a_request_refuses_opaque_values() -> None:
    # No object of the protocol module (whose globals lead to the worker's) may reach the learner's code.
    with pytest.raises(ProtocolError, match="unknown tag"):
        protocol.Decoder([], results=False).decode({"opaque": "x"})


def test_a_request_makes_an_opaque_argument_of_the_class_it_is_given() -> None:
    # A check may pass a NumPy array to test that it is refused: the learner gets a stand-in of its own class.
    class StandIn:
        def __init__(self, name: str) -> None:
            self.name = name

    got = protocol.Decoder([], results=False, opaque=StandIn).decode({"opaque": "ndarray"})
    assert type(got) is StandIn and got.name == "ndarray"


@pytest.mark.parametrize("shape", [(2, 3), (0,), ()])
def test_meta_tensors_carry_shape_and_dtype_without_bytes(shape: tuple[int, ...]) -> None:
    tree, blobs = encode(torch.empty(shape, dtype=torch.float64, device="meta"))
    assert blobs == []
    got = decode(*wire(tree, blobs))
    assert got.device.type == "meta" and got.shape == shape and got.dtype == torch.float64


def test_nan_round_trips() -> None:
    got = round_trip([math.nan])
    assert type(got) is list and type(got[0]) is float and math.isnan(got[0])


def test_tuple_and_list_stay_distinct() -> None:
    got = round_trip(((1, 2), [1, 2]))
    assert type(got[0]) is tuple and type(got[1]) is list


def test_dict_with_non_string_keys_becomes_opaque() -> None:
    got = round_trip({1: "a"})
    assert isinstance(got, Opaque)
    assert "non-string keys" in got.type_name


@pytest.mark.parametrize(
    "value, name",
    [
        pytest.param(object(), "object", id="object"),
        pytest.param(lambda: 1, "function", id="lambda"),
        pytest.param({1, 2}, "set", id="set"),
        pytest.param(b"bytes", "bytes", id="bytes"),
        pytest.param(1 + 2j, "complex", id="complex"),
    ],
)
def test_other_objects_become_opaque_with_their_type_name(value: Any, name: str) -> None:
    got = round_trip(value)
    assert isinstance(got, Opaque)
    assert got.type_name == name


def test_tensor_subclass_becomes_opaque_naming_the_subclass() -> None:
    class Liar(torch.Tensor):
        def __eq__(self, other: object) -> bool:  # type: ignore[override]
            return True

    got = round_trip(torch.ones(2).as_subclass(Liar))
    assert isinstance(got, Opaque)
    assert "Liar" in got.type_name and "torch.Tensor subclass" in got.type_name


def test_opaque_equals_nothing_not_even_itself() -> None:
    opaque = Opaque("Anything")
    assert opaque != opaque  # the point of the test
    assert not (opaque == Opaque("Anything"))
    assert opaque != 1 and opaque != torch.ones(1) and opaque is not None
    assert repr(opaque) == "<Anything object>"
    assert len({opaque, Opaque("Anything")}) == 2


# ------------------------------------------------------------------------------------------------ tensors


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_every_allowed_dtype_round_trips_bit_for_bit(name: str) -> None:
    dtype = DTYPES[name]
    source = torch.tensor([[0, 1, 2], [3, 4, 5]]).to(dtype) if dtype is not torch.bool else torch.tensor(
        [[True, False, True], [False, False, True]])
    for preserve_views in (True, False):
        got = round_trip(source, preserve_views=preserve_views)
        assert type(got) is torch.Tensor
        assert got.dtype == dtype and got.shape == source.shape
        assert torch.equal(got, source)


def test_float_special_values_in_tensors_survive() -> None:
    source = torch.tensor([math.nan, math.inf, -math.inf, -0.0, 1e-45], dtype=torch.float32)
    got = round_trip(source)
    assert got.view(torch.int32).tolist() == source.view(torch.int32).tolist()


@pytest.mark.parametrize("dtype", [torch.complex64, torch.float8_e4m3fn if hasattr(torch, "float8_e4m3fn") else
                                   torch.complex128, torch.uint16 if hasattr(torch, "uint16") else torch.complex128])
def test_unsupported_dtype_is_refused_when_encoding(dtype: torch.dtype) -> None:
    with pytest.raises(ProtocolError, match="not supported"):
        encode(torch.zeros(2, dtype=dtype))


def test_zero_dim_tensor() -> None:
    got = round_trip(torch.tensor(3.25, dtype=torch.float64))
    assert got.dim() == 0 and got.item() == 3.25 and got.dtype == torch.float64


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3, 4)])
def test_empty_tensors_keep_their_shape(shape: tuple[int, ...]) -> None:
    for preserve_views in (True, False):
        got = round_trip(torch.zeros(shape, dtype=torch.int16), preserve_views=preserve_views)
        assert tuple(got.shape) == shape and got.dtype == torch.int16


def test_non_contiguous_view_keeps_strides_and_offset() -> None:
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    view = base[1:, ::2].t()  # non-contiguous, non-zero offset
    got = round_trip(view)
    assert got.stride() == view.stride()
    assert got.storage_offset() == view.storage_offset()
    assert not got.is_contiguous()
    assert torch.equal(got, view)


def test_expand_keeps_stride_zero() -> None:
    expanded = torch.tensor([1.0, 2.0, 3.0]).expand(4, 3)
    got = round_trip(expanded)
    assert got.stride() == (0, 1)
    assert torch.equal(got, expanded)


def test_compact_encoding_sends_results_contiguous_and_only_their_elements() -> None:
    big = torch.arange(1000, dtype=torch.float64)
    tree, blobs = encode(big[10:12], preserve_views=False)
    assert sum(len(blob) for blob in blobs) == 2 * 8  # not the whole 8000-byte storage
    got = decode(*wire(tree, blobs))
    assert got.is_contiguous() and got.tolist() == [10.0, 11.0]


@pytest.mark.parametrize("shape", [(1, 1), (1,), (1, 1, 1), (0, 2)])
def test_compact_encoding_takes_a_scalar_expanded_to_size_one_dimensions(shape: tuple[int, ...]) -> None:
    # the gradient of x.sum() * 0.0 for x of shape [1, 1] is a scalar expanded: strides (0, 0), contiguous
    expanded = torch.tensor(2.5, dtype=torch.float64).expand(shape)
    assert expanded.is_contiguous() and all(stride == 0 for stride in expanded.stride())
    tree, blobs = encode(expanded, preserve_views=False)
    got = decode(*wire(tree, blobs))
    assert got.shape == expanded.shape and torch.equal(got, expanded)


@pytest.mark.parametrize("make", [
    pytest.param(lambda: torch.ones(1, dtype=torch.complex64).mul(2 + 3j).conj().imag, id="one element, contiguous"),
    pytest.param(lambda: torch.ones(3, dtype=torch.complex128).mul(2 + 3j).conj().imag, id="strided"),
    pytest.param(lambda: torch._neg_view(torch.arange(3.0)), id="a negative view of a whole tensor"),
])
def test_compact_encoding_sends_a_negative_views_values_with_their_sign(make: Callable[[], torch.Tensor]) -> None:
    # z.conj().imag is a view whose bytes hold the imaginary parts unnegated: read as bytes it had the wrong sign,
    # and where it is contiguous view(uint8) refused it, which ended the worker.
    negative = make()
    assert negative.is_neg()
    tree, blobs = encode(negative, preserve_views=False)
    got = decode(*wire(tree, blobs))
    assert not got.is_neg() and torch.equal(got, negative.resolve_neg())


def test_requires_grad_is_mirrored() -> None:
    leaf = torch.ones(2, requires_grad=True)
    got = round_trip((leaf, leaf.detach(), leaf * 2))
    assert [t.requires_grad for t in got] == [True, False, True]
    assert all(t.is_leaf for t in got)


def test_requires_grad_is_never_set_on_integer_tensors_even_if_forged() -> None:
    tree, blobs = encode(torch.ones(2, dtype=torch.int64))
    tree["tensor"]["requires_grad"] = True
    assert decode(*wire(tree, blobs)).requires_grad is False


def test_parameters_stay_parameters() -> None:
    parameter = torch.nn.Parameter(torch.randn(2, 3))
    frozen = torch.nn.Parameter(torch.randn(2), requires_grad=False)
    got_parameter, got_frozen = round_trip((parameter, frozen))
    assert type(got_parameter) is torch.nn.Parameter and got_parameter.requires_grad
    assert type(got_frozen) is torch.nn.Parameter and not got_frozen.requires_grad
    assert torch.equal(got_parameter.detach(), parameter.detach())


def test_arguments_sharing_storage_stay_aliased() -> None:
    storage = torch.arange(6, dtype=torch.float32)
    first, second = storage[:4], storage[2:]
    tree, blobs = encode(((first, second), {"again": storage}))
    assert len(blobs) == 1  # one storage, one blob
    (got_first, got_second), kwargs = decode(*wire(tree, blobs))
    got_first[3] = 100.0
    assert got_second[1].item() == 100.0
    assert kwargs["again"][3].item() == 100.0


def test_arguments_with_separate_storage_stay_separate() -> None:
    got_a, got_b = round_trip((torch.zeros(2), torch.zeros(2)))
    got_a.add_(1)
    assert got_b.tolist() == [0.0, 0.0]


def test_distinct_empty_tensors_stay_distinct() -> None:
    # Every empty storage has address 0: two empty arguments (T = 0 in a rollout) must not arrive as one tensor,
    # or a gradient into the first would show on the second and a correct solution would fail.
    first, second = torch.empty(2, 0, requires_grad=True), torch.empty(2, 0, requires_grad=True)
    got_first, got_second = round_trip((first, second))
    assert got_first is not got_second
    got_first.sum().backward()
    assert got_first.grad is not None and got_second.grad is None


def test_views_of_one_storage_in_two_dtypes_stay_aliased() -> None:
    # Documented contract: "storage sharing between arguments of one call" survives. A float32 tensor and an
    # int32 reinterpretation of the same memory are two arguments sharing one storage.
    values = torch.arange(4, dtype=torch.float32)
    got_float, got_int = round_trip((values, values.view(torch.int32)))
    got_float[0] = 5.0
    assert got_int[0].item() == torch.tensor(5.0).view(torch.int32).item()


def test_a_blob_has_an_address_once_a_decoded_tensor_is_over_it_and_it_is_that_tensors_storage() -> None:
    tree, blobs = encode((torch.ones(3), torch.zeros(0), torch.arange(4.0)[1:]))
    decoder = protocol.Decoder([bytearray(blob) for blob in blobs], copy=False)
    assert [decoder.blob_address(index) for index in range(len(blobs) + 1)] == [None] * (len(blobs) + 1)
    ones, empty, tail = decoder.decode(tree)
    assert decoder.blob_address(0) == ones.untyped_storage().data_ptr() != 0
    assert decoder.blob_address(2) == tail.untyped_storage().data_ptr() == tail.data_ptr() - tail.element_size()
    assert decoder.blob_address(len(blobs)) is None  # no such blob


def test_decoded_tensors_own_their_memory() -> None:
    tree, blobs = encode(torch.ones(3))
    buffers = [bytearray(blob) for blob in blobs]
    got = decode(json.loads(json.dumps(tree)), buffers)
    buffers[0][:] = bytes(len(buffers[0]))  # the frame buffer is reused or freed: the tensor must not change
    assert got.tolist() == [1.0, 1.0, 1.0]



@pytest.mark.parametrize(
    "tensor",
    [
        pytest.param(torch.empty(2, 3, device="meta"), id="float32-matrix"),
        pytest.param(torch.empty((), dtype=torch.float64, device="meta"), id="0-d-float64"),
        pytest.param(torch.empty(0, 4, dtype=torch.bfloat16, device="meta"), id="empty-bfloat16"),
        pytest.param(torch.empty(3, dtype=torch.int64, device="meta"), id="int64"),
    ],
)
def test_meta_tensors_keep_device_dtype_and_shape_and_send_no_bytes(tensor: torch.Tensor) -> None:
    tree, blobs = encode(tensor)
    assert blobs == []
    got = decode(*wire(tree, blobs))
    assert (got.device.type, got.dtype, got.shape) == ("meta", tensor.dtype, tensor.shape)


def test_meta_tensors_mirror_requires_grad_and_parameters() -> None:
    leaf = torch.empty(2, device="meta", requires_grad=True)
    parameter = torch.nn.Parameter(torch.empty(2, 2, device="meta"))
    got_leaf, got_parameter, got_plain = round_trip((leaf, parameter, leaf.detach()))
    assert got_leaf.requires_grad and got_leaf.is_leaf
    assert type(got_parameter) is torch.nn.Parameter and got_parameter.device.type == "meta"
    assert not got_plain.requires_grad


def test_meta_and_cpu_tensors_travel_together() -> None:
    cpu = torch.arange(3, dtype=torch.float32)
    got_cpu, got_meta = round_trip((cpu, torch.empty(3, device="meta")))
    assert torch.equal(got_cpu, cpu)
    assert got_meta.device.type == "meta"


@pytest.mark.parametrize(
    "changes, message",
    [
        pytest.param({"device": "cuda"}, "not allowed", id="other-device"),
        pytest.param({"shape": [-1]}, "invalid", id="negative-size"),
        pytest.param({"shape": [1] * 17}, "invalid", id="too-many-dims"),
        pytest.param({"shape": "2"}, "malformed", id="string-shape"),
        pytest.param({"dtype": "complex64"}, "not allowed", id="unknown-dtype"),
    ],
)
def test_forged_meta_tensor_metadata_is_refused(changes: dict[str, Any], message: str) -> None:
    tree, blobs = wire(*encode(torch.empty(2, device="meta")))
    tree["tensor"].update(changes)
    with pytest.raises(ProtocolError, match=message):
        decode(tree, blobs)


# -------------------------------------------------------------------------------------------------- caps


def nest(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def test_nesting_cap_when_encoding() -> None:
    assert round_trip(nest(10)) == nest(10)
    with pytest.raises(ProtocolError, match="deeply nested"):
        encode(nest(40))


def test_nesting_cap_when_decoding() -> None:
    tree: Any = 1
    for _ in range(40):
        tree = {"list": [tree]}
    with pytest.raises(ProtocolError, match="deeply nested"):
        decode(tree, [])


def test_item_cap_when_encoding_and_decoding() -> None:
    assert len(round_trip(list(range(1000)))) == 1000
    with pytest.raises(ProtocolError, match="too large"):
        encode(list(range(MAX_ITEMS + 1)))
    with pytest.raises(ProtocolError, match="too large"):
        decode({"list": list(range(MAX_ITEMS + 1))}, [])


def test_string_cap() -> None:
    with pytest.raises(ProtocolError, match="exceeds"):
        encode("x" * (protocol.MAX_STRING + 1))


# ------------------------------------------------------------------------------------------------ framing


def test_frame_round_trip_over_a_socket(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    value = ((torch.arange(6.0).reshape(2, 3).t(), 1.5), {"name": "x", "flag": None})
    tree, blobs = encode(value)
    send_frame(left, {"op": "calls", "value": tree}, blobs)
    frame = recv_frame(right, max_blob_bytes=1 << 20)
    assert len(frame) == 2  # without with_fds
    header, received = frame
    assert header["op"] == "calls" and "_blobs" not in header
    (tensor, number), kwargs = decode(header["value"], received)
    assert torch.equal(tensor, value[0][0]) and tensor.stride() == (1, 3)
    assert number == 1.5 and kwargs == {"name": "x", "flag": None}


def test_empty_frame(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    send_frame(left, {})
    assert recv_frame(right, max_blob_bytes=0) == ({}, [])


def test_header_over_the_cap_is_refused_before_reading_it(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    left.sendall(FRAME.pack(MAX_HEADER_BYTES + 1, 0))  # only the 8-byte prefix: nothing else ever comes
    with pytest.raises(MessageTooLarge) as caught:
        recv_frame(right, max_blob_bytes=1 << 30)
    assert caught.value.size == MAX_HEADER_BYTES + 1 and caught.value.cap == MAX_HEADER_BYTES


def test_blob_over_the_cap_is_refused_before_reading_it(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    left.sendall(FRAME.pack(2, 2**32 - 1) + b"{}")
    with pytest.raises(MessageTooLarge) as caught:
        recv_frame(right, max_blob_bytes=1024)
    assert (caught.value.size, caught.value.cap) == (2**32 - 1, 1024)
    assert "exceeds the cap of 1024 bytes" in str(caught.value)


def test_peer_closing_mid_frame_is_eof(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    left.sendall(FRAME.pack(100, 0) + b'{"op"')
    left.close()
    with pytest.raises(EOFError):
        recv_frame(right, max_blob_bytes=0)


@pytest.mark.parametrize(
    "header",
    [
        pytest.param(b"not json", id="not-json"),
        pytest.param(b"\xff\xfe", id="not-utf8"),
        pytest.param(b"[1, 2]", id="not-an-object"),
        pytest.param(b'{"_blobs": [[0, 99]]}', id="blob-out-of-range"),
        pytest.param(b'{"_blobs": [[-1, 1]]}', id="negative-blob-start"),
        pytest.param(b'{"_blobs": [["0", 1]]}', id="malformed-blob-table"),
        # A hostile worker controls every byte it sends. Whatever the JSON parser chokes on must become a
        # ProtocolError, or it escapes the judge's handling and is blamed on the problem's checks.
        pytest.param(b"[" * 100_000 + b"]" * 100_000, id="deeply-nested-json"),
        pytest.param(b'{"n": ' + b"9" * 5000 + b"}", id="integer-with-5000-digits"),
    ],
)
def test_malformed_headers_are_protocol_errors(pair: tuple[socket.socket, socket.socket], header: bytes) -> None:
    left, right = pair
    left.sendall(FRAME.pack(len(header), 1) + header + b"x")
    with pytest.raises(ProtocolError):
        recv_frame(right, max_blob_bytes=1024)


# --------------------------------------------------------------------------------- forged tensor metadata


def forged(**changes: Any) -> tuple[Any, list[bytearray]]:
    """A float32 tensor of 4 elements in a 16-byte blob, with some metadata replaced."""
    tree, blobs = wire(*encode(torch.arange(4, dtype=torch.float32)))
    tree["tensor"].update(changes)
    return tree, blobs


@pytest.mark.parametrize(
    "changes, message",
    [
        pytest.param({"shape": [5]}, "outside its storage", id="longer-than-storage"),
        pytest.param({"offset": 1}, "outside its storage", id="offset-pushes-past-end"),
        pytest.param({"shape": [2, 2], "stride": [3, 1]}, "outside its storage", id="stride-pushes-past-end"),
        pytest.param({"shape": [0], "offset": 99}, "outside its storage", id="empty-but-starts-outside"),
        pytest.param({"stride": [-1]}, "invalid", id="negative-stride"),
        pytest.param({"offset": -1}, "invalid", id="negative-offset"),
        pytest.param({"shape": [-4]}, "invalid", id="negative-size"),
        pytest.param({"shape": [4, 1], "stride": [1]}, "invalid", id="stride-rank-mismatch"),
        pytest.param({"shape": [1] * 17, "stride": [1] * 17}, "invalid", id="too-many-dims"),
        pytest.param({"shape": [2.0]}, "malformed", id="float-size"),
        pytest.param({"shape": [True]}, "malformed", id="bool-size"),
        pytest.param({"offset": "0"}, "malformed", id="string-offset"),
        pytest.param({"storage": 1}, "missing blob", id="missing-blob"),
        pytest.param({"storage": -1}, "missing blob", id="negative-blob-index"),
        pytest.param({"dtype": "complex64"}, "not allowed", id="unknown-dtype"),
        pytest.param({"dtype": "object"}, "not allowed", id="object-dtype"),
        pytest.param({"dtype": None}, "not allowed", id="missing-dtype"),
        pytest.param({"dtype": "float64"}, "outside its storage", id="wider-dtype-overruns"),
    ],
)
def test_forged_tensor_metadata_is_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        decode(*forged(**changes))


def test_storage_not_a_multiple_of_the_element_size_is_refused() -> None:
    tree, blobs = forged()
    with pytest.raises(ProtocolError, match="multiple of its element size"):
        decode(tree, [blobs[0][:15]])


@pytest.mark.parametrize(
    "tree",
    [
        pytest.param({"pickle": "gASV"}, id="unknown-tag"),
        pytest.param({"float": "1e400"}, id="float-tag-with-other-text"),
        pytest.param({"list": [1], "tuple": [2]}, id="two-tags"),
        pytest.param({"list": "abc"}, id="list-of-non-list"),
        pytest.param({"dict": [["a"]]}, id="dict-entry-not-a-pair"),
        pytest.param({"dict": [[1, 2]]}, id="dict-key-not-a-string"),
        pytest.param({"tensor": [1, 2]}, id="tensor-meta-not-a-dict"),
        pytest.param([1, 2], id="bare-json-list"),
    ],
)
def test_unknown_or_malformed_tags_are_refused(tree: Any) -> None:
    with pytest.raises(ProtocolError):
        decode(tree, [])


def test_opaque_name_from_the_wire_is_truncated() -> None:
    got = decode({"opaque": "N" * 10_000}, [])
    assert isinstance(got, Opaque) and len(got.type_name) == 200


# ------------------------------------------------------------------------------------ the encoder's byte budget


def _shared() -> tuple[torch.Tensor, torch.Tensor]:
    base = torch.zeros(4)
    return base, base[1:]


BUDGETS = [  # what the encoder copies: compact, a result's elements; with views, each storage once
    pytest.param(lambda: torch.zeros(4, dtype=torch.float64), False, 32, id="compact"),
    pytest.param(lambda: torch.zeros(4, 5, dtype=torch.float64).t(), False, 160, id="compact-transposed"),
    pytest.param(lambda: torch.arange(1000, dtype=torch.float64)[10:12], False, 16, id="compact-slice"),
    pytest.param(lambda: torch.arange(1000, dtype=torch.float64)[10:12], True, 8000, id="views-whole-storage"),
    pytest.param(_shared, True, 16, id="views-one-storage-once"),
    pytest.param(lambda: (torch.zeros(3), torch.zeros(2, dtype=torch.int8)), False, 14, id="two-tensors"),
]


@pytest.mark.parametrize(("make", "views", "size"), BUDGETS)
def test_a_value_of_exactly_the_byte_budget_is_encoded(make: Any, views: bool, size: int) -> None:
    encoder = protocol.Encoder(preserve_views=views, max_bytes=size)
    encoder.encode(make())
    assert encoder.nbytes == size == sum(len(blob) for blob in encoder.blobs)


@pytest.mark.parametrize(("make", "views", "size"), BUDGETS)
def test_a_value_over_the_byte_budget_is_refused_before_the_copy_that_passes_it(make: Any, views: bool,
                                                                               size: int) -> None:
    encoder = protocol.Encoder(preserve_views=views, max_bytes=size - 1)
    with pytest.raises(protocol.OverBudget) as over:
        encoder.encode(make())
    assert over.value.size == size
    assert sum(len(blob) for blob in encoder.blobs) < size
    assert not isinstance(over.value, ProtocolError)  # the value is well formed: callers tell the two apart
    assert encoder.over  # what the encoder raised, told apart from one the learner's code raised


def test_an_encoder_within_its_budget_has_not_gone_over() -> None:
    encoder = protocol.Encoder(preserve_views=False, max_bytes=8)
    encoder.encode(torch.zeros(1, dtype=torch.float64))
    assert not encoder.over


def test_the_byte_budget_counts_from_what_was_already_spent() -> None:
    encoder = protocol.Encoder(preserve_views=False, max_bytes=100, nbytes=90)
    with pytest.raises(protocol.OverBudget) as over:
        encoder.encode(torch.zeros(2, dtype=torch.float64))
    assert over.value.size == 106
    assert str(over.value) == "106 bytes of tensors exceed the encoder's budget"


def test_without_a_budget_any_size_is_encoded() -> None:
    encoder = protocol.Encoder(preserve_views=False)
    encoder.encode(torch.zeros(1000, dtype=torch.float64))
    assert encoder.nbytes == 8000
