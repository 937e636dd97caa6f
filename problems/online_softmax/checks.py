"""Check battery for the online-softmax problem (Milakov & Gimelshein, 2018; Dao et al., 2022).

Groups `softmax`, `attention`, `memory` and `gradients` are required; `experiment` is advisory (it records the
chart of the notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs left
unchanged, new storage, requires_grad, autograd against the reference and finite differences, and the
refusals it can state; the checks here hold what a declaration cannot say: hand examples where the maximum
grows from one block to the next, every block size (1, not dividing the length, >= the length), -inf entries
and rows, the causal alignment, extreme scores in both directions, the refusals of nan/+inf and of Lk < Lq,
gradients through the blocks, and the memory limit.

Memory: problem.toml sets memory_mb = 64. The sandbox enforces it in the kernel: RLIMIT_DATA (a hard limit the
child cannot raise) makes an ordinary allocation beyond it fail, and the child's cgroup, where there is one, caps
everything it maps at memory_mb plus 64 MiB of slack, shared anonymous mappings (which RLIMIT_DATA does not
count) included. `memory.long_sequence` calls blockwise_attention at Lq = Lk = 5888 in float32, causal and not,
where one [Lq, Lk] matrix is 132 MiB by itself: more than either cap, so no naive version fits, however it
allocates. float32 rather than float64: the same matrix size costs a quarter of the time. A whole boolean mask
(33 MiB) would still fit; the statement asks for the mask a block at a time, but no limit enforces it. Nothing
the learner's code reports is trusted for this verdict.
"""

import math

import torch

from grader.checks import (
    central_differences,
    check,
    expect,
    expect_close,
    expect_grad_close,
    expect_rejected,
    expect_tensor,
    fail,
    reference_grads,
)

NEG_INF = float("-inf")

# float32 results are compared with the exact answer (the naive formula in float64, rounded). With logits of
# order 10 a softmax weight carries a relative rounding error of a few eps32 * 10, and an attention output a few
# 1e-6 absolute; 2e-5 admits every order of operations, while every mutant is off by more than 1e-2. At the
# extreme inputs (1e5) the inputs themselves are exact in float32 and the differences that decide the weights
# are small integers, so the same tolerance holds there.
FLOAT32_RTOL, FLOAT32_ATOL = 2e-5, 2e-5
FLOAT64_RTOL, FLOAT64_ATOL = 1e-9, 1e-11


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == torch.float32 else (FLOAT64_RTOL, FLOAT64_ATOL)


def _t(values, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype)


def _randn(generator, *shape, dtype=torch.float64):
    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)


# ------------------------------------------------------------------------------------------- exact answers


def _exact_softmax(x):
    """The ordinary softmax in float64 (rows of only -inf: zeros), rounded to x's dtype."""
    x64 = x.detach().double()
    empty = (x64 == NEG_INF).all(dim=-1, keepdim=True)
    safe = torch.where(empty, torch.zeros_like(x64), x64)
    weights = torch.softmax(safe, dim=-1)
    return torch.where(empty, torch.zeros_like(weights), weights).to(x.dtype)


def _allowed(lq, lk):
    """[Lq, Lk]: query i (position i + Lk - Lq) may see key j <= i + Lk - Lq."""
    return torch.arange(lk)[None, :] <= torch.arange(lq)[:, None] + (lk - lq)


def _exact_attention(q, k, v, causal, rows=None):
    """(out, lse) of the naive formula in float64, rounded to q's dtype; `rows` limits it to some queries."""
    dtype = q.dtype
    q, k, v = (t.detach().double() for t in (q, k, v))
    lq, lk = q.shape[-2], k.shape[-2]
    allowed = _allowed(lq, lk) if causal else None
    if rows is not None:  # only these queries: never the whole [Lq, Lk] matrix of a long sequence
        q = q[..., rows, :]
        allowed = None if allowed is None else allowed[rows]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        scores = scores.masked_fill(~allowed, NEG_INF)
    out = torch.softmax(scores, dim=-1) @ v
    lse = torch.logsumexp(scores, dim=-1)
    return out.to(dtype), lse.to(dtype)


