"""The cotangent a learner's result is differentiated with when a check gives none, as bytes, made by NumPy's
integer arithmetic on plain arrays: no torch operator runs while they are made.

The worker wraps these bytes as a tensor and checks, just before the backward pass, that the tensor is still that
memory and the memory still these bytes. A kernel the learner registers for a torch operator (one that removes
itself once it has run leaves no trace in the dispatcher) therefore cannot change the cotangent the gradient is
computed with, and the judge, which makes the same bytes itself, compares the gradient with the product of the
very cotangent the worker used.

Values: zeros for an integer or bool result (no gradient flows from indices or masks), one for a one-element
result, and otherwise uniform in [-1, 1) from a splitmix64 hash of (COTANGENT_SEED + the tensor's index among
the result's tensors, the element's index), rounded to the result's float dtype."""

from __future__ import annotations

import numpy as np

COTANGENT_SEED = 1234
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
ITEM_SIZES = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float16": 2, "bfloat16": 2,
              "float32": 4, "float64": 8}

# Captured at import, before any learner code runs: C functions and types, whose behaviour no Python code reaches.
_arange = np.arange
_ones = np.ones
_uint64 = np.uint64
_float16 = np.float16
_float32 = np.float32
_uint32 = np.uint32
_uint16 = np.uint16

# splitmix64's constants (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014)
_GOLDEN = _uint64(0x9E3779B97F4A7C15)
_MIX_1 = _uint64(0xBF58476D1CE4E5B9)
_MIX_2 = _uint64(0x94D049BB133111EB)
_SHIFTS = (_uint64(30), _uint64(27), _uint64(31), _uint64(11))
_TO_UNIT = 2.0 ** -53


def default_cotangent_bytes(dtype: str, numel: int, index: int) -> bytes:
    """The default cotangent of a result tensor of `numel` elements of `dtype` (a grader.protocol dtype name), the
    `index`-th tensor of its result, as its elements' bytes in order. ValueError for a dtype no result may have."""
    if dtype not in ITEM_SIZES:
        raise ValueError(f"no default cotangent for dtype {dtype!r}")
    if dtype not in FLOAT_DTYPES:
        return bytes(numel * ITEM_SIZES[dtype])
    if numel == 1:
        values = _ones(1)  # float64, NumPy's default
    else:
        values = _uniform(numel, COTANGENT_SEED + index)
    return _rounded(values, dtype).tobytes()


def _uniform(numel: int, seed: int) -> np.ndarray:
    """`numel` values uniform in [-1, 1): splitmix64 of seed * golden + (i + 1) * golden, top 53 bits."""
    # Array arithmetic wraps around 2**64 silently (only NumPy's scalars warn), as the hash means it to.
    state = (_arange(1, numel + 1, dtype=_uint64) + _uint64(seed)) * _GOLDEN
    state ^= state >> _SHIFTS[0]
    state *= _MIX_1
    state ^= state >> _SHIFTS[1]
    state *= _MIX_2
    state ^= state >> _SHIFTS[2]
    unit = (state >> _SHIFTS[3]) * _TO_UNIT  # float64: each 53-bit integer exactly, then a power of two
    return unit * 2.0 - 1.0


def _rounded(values: np.ndarray, dtype: str) -> np.ndarray:
    """float64 values in `dtype`, rounded to nearest (bfloat16, which NumPy lacks, as the top half of each float32
    rounded to nearest even: what torch's conversion gives for these values)."""
    if dtype == "float64":
        return values
    if dtype == "float32":
        return values.astype(_float32)
    if dtype == "float16":
        return values.astype(_float16)
    bits = values.astype(_float32).view(_uint32)
    rounding = ((bits >> _uint32(16)) & _uint32(1)) + _uint32(0x7FFF)
    return ((bits + rounding) >> _uint32(16)).astype(_uint16)


__all__ = ["COTANGENT_SEED", "default_cotangent_bytes"]
