"""Check battery for rotary position embedding (interleaved pairs).

Groups: `rotation` (values), `properties` (what RoPE is for: lengths kept, dot products that depend on the
offset only) and `contract` are required; `experiment` is advisory (the distance chart for the notes). Every
check names the clauses of problem.toml it tests, and every random input comes from a seeded generator.

Gradients: the worker calls backward() only on a one-element result and a rotated vector has at least two, so
the battery checks that the result stays attached to x's graph; the rotation is linear in x, and its values at
every tested input are checked, which pins the derivative down for any implementation that keeps the graph.
"""

import math

import torch

from grader.checks import (
    check,
    expect,
    expect_close,
    expect_tensor,
    fail,
)

# float32 results are compared with the exact rotation (float64 angles and arithmetic, rounded once). Each
# output is x_a cos - x_b sin with |x| <~ 4: a correct float32 computation is within a few eps32 * 4 of it, so
# 2e-5 admits any order of operations; a float32 angle at position 1e5 is off by ~1e-2.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 2e-5


# ------------------------------------------------------------------------------------------------ inputs


def _randn(seed, *shape, dtype=torch.float64):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)


def _positions(*values):
    return torch.tensor(values, dtype=torch.int64)


def _exact(ref, x, positions, base=10000.0):
    return ref.apply_rotary(x.detach().double(), positions, base).to(x.dtype)


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == torch.float32 else (1e-7, 1e-9)


def _expect_rotated(result, ref, x, positions, base=10000.0, *, hint=""):
    got = result.unwrap()
    expected = _exact(ref, x, positions, base)
    expect_tensor(got, shape=tuple(x.shape), dtype=x.dtype, call=result)
    rtol, atol = _tolerances(x.dtype)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# ---------------------------------------------------------------------------------------------- rotation


@check("rotation.hand_example", "Hand example: [1, 0, 0, 1] at position 1 with base 100",
       clauses=["pairs", "frequencies", "direction"])
def hand_example(sub, ref):
    # theta = [1, 100^(-1/2)] = [1, 0.1]: (1, 0) turns by 1 rad, (0, 1) by 0.1 rad, giving
    # [cos 1, sin 1, -sin 0.1, cos 0.1] = [0.5403, 0.8415, -0.0998, 0.9950].
    x = torch.tensor([[1.0, 0.0, 0.0, 1.0]], dtype=torch.float64)
    result = sub.apply_rotary.call(x, _positions(1), 100.0)
    _expect_rotated(result, ref, x, _positions(1), 100.0, hint="(expected [cos 1, sin 1, -sin 0.1, cos 0.1]: "
                    "pair (x0, x1) turns by 1 rad, pair (x2, x3) by 100^(-2/4) = 0.1 rad)")


@check("rotation.counter_clockwise", "D = 2: the unit vector [1, 0] at position p becomes [cos p, sin p]",
       clauses=["direction"])
def counter_clockwise(sub, ref):
    x = torch.tensor([[1.0, 0.0]] * 4, dtype=torch.float64)
    positions = _positions(0, 1, 2, 3)
    result = sub.apply_rotary.call(x, positions)
    _expect_rotated(result, ref, x, positions, hint="(with D = 2 the only frequency is 1, so the angle is the "
                    "position; a counter-clockwise turn sends [1, 0] to [cos p, sin p])")


@check("rotation.position_zero", "Position 0 leaves every vector unchanged", clauses=["formula"])
def position_zero(sub, ref):
    x = _randn(1, 2, 3, 8)
    result = sub.apply_rotary.call(x, _positions(0, 0, 0))
    _expect_rotated(result, ref, x, _positions(0, 0, 0), hint="(an angle of 0 is the identity rotation)")


@check("rotation.interleaved_pairs", "Neighbouring features (2i, 2i + 1) rotate together, not (i, i + D/2)",
       clauses=["pairs"])
def interleaved_pairs(sub, ref):
    # A unit vector on feature 2 of D = 8 at position 3: only features 2 and 3 may change.
    x = torch.zeros(1, 8, dtype=torch.float64)
    x[0, 2] = 1.0
    result = sub.apply_rotary.call(x, _positions(3))
    got = result.unwrap()
    expect_tensor(got, shape=(1, 8), dtype=torch.float64, call=result)
    moved = [i for i in range(8) if i not in (2, 3) and abs(float(got[0, i])) > 1e-12]
    if moved:
        fail(f"{result.call} changed features {moved}: a unit vector on feature 2 may only move into feature 3, "
             "because RoPE rotates neighbouring pairs (x_2i, x_2i+1); the half-split pairing (i, i + D/2) is "
             "the other convention")
    _expect_rotated(result, ref, x, _positions(3))


@check("rotation.frequencies", "Pair i turns at the frequency base^(-2i/D) (D = 8, base = 100)",
       clauses=["frequencies"])
def frequencies(sub, ref):
    # At position 1, the unit vector on feature 2i turns by exactly theta_i = 100^(-2i/8) = 10^(-i/2).
    x = torch.zeros(4, 8, dtype=torch.float64)
    for i in range(4):
        x[i, 2 * i] = 1.0
    positions = _positions(1, 1, 1, 1)
    result = sub.apply_rotary.call(x, positions, 100.0)
    _expect_rotated(result, ref, x, positions, 100.0, hint="(pair i turns by position * base^(-2i/D): "
                    "here 1, 0.316, 0.1 and 0.0316 rad)")