# --------------------------------------------------------------------------------------------- comparisons


def _expect_softmax(result, x, *, hint=""):
    got = result.unwrap()
    expected = _exact_softmax(x)
    expect_tensor(got, shape=tuple(x.shape), dtype=x.dtype, call=result)
    if not bool(torch.isfinite(got).all()):
        fail(f"{result.call} returned nan or inf where every weight is finite; "
             f"{hint or 'subtract the running maximum before exponentiating, and never compute -inf - (-inf)'}")
    rtol, atol = _tolerances(x.dtype)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


def _expect_attention(result, q, k, v, causal, *, hint="", rows=None):
    got = result.unwrap()
    expect(isinstance(got, tuple) and len(got) == 2,
           f"{result.call} returned {type(got).__name__}; blockwise_attention returns a tuple (out, lse)")
    out, lse = got
    exact_out, exact_lse = _exact_attention(q, k, v, causal, rows=rows)
    if rows is None:
        expect_tensor(out, shape=tuple(exact_out.shape), dtype=q.dtype, what="out", call=result)
        expect_tensor(lse, shape=tuple(exact_lse.shape), dtype=q.dtype, what="lse", call=result)
    else:
        expect_tensor(out, shape=(*q.shape[:-1], v.shape[-1]), dtype=q.dtype, what="out", call=result)
        expect_tensor(lse, shape=tuple(q.shape[:-1]), dtype=q.dtype, what="lse", call=result)
        out, lse = out[..., rows, :], lse[..., rows]
    if not (bool(torch.isfinite(out).all()) and bool(torch.isfinite(lse).all())):
        fail(f"{result.call} returned nan or inf where every output is finite; "
             f"{hint or 'subtract the running maximum before exponentiating, and never compute -inf - (-inf)'}")
    rtol, atol = _tolerances(q.dtype)
    expect_close(out, exact_out, what="out", call=result, rtol=rtol, atol=atol, hint=hint)
    expect_close(lse, exact_lse, what="lse", call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------ softmax

HAND_X = [[0.0, math.log(2), math.log(3), math.log(4)],   # the maximum grows in the second block
          [math.log(4), math.log(3), math.log(2), 0.0]]   # the maximum is in the first block


@check("softmax.hand_example", "Hand example: x = ln[1, 2, 3, 4] in blocks of 3, the maximum grows in block 2",
       clauses=["softmax.formula", "softmax.blocks"])
def softmax_hand_example(sub, ref):
    # Row 0, blocks [ln 1, ln 2, ln 3] and [ln 4]: after block 1, m = ln 3 and l = (1 + 2 + 3) / 3 = 2; block 2
    # raises m to ln 4, so l becomes 2 * (3/4) + 1 = 2.5, and exp(x - ln 4) / 2.5 = [0.1, 0.2, 0.3, 0.4].
    # Row 1 is the same numbers reversed: m = ln 4 from block 1 on, l = (4 + 3 + 2) / 4 + 1/4 = 2.5.
    x = _t(HAND_X)
    result = sub.online_softmax.call(x, 3)
    expect_close(result.unwrap(), _t([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]]), call=result,
                 rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL,
                 hint="(row 0: after block 1, m = ln 3 and l = 2; block 2 raises m to ln 4, so the old l is "
                      "multiplied by exp(ln 3 - ln 4) = 3/4 before adding exp(0) = 1: l = 2.5)")


@check("softmax.block_sizes", "Every block size: 1, dividing the length or not, equal to it, larger than it",
       clauses=["softmax.formula", "softmax.blocks"])
