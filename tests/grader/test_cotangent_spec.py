"""The default cotangent's bytes (grader.protocol.cotangent), against a plain-Python splitmix64 written from the
rule: the judge and the worker each make them, and a gradient check is only as sound as their agreement."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from grader.protocol import COTANGENT_SEED, default_cotangent_bytes
from grader.protocol.cotangent import _rounded

MASK = 2**64 - 1


def uniform(seed: int, position: int) -> float:
    """Element `position` (from 0): splitmix64 of (seed + position + 1) * golden, its top 53 bits, on [-1, 1)."""
    z = ((seed + position + 1) * 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return (z >> 11) * 2.0**-53 * 2.0 - 1.0


def bfloat16(value: float) -> bytes:
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return struct.pack("<H", (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)


PACK = {"float64": lambda v: struct.pack("<d", v), "float32": lambda v: struct.pack("<f", v),
        "float16": lambda v: struct.pack("<e", v), "bfloat16": bfloat16}


def expected(dtype: str, numel: int, index: int) -> bytes:
    if numel == 1:
        return PACK[dtype](1.0)
    return b"".join(PACK[dtype](uniform(COTANGENT_SEED + index, i)) for i in range(numel))


def test_the_seed_is_the_one_the_judge_and_worker_share() -> None:
    assert COTANGENT_SEED == 1234


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize(("numel", "index"), [(2, 0), (17, 0), (5, 3), (40, 1)])
def test_a_float_result_gets_splitmix_values_rounded_to_its_dtype(dtype: str, numel: int, index: int) -> None:
    assert default_cotangent_bytes(dtype, numel, index) == expected(dtype, numel, index)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("index", [0, 2])
def test_a_one_element_float_result_gets_one(dtype: str, index: int) -> None:
    assert default_cotangent_bytes(dtype, 1, index) == PACK[dtype](1.0)


@pytest.mark.parametrize(("dtype", "size"), [("bool", 1), ("uint8", 1), ("int8", 1), ("int16", 2), ("int32", 4),
                                             ("int64", 8)])
@pytest.mark.parametrize("numel", [0, 1, 3])
def test_an_integer_or_bool_result_gets_zeros(dtype: str, size: int, numel: int) -> None:
    assert default_cotangent_bytes(dtype, numel, 0) == bytes(numel * size)


@pytest.mark.parametrize("dtype", ["float64", "bfloat16", "int64"])
def test_an_empty_result_gets_no_bytes(dtype: str) -> None:
    assert default_cotangent_bytes(dtype, 0, 0) == b""


def test_each_tensor_of_a_result_gets_its_own_values() -> None:
    first, second = default_cotangent_bytes("float64", 4, 0), default_cotangent_bytes("float64", 4, 1)
    assert first != second and second == expected("float64", 4, 1)


def test_values_lie_in_minus_one_to_one_and_are_not_degenerate() -> None:
    values = struct.unpack("<1000d", default_cotangent_bytes("float64", 1000, 0))
    assert all(-1.0 <= v < 1.0 for v in values)
    assert min(values) < -0.9 and max(values) > 0.9 and len(set(values)) == 1000


@pytest.mark.parametrize("dtype", ["complex64", "float8", "", "Float64"])
def test_a_dtype_no_result_may_have_is_refused(dtype: str) -> None:
    with pytest.raises(ValueError, match=f"no default cotangent for dtype {dtype!r}"):
        default_cotangent_bytes(dtype, 3, 0)


def float32_of(bits: int) -> float:
    value: float = struct.unpack("<f", struct.pack("<I", bits))[0]
    return value


@pytest.mark.parametrize(("bits", "rounded"), [
    (0x3F808000, 0x3F80),  # halfway, even below: stays
    (0x3F818000, 0x3F82),  # halfway, odd below: up to the even one
    (0x3F807FFF, 0x3F80),  # under halfway: down
    (0x3F808001, 0x3F81),  # over halfway: up
    (0xBF818000, 0xBF82),  # the sign rides along
    (0x3F800000, 0x3F80),  # exact
], ids=["tie-even", "tie-odd", "below-half", "above-half", "negative-tie", "exact"])
def test_bfloat16_is_the_top_half_of_the_float32_rounded_to_nearest_even(bits: int, rounded: int) -> None:
    values = np.array([float32_of(bits)], dtype=np.float64)
    assert _rounded(values, "bfloat16").tobytes() == struct.pack("<H", rounded)