@check("rotation.base", "base sets the frequencies; it defaults to 10000", clauses=["frequencies", "defaults"])
def base(sub, ref):
    x = _randn(2, 3, 8)
    positions = _positions(1, 5, 9)
    calls = [((x, positions, 500.0), {}), ((x, positions, 3), {}), ((x, positions), {})]
    results = sub.apply_rotary.map(calls)
    for result, ((_, _, *rest), _) in zip(results, calls, strict=True):
        value = rest[0] if rest else 10000.0
        _expect_rotated(result, ref, x, positions, value, hint=f"(base = {value})")



@check("rotation.arbitrary_positions", "positions are used as given: unsorted, repeated, negative, not from 0",
       clauses=["positions"])
def arbitrary_positions(sub, ref):
    x = _randn(30, 6, 8)
    cases = [_positions(7, 0, 3, 100, -5, 7), _positions(1, 2, 3, 4, 5, 6), _positions(-3, -2, -1, 0, 1, 2)]
    results = sub.apply_rotary.map([((x, p), {}) for p in cases])
    for result, p in zip(results, cases, strict=True):
        _expect_rotated(result, ref, x, p, hint="(row j turns by positions[j]; nothing assumes 0, 1, 2, ...)")


@check("rotation.large_positions", "Angles in float64: positions up to 1e6 stay exact in float32 and float64",
       clauses=["precision"])
def large_positions(sub, ref):
    positions = _positions(0, 65537, 100003, 999983)
    cases = [_randn(31, 4, 8), _randn(32, 4, 8, dtype=torch.float32)]
    results = sub.apply_rotary.map([((x, positions), {}) for x in cases])
    for result, x in zip(results, cases, strict=True):
        _expect_rotated(result, ref, x, positions, hint="(compute the angles position * frequency in float64, "
                        "then round cos and sin to x's dtype: a float32 angle near 1e6 is off by ~0.06 rad)")



# -------------------------------------------------------------------------------------------- properties


@check("properties.lengths_kept", "Every pair keeps its length (a rotation), at any position",
       clauses=["norm"])
def lengths_kept(sub, ref):
    x = _randn(50, 5, 16)
    positions = _positions(0, 1, 17, 500, -40)
    result = sub.apply_rotary.call(x, positions)
    got = expect_tensor(result.unwrap(), shape=(5, 16), dtype=torch.float64, call=result)
    lengths = got.reshape(5, 8, 2).norm(dim=-1)
    wanted = x.reshape(5, 8, 2).norm(dim=-1)
    expect_close(lengths, wanted, what="the length of each pair (y_2i, y_2i+1)", call=result,
                 hint="(a rotation changes directions, never lengths: each output pair must have the length of "
                 "its input pair)")


@check("properties.relative_offset", "The dot product of a rotated query and key depends only on the offset",
       clauses=["relative"])
def relative_offset(sub, ref):
    # q rotated to m and k rotated to n have the dot product of q rotated to m - n and k unrotated; the pairs
    # (m, n) below all have offset 3 (and one has a negative position).
    q, k = _randn(60, 1, 16), _randn(61, 1, 16)
    pairs = [(3, 0), (10, 7), (250, 247), (1, -2)]
    calls = [((q, _positions(m)), {}) for m, _ in pairs] + [((k, _positions(n)), {}) for _, n in pairs]
    results = sub.apply_rotary.map(calls)
    values = [r.unwrap() for r in results]
    dots = [float((values[i] * values[len(pairs) + i]).sum()) for i in range(len(pairs))]
    exact = float((_exact(ref, q, _positions(3)) * k).sum())
    for (m, n), dot in zip(pairs, dots, strict=True):
        expect(math.isclose(dot, exact, rel_tol=1e-9, abs_tol=1e-9),
               f"apply_rotary(q, [{m}]) . apply_rotary(k, [{n}]) = {dot:.9g}, but every offset m - n = 3 must give "
               f"{exact:.9g}: RoPE's dot products depend on the positions only through their difference (rotate "
               "both vectors with the same frequencies and direction)")


# ----------------------------------------------------------------------------------------------- contract



# --------------------------------------------------------------------------------------------- experiment


@check("experiment.distance", "Experiment: the dot product of two rotated all-ones vectors against their distance",
       clauses=["relative"])
def distance(sub, ref, ctx):
    # q = k = all ones (D = 64): q rotated to position d against k at position 0 gives sum_i 2 cos(d theta_i),
    # which starts at D and, averaged over many frequencies, decays with the distance d (the paper's
    # "long-term decay", section 3.4.3). Divided by D to start at 1.
    d_model = 64
    ones = torch.ones(1, d_model, dtype=torch.float64)
    distances = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    calls = [((ones, _positions(d)), {}) for d in distances]
    at_zero = sub.apply_rotary.call(ones, _positions(0)).unwrap()
    rotated = [r.unwrap() for r in sub.apply_rotary.map(calls)]
    scores = [float((r * at_zero).sum()) / d_model for r in rotated]
    ctx.record_experiment(x_label="distance", steps=distances, series={"relative_score": scores})