def softmax_block_sizes(sub, ref):
    generator = torch.Generator().manual_seed(11)
    cases = []
    for dtype in (torch.float64, torch.float32):
        x = _randn(generator, 3, 7, dtype=torch.float64) * 3
        x[1] = torch.linspace(-4, 5, 7, dtype=torch.float64)  # increasing: the maximum grows in every block
        x = x.to(dtype)
        for block_size in (1, 2, 3, 5, 7, 12):
            cases.append((x, block_size))
    batched = _randn(generator, 2, 3, 9) * 4
    cases.append((batched, 4))
    cases.append((_randn(generator, 4, 1), 3))  # one entry per row: weight 1
    results = sub.online_softmax.map([((x, b), {}) for x, b in cases])
    for result, (x, b) in zip(results, cases, strict=True):
        n = x.shape[-1]
        shape = "equal to" if b == n else "larger than" if b > n else "dividing" if n % b == 0 else "not dividing"
        _expect_softmax(result, x, hint=f"(block_size {b} is {shape} the length {n}: the blocks are x[..., 0:{b}], "
                                         f"x[..., {b}:{2 * b}], ... and the last one holds what is left)")


@check("softmax.masked", "-inf entries get weight 0 in any block, a leading block of -inf included; a row of only "
       "-inf gives zeros", clauses=["softmax.masked"])
def softmax_masked(sub, ref):
    rows = [
        [NEG_INF, NEG_INF, NEG_INF, 0.0, math.log(3), NEG_INF],  # block 1 (size 3) holds only -inf
        [1.0, NEG_INF, 2.0, NEG_INF, NEG_INF, NEG_INF],  # block 2 holds only -inf
        [NEG_INF] * 6,  # nothing to attend to: zeros
    ]
    results = []
    for dtype in (torch.float64, torch.float32):
        x = _t(rows, dtype)
        results.append((x, sub.online_softmax.call(x, 3)))
    for x, result in results:
        got = result.unwrap()
        expect_tensor(got, shape=(3, 6), dtype=x.dtype, call=result)
        if not bool(torch.isfinite(got[:2]).all()):
            fail(f"{result.call} returned {got[:2].tolist()} for rows that have finite entries: while the running "
                 "maximum is still -inf, exp(m_old - m_new) computes -inf - (-inf) = nan; subtract 0 instead of "
                 "-inf until a finite entry has been seen")
        if not bool((got[2] == 0).all()):
            fail(f"{result.call} returned {got[2].tolist()} for a row of only -inf: the contract defines it as a "
                 "row of zeros (l = 0 there: divide by 1 instead of 0)")
        _expect_softmax(result, x, hint="(a -inf entry contributes exp(-inf) = 0 to the sum and gets weight 0; "
                                        "row 0: weights [0, 0, 0, 1/4, 3/4, 0])")


@check("softmax.stable", "Entries of +-1e5 in float32 and float64: no overflow, no underflow to 0 / 0",
       clauses=["softmax.stable"])
def softmax_stable(sub, ref):
    # Row 0 increases across the blocks, so every block raises the maximum: exp(1e5) overflows without the
    # subtraction. Row 1 lies near -1e5: exp(x) underflows to 0 for every entry unless the row's own maximum
    # is subtracted, and a running maximum that starts at a finite stand-in for -inf (-1e4, -5e4) stays above
    # every entry, so every term underflows and the result is 0 / 0.
    rows = [[1e5 - 3, 1e5 - 2, 1e5 - 1, 1e5], [-1e5, -1e5 - 1, -1e5 + 1, -1e5 - 2]]
    for dtype in (torch.float64, torch.float32):
        x = _t(rows, dtype)
        results = sub.online_softmax.map([((x, 1), {}), ((x, 3), {})])
        for result in results:
            _expect_softmax(result, x, hint="(only differences between entries matter: every exponential must be "
                                            "of x minus the row's running maximum, and the maximum must start at "
                                            "-inf, not at a large negative number)")


@check("softmax.refusals", "nan and +inf entries are refused with ValueError; -inf is legal",
       clauses=["softmax.refusals"])
def softmax_refusals(sub, ref):
    expect_rejected("ValueError", sub.online_softmax, [
        ((_t([[0.0, float("nan"), 1.0]]), 2), {}, "x holds nan"),
        ((_t([[0.0, float("inf"), 1.0]]), 2), {}, "x holds +inf (only -inf, a masked entry, is legal)"),
        ((_t([[0.0, 1.0]], torch.float32), 0), {}, "block_size 0 is below 1"),
    ])


# ---------------------------------------------------------------------------------------------- attention

# D = 4, so the scale is 1/2. Query 0 = [2 ln 2, 0, 0, 0] against keys 0, e1, 2 e1 gives scores [0, ln 2, 2 ln 2]
# and weights [1, 2, 4] / 7; query 1 = 0 gives uniform weights. v = [[7, 0], [0, 7], [0, 0]].
HAND_Q = [[2 * math.log(2), 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
HAND_K = [[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]]
HAND_V = [[7.0, 0.0], [0.0, 7.0], [0.0, 0.0]]


@check("attention.hand_example", "Hand example: scores [0, ln 2, 2 ln 2] in blocks of 2, out [1, 2], lse ln 7",
       clauses=["attention.formula"])
def attention_hand_example(sub, ref):
    # Block 1 (keys 0, 1): m = ln 2, l = 1/2 + 1 = 1.5, o = v0 / 2 + v1 = [3.5, 7]. Block 2 (key 2) raises m to
    # 2 ln 2: l and o are multiplied by exp(ln 2 - 2 ln 2) = 1/2 and key 2 adds exp(0) = 1 and v2 = [0, 0]:
    # l = 1.75, o = [1.75, 3.5], out = o / l = [1, 2], lse = m + ln l = 2 ln 2 + ln 1.75 = ln 7.
    q, k, v = _t(HAND_Q), _t(HAND_K), _t(HAND_V)
    result = sub.blockwise_attention.call(q, k, v, 2, False)
    got = result.unwrap()
    expect(isinstance(got, tuple) and len(got) == 2,
           f"{result.call} returned {type(got).__name__}; blockwise_attention returns a tuple (out, lse)")
    why = ("(after block 1, m = ln 2, l = 1.5, o = [3.5, 7]; block 2 raises m to 2 ln 2, so l and o are both "
           "multiplied by exp(ln 2 - 2 ln 2) = 1/2 before key 2 adds 1 to l and v2 = [0, 0] to o; divide o by l "
           "once, at the end)")
    expect_close(got[0], _t([[1.0, 2.0], [7 / 3, 7 / 3]]), what="out", call=result, rtol=FLOAT64_RTOL,
                 atol=FLOAT64_ATOL, hint=why)
    expect_close(got[1], _t([math.log(7), math.log(3)]), what="lse", call=result, rtol=FLOAT64_RTOL,
                 atol=FLOAT64_ATOL, hint="(lse = m + ln l = 2 ln 2 + ln 1.75 = ln 7 for query 0, ln 3 for the zero "
                                         "query)")


@check("attention.block_sizes", "Random q, k, v: every block size, with and without a cache, causal or not, in "
       "float32 and float64", clauses=["attention.formula", "attention.causal"])
def attention_block_sizes(sub, ref):
    generator = torch.Generator().manual_seed(21)
    shapes = [((), 5, 0, 4, 3), ((2,), 3, 4, 8, 2), ((2, 2), 6, 1, 2, 5)]  # lead, Lq, P, D, Dv
    cases = []
    for index, (lead, lq, p, d, dv) in enumerate(shapes):
        dtype = torch.float32 if index == 1 else torch.float64
        lk = lq + p
        q = (_randn(generator, *lead, lq, d) * 2).to(dtype)
        k = (_randn(generator, *lead, lk, d) * 2).to(dtype)
        v = _randn(generator, *lead, lk, dv, dtype=dtype)
        for number, block_size in enumerate(sorted({1, 3, lk - 1, lk, lk + 3} - {0})):
            for causal in (False, True) if number % 2 else (number % 4 == 0,):
                cases.append((q, k, v, block_size, causal))
    results = sub.blockwise_attention.map([((q, k, v, b, c), {}) for q, k, v, b, c in cases])
    for result, (q, k, v, b, causal) in zip(results, cases, strict=True):
        lk = k.shape[-2]
        shape = "equal to" if b == lk else "larger than" if b > lk else "dividing" if lk % b == 0 else "not dividing"
        why = (f"(block_size {b} is {shape} Lk = {lk}: the blocks are keys 0..{b - 1}, {b}..., and the last holds "
               f"what is left; each block's scores are exp(s - m_new), and what was accumulated before is multiplied "
               f"by exp(m_old - m_new)")
        if causal:
            why += (f"; with causal=True query i sees the keys 0..i + {lk - q.shape[-2]}, its own position included, "
                    f"so every query sees key 0")
        _expect_attention(result, q, k, v, causal, hint=why + ")")


@check("attention.causal", "Causal: query i sees keys 0 .. P + i, aligned to the last query; the first query of a "
       "square problem sees one key", clauses=["attention.causal"])
def attention_causal(sub, ref):
    generator = torch.Generator().manual_seed(31)
    q = _randn(generator, 5, 3)
    k = _randn(generator, 8, 3)
    v = _randn(generator, 8, 2)
    square = sub.blockwise_attention.call(q, k[:5], v[:5], 2, True)
    out, lse = square.unwrap()
    expect_tensor(out, shape=(5, 2), dtype=torch.float64, what="out", call=square)
    scale = 1 / math.sqrt(3)
    expect_close(out[0], v[0], what="out[0]", call=square, rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL,
                 hint="(with Lq = Lk and causal=True the first query sees only key 0, so its output is v[0] exactly)")
    expect_close(lse[0], (q[0] @ k[0]) * scale, what="lse[0]", call=square, rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL,
                 hint="(the first query sees only key 0: its lse is its one score q0 . k0 / sqrt(D))")
    _expect_attention(square, q, k[:5], v[:5], True,
                      hint="(query i sees keys 0..i; compare absolute key positions start + j with i, not the "
                           "position j inside the block)")
    cached = sub.blockwise_attention.map([((q, k, v, b, True), {}) for b in (3, 1, 8)])
    for result in cached:
        _expect_attention(result, q, k, v, True,
                          hint="(Lk = 8, Lq = 5: the queries are positions 3..7, so query i sees keys 0..i + 3; "
                               "aligning the mask to the first key instead hides the cache from every query)")


def _extreme_inputs(dtype, sign):
    """Scores sign * 1e5 + t with small integer t, exact in float32: q = [400, 2, 0, 0], keys [sign * 500, t, 0, 0],
    D = 4, so q . k / 2 = sign * 1e5 + t. Offsets increase, so every block raises the maximum."""
    offsets = [-3.0, -1.0, 0.0, 1.0, 2.0]
    q = torch.tensor([[400.0, 2.0, 0.0, 0.0], [400.0, -2.0, 0.0, 0.0]], dtype=dtype)
    k = torch.tensor([[sign * 500.0, t, 0.0, 0.0] for t in offsets], dtype=dtype)
    v = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [3.0, -1.0], [-1.0, 4.0]], dtype=dtype)
    return q, k, v


@check("attention.stable", "Scores of +-1e5 in float32 and float64: no overflow, no underflow to 0 / 0",
       clauses=["attention.stable"])
def attention_stable(sub, ref):
    # Scores near +1e5: exp overflows without subtracting the running maximum. Scores near -1e5: every
    # exponential underflows unless the maximum is subtracted, and a running maximum that starts at a finite
    # stand-in for -inf (-1e4, -5e4) stays above every score, so l = 0 and the output is 0 / 0.
    calls, inputs = [], []
    for dtype in (torch.float64, torch.float32):
        for sign in (1.0, -1.0):
            q, k, v = _extreme_inputs(dtype, sign)
            for block_size in (2, 5):
                calls.append(((q, k, v, block_size, False), {}))
                inputs.append((q, k, v))
    for result, (q, k, v) in zip(sub.blockwise_attention.map(calls), inputs, strict=True):
        _expect_attention(result, q, k, v, False,
                          hint="(only differences between scores matter: exponentiate each score minus the running "
                               "maximum, which starts at -inf, not at a large negative number)")


@check("attention.refusals", "Fewer keys than queries, or k and v with different numbers of keys, are refused "
       "with ValueError", clauses=["attention.refusals"])
def attention_refusals(sub, ref):
    generator = torch.Generator().manual_seed(41)
    q = _randn(generator, 4, 3)
    k = _randn(generator, 6, 3)
    v = _randn(generator, 6, 2)
    expect_rejected("ValueError", sub.blockwise_attention, [
        ((q, k[:3], v[:3], 2, False), {}, "Lk = 3 < Lq = 4: the queries must be the last Lq of the Lk positions"),
        ((q, k[:3], v[:3], 2, True), {}, "Lk = 3 < Lq = 4, causal"),
        ((q, k, v[:5], 2, False), {}, "k has 6 keys and v 5 values"),
        ((q, k, v, 0, False), {}, "block_size 0 is below 1"),
    ])


# ------------------------------------------------------------------------------------------------- memory

LONG = 5888  # one [LONG, LONG] float32 matrix is 132 MiB: more than the 64 MiB limit and its 64 MiB slack
LONG_BLOCK = 128
MEMORY_MB = 64  # problem.toml's [limits] memory_mb
LONG_ROWS = [0, 1, 1000, 2943, 2944, 4095, 5886, 5887]


@check("memory.long_sequence", "Lq = Lk = 5888 in float32 under a 64 MiB limit, with and without the causal mask: "
       "one [Lq, Lk] matrix (132 MiB) cannot fit", clauses=["memory.blockwise"])
def memory_long_sequence(sub, ref):
    # Both masks: a function may take another path when causal (the whole score matrix, or a whole float mask of
    # -inf, built once before the block loop), and only a call with that flag meets it.
    generator = torch.Generator().manual_seed(51)
    q = _randn(generator, LONG, 2, dtype=torch.float32)
    k = _randn(generator, LONG, 2, dtype=torch.float32)
    v = _randn(generator, LONG, 2, dtype=torch.float32)
    masks = (False, True)
    results = sub.blockwise_attention.map([((q, k, v, LONG_BLOCK, causal), {}) for causal in masks])
    for result, causal in zip(results, masks, strict=True):
        if result.raised is not None:
            full, block = LONG * LONG * 4 // 2**20, LONG * LONG_BLOCK * 4 // 2**20
            mask = " Build the causal mask a block at a time as well." if causal else ""
            fail(f"{result.call} raised {result.raised.summary()}. The grader runs your code under a {MEMORY_MB} MiB "
                 f"memory limit, and one [{LONG}, {LONG}] float32 matrix of scores or weights takes {full} MiB by "
                 f"itself: keep only one block of scores, [Lq, block_size] = [{LONG}, {LONG_BLOCK}] ({block} MiB), "
                 f"alive at a time.{mask}")
        _expect_attention(result, q, k, v, causal, rows=LONG_ROWS)


# ---------------------------------------------------------------------------------------------- gradients


def _grad_cases():
    generator = torch.Generator().manual_seed(61)
    cases = []
    for lq, p, block_size, causal in ((4, 3, 3, False), (4, 3, 2, True), (5, 0, 2, True), (3, 1, 8, False)):
        lk = lq + p
        q = _randn(generator, lq, 3) * 1.5
        k = _randn(generator, lk, 3) * 1.5
        v = _randn(generator, lk, 2)
        cotangent = (_randn(generator, lq, 2), _randn(generator, lq))
        cases.append((q, k, v, block_size, causal, cotangent))
    return cases


@check("gradients.attention", "Gradients of out and lse reach q, k and v as the naive formula's, across blocks and "
       "with causal masks", clauses=["gradients.through_blocks"])
def gradients_attention(sub, ref):
    cases = _grad_cases()
    calls = [((q.clone().requires_grad_(), k.clone().requires_grad_(), v.clone().requires_grad_(), b, c), {})
             for q, k, v, b, c, _ in cases]
    results = sub.blockwise_attention.map(calls, grads=("q", "k", "v"),
                                          grad_outputs=[cot for *_, cot in cases])
    for result, (q, k, v, b, causal, cotangent) in zip(results, cases, strict=True):
        expected = reference_grads(ref.blockwise_attention, (q, k, v, b, causal), ("q", "k", "v"),
                                   grad_output=cotangent)
        for name in ("q", "k", "v"):
            expect_grad_close(result, name, expected[name], rtol=1e-7, atol=1e-9,
                              hint="(the normaliser l depends on q and k: if l, or the rescale factor applied to it, "
                                   "is detached, the gradient misses the term that keeps the weights summing to 1; "
                                   "the running maximum may be detached, its effect cancels)")


@check("gradients.softmax", "Gradients of online_softmax: against the softmax Jacobian and central differences; zero "
       "and never nan at -inf entries", clauses=["gradients.through_blocks", "softmax.masked"])
def gradients_softmax(sub, ref):
    generator = torch.Generator().manual_seed(71)
    x = _randn(generator, 2, 7) * 3
    masked = _t([[NEG_INF, NEG_INF, 1.0, 0.5, NEG_INF, 2.0], [NEG_INF] * 6])
    cot_x, cot_masked = _randn(generator, 2, 7), _randn(generator, 2, 6)
    plain, with_inf = sub.online_softmax.map(
        [((x.clone().requires_grad_(), 3), {}), ((masked.clone().requires_grad_(), 2), {})],
        grads=("x",), grad_outputs=[cot_x, cot_masked])
    for result, values, cotangent in ((plain, x, cot_x), (with_inf, masked, cot_masked)):
        weights = _exact_softmax(values)
        inner = (weights * cotangent).sum(dim=-1, keepdim=True)
        expected = weights * (cotangent - inner)  # the softmax Jacobian: y_j (g_j - sum_i g_i y_i)
        grad = result.grads.get("x")
        if grad is not None and not bool(torch.isfinite(grad).all()):
            fail(f"after backward() on {result.call}, x.grad holds nan: a masked entry must pass a zero gradient "
                 "(a nan computed in the forward pass, even one replaced afterwards, flows backwards)")
        expect_grad_close(result, "x", expected, rtol=1e-7, atol=1e-9, source="the softmax Jacobian",
                          hint="(d y_j / d x_i = y_j (1[i = j] - y_i); the running sum l carries gradient, the "
                               "running maximum need not)")
    numeric = central_differences(sub.online_softmax, (x, 3), 0, grad_output=cot_x)
    expect_grad_close(plain, "x", numeric, rtol=1e-5, atol=1e-7, source="central differences of your function")


@check("gradients.all_masked", "Inputs of only -inf (the whole tensor, or some rows) that require grad: the zeros "
       "require grad too, and their gradient is 0", clauses=["gradients.through_blocks", "softmax.masked"])
def gradients_all_masked(sub, ref):
    cases = []
    for dtype in (torch.float32, torch.float64):
        cases.append((torch.full((2, 5), NEG_INF, dtype=dtype), 2, "every entry of x is -inf"))
        cases.append((torch.full((7,), NEG_INF, dtype=dtype), 3, "every entry of x is -inf"))
        some_rows = torch.full((3, 4), NEG_INF, dtype=dtype)
        some_rows[1] = torch.tensor([0.5, NEG_INF, -1.0, 2.0], dtype=dtype)
        cases.append((some_rows, 3, "rows 0 and 2 of x are only -inf"))
    results = sub.online_softmax.map([((x.clone().requires_grad_(), b), {}) for x, b, _ in cases], grads=("x",),
                                     grad_outputs=[torch.ones_like(x) for x, _, _ in cases])
    for result, (x, _, what) in zip(results, cases, strict=True):
        got = expect_tensor(result.unwrap(), shape=tuple(x.shape), dtype=x.dtype, call=result)
        expect(got.requires_grad, f"{result.call} returned a tensor that does not require grad ({what}, and x "
                                  "requires grad): the contract says the result requires grad when x does, whatever "
                                  "its values. Compute the zeros from x (the same formula, dividing by 1 where l = 0) "
                                  "rather than returning a fresh torch.zeros or a detached tensor")
        grad = result.grads.get("x")
        expect(grad is not None, f"after backward() on {result.call}, no gradient reached x: the result must stay "
                                 "connected to x even where every entry is -inf")
        expect(bool(torch.isfinite(grad).all()), f"after backward() on {result.call}, x.grad holds nan or inf: at "
                                                 "-inf entries the gradient is 0, never nan")
        weights = _exact_softmax(x)
        expected = weights * (1 - weights.sum(dim=-1, keepdim=True))  # the Jacobian against a cotangent of ones
        expect_grad_close(result, "x", expected.to(x.dtype), rtol=1e-6, atol=1e-7, source="the softmax Jacobian",
                          hint="(a row of only -inf gives zeros and a zero gradient; other rows as usual)")


# --------------------------------------------------------------------------------------------- experiment

EXPERIMENT_LENGTHS = [64, 128, 256, 512]
EXPERIMENT_BLOCK = 64


@check("experiment.error_and_memory", "Experiment: float32 error against the exact result, and the size of what is "
       "held, as the sequence grows", group="experiment", required=False)
def experiment(sub, ref, ctx):
    # Your blockwise attention in float32 against the exact float64 result, beside the naive float32 formula's
    # own error (computed here): blockwise is as accurate as naive. The memory series are the sizes of the
    # largest score matrix each method holds at once ([T, T] against [T, block]); the notes give the peak
    # memory measured for both, and the required check holds your function to the limit.
    calls, inputs = [], []
    for length in EXPERIMENT_LENGTHS:
        generator = torch.Generator().manual_seed(81 + length)
        q = _randn(generator, length, 16, dtype=torch.float32)
        k = _randn(generator, length, 16, dtype=torch.float32)
        v = _randn(generator, length, 16, dtype=torch.float32)
        calls.append(((q, k, v, EXPERIMENT_BLOCK, True), {}))
        inputs.append((q, k, v))
    series = {"blockwise_error": [], "naive_float32_error": [], "naive_scores_mib": [], "block_scores_mib": []}
    for result, (q, k, v) in zip(sub.blockwise_attention.map(calls), inputs, strict=True):
        got = result.unwrap()
        expect(isinstance(got, tuple) and len(got) == 2, f"{result.call} did not return (out, lse)")
        length = q.shape[0]
        exact, _ = _exact_attention(q.double(), k.double(), v.double(), True)
        scores = (q @ k.T) / 4.0
        scores = scores.masked_fill(~_allowed(length, length), NEG_INF)
        naive = torch.softmax(scores, dim=-1) @ v
        series["blockwise_error"].append(float((got[0].double() - exact).abs().max()))
        series["naive_float32_error"].append(float((naive.double() - exact).abs().max()))
        series["naive_scores_mib"].append(length * length * 4 / 2**20)
        series["block_scores_mib"].append(length * EXPERIMENT_BLOCK * 4 / 2**20)
    ctx.record_experiment(steps=EXPERIMENT_LENGTHS, series=series, x_label="sequence length T")
