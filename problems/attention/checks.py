"""Check battery for scaled dot-product attention.

Groups: `values` (the equation), `mask` (what a mask does, including rows with no allowed key), `gradients`
and `contract` (result type, inputs left alone, refused arguments) are required; `experiment` is advisory (it
records the entropy chart for the notes). Every check names the contract clauses of problem.toml it tests.
Every random input comes from a seeded generator, so two runs give identical verdicts.

Gradients: the worker calls backward() only on a one-element result, so the gradient checks use one query
and one value column (q [1, D], v [Lk, 1]); that still exercises every path from the output back to q, k, v.
"""

import itertools
import math

import torch

from grader.checks import (
    check,
    expect,
    expect_close,
    expect_no_alias,
    expect_tensor,
    fail,
)

# float32 results are compared with the exact answer (the reference in float64, rounded). Logits in these
# checks stay below ~6 in magnitude, so each weight carries a relative rounding error of a few eps32 * 6 and
# each output a few 1e-6 absolute; 2e-5 admits any order of operations, while every mutant is off by > 1e-2.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 2e-5


# ------------------------------------------------------------------------------------------------ inputs


def _randn(generator, *shape, dtype=torch.float64):
    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)


def _qkv(seed, lead, lq, lk, d, dv, dtype=torch.float64):
    generator = torch.Generator().manual_seed(seed)
    return (_randn(generator, *lead, lq, d, dtype=dtype), _randn(generator, *lead, lk, d, dtype=dtype),
            _randn(generator, *lead, lk, dv, dtype=dtype))


def _random_mask(seed, shape, p_allowed=0.6):
    """A bool mask in which every row along the last axis keeps at least one allowed key."""
    generator = torch.Generator().manual_seed(seed)
    mask = torch.rand(*shape, generator=generator) < p_allowed
    if shape[-1] > 0:
        first = torch.zeros(shape, dtype=torch.bool)
        first[..., 0] = True
        mask = mask | (first & ~mask.any(dim=-1, keepdim=True))
    return mask


def _exact(ref, q, k, v, mask=None):
    """The exact result (the reference in float64 on the same inputs), rounded to the inputs' dtype.

    Batched inputs go through the reference one [Lq, D] slice at a time: the judge's torch runs with several
    intra-op threads, and on a busy 2-core grader a batched matmul of these tiny sizes measured ~3 ms against
    ~0.02 ms for a 2-D one, which put ~80 ms on this battery."""
    dtype = q.dtype
    q, k, v = (t.detach().double() for t in (q, k, v))
    lead = tuple(q.shape[:-2])
    if not lead or math.prod(lead) == 0:
        return ref.scaled_dot_product_attention(q, k, v, mask).to(dtype)
    full = None if mask is None else mask.expand(*lead, q.shape[-2], k.shape[-2])
    rows = [ref.scaled_dot_product_attention(q[i], k[i], v[i], None if full is None else full[i])
            for i in itertools.product(*(range(n) for n in lead))]
    return torch.stack(rows).reshape(*lead, q.shape[-2], v.shape[-1]).to(dtype)


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == torch.float32 else (1e-7, 1e-9)


def _expect_attention(result, ref, q, k, v, mask=None, *, hint=""):
    """The learner's output for one call equals the exact one. A value one of the mutants also gives is named by
    the engine's diagnosis (the mutant's description), so no hand-written list of mistakes is needed here."""
    got = result.unwrap()
    expected = _exact(ref, q, k, v, mask)
    expect_tensor(got, shape=tuple(expected.shape), dtype=q.dtype, call=result)
    rtol, atol = _tolerances(q.dtype)
    if not torch.isfinite(got).all():
        fail(f"{result.call} returned non-finite values (nan or inf) where every value is finite; "
             f"{hint or 'a softmax must subtract each row maximum before exponentiating'}")
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------- values

HAND_K = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
HAND_V = torch.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, 2.0]])
HAND_Q = torch.tensor([[2 * math.log(3), 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])


@check("values.hand_example", "Hand example: weights [3/4, 1/4] and [1/2, 1/2] at D = 4",
       clauses=["formula", "scale"])
def hand_example(sub, ref):
    # Query 0's logits are [2 ln 3 / sqrt(4), 0] = [ln 3, 0], so its weights are [3/4, 1/4] and its output
    # 3/4 [1, 0, 2] + 1/4 [0, 1, 2] = [0.75, 0.25, 2]. Query 1's logits are [0, 0]: [0.5, 0.5, 2].
    result = sub.scaled_dot_product_attention.call(HAND_Q, HAND_K, HAND_V)
    got = result.unwrap()
    expected = torch.tensor([[0.75, 0.25, 2.0], [0.5, 0.5, 2.0]])
    expect_tensor(got, shape=(2, 3), dtype=torch.float32, call=result)
    hint = "(query 0's logits are [ln 3, 0] after dividing by sqrt(D) = 2, so its weights are [3/4, 1/4])"
    expect_close(got, expected, call=result, rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL, hint=hint)


@check("values.scale_uses_d", "The scale is 1 / sqrt(D), D = q.shape[-1], even when Dv differs; one key gets "
       "weight 1", clauses=["scale", "formula"])
def scale_uses_d(sub, ref):
    cases = [_qkv(1, (), 3, 5, 16, 1), _qkv(2, (), 4, 4, 2, 9), _qkv(3, (), 2, 6, 64, 4)]
    # A single key and no mask: every query's only weight is 1, so the output is v's row repeated for each query,
    # and still a new tensor (the contract), not v.expand(...), a view of v's own storage.
    single_key = _qkv(4, (2,), 3, 1, 5, 2)
    results = sub.scaled_dot_product_attention.map([((q, k, v), {}) for q, k, v in (*cases, single_key)])
    for result, (q, k, v) in zip(results[:-1], cases, strict=True):
        _expect_attention(result, ref, q, k, v, hint="(divide the logits by sqrt(D), the size of queries and keys)")
    result, (q, k, v) = results[-1], single_key
    hint = "(with one key and no mask each query's only weight is 1, so every output row is that key's value)"
    _expect_attention(result, ref, q, k, v, hint=hint)
    expect_no_alias(result, hint="(with one key the output equals v repeated over the queries, but the contract "
                    "promises a new tensor: v.expand(...) is a view of v's storage; compute weights @ v or clone)")



def _large_logit_inputs(dtype):
    """Keys with logits exactly +-1e4: q . k = 2 * 100 * 100 = 2e4 and sqrt(D) = 2 (all exact in float32)."""
    key = torch.tensor([100.0, 100.0, 0.0, 0.0], dtype=dtype)
    k = torch.stack([key, key, -key])  # two tied keys and their opposite
    v = torch.tensor([[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]], dtype=dtype)
    q = torch.stack([key, -key])  # logits [1e4, 1e4, -1e4] and [-1e4, -1e4, 1e4]
    return q, k, v


@check("values.large_logits", "Stable for logits of +1e4 and -1e4 in float32 and float64 (exp over/underflows)",
       clauses=["stable"])
def large_logits(sub, ref):
    # Query 0 ties between keys 0 and 1 (logit 1e4 each, key 2 at -1e4): output (v0 + v1) / 2 = [2, 3].
    # Query 1 puts all its weight on key 2: [100, 100]. With only the two tied keys, query 1's logits are both
    # -1e4: e^-1e4 underflows to 0 and a naive softmax returns 0 / 0, but the right answer is again [2, 3].
    for dtype in (torch.float32, torch.float64):
        q, k, v = _large_logit_inputs(dtype)
        both, negative = sub.scaled_dot_product_attention.map([((q, k, v), {}), ((q[1:], k[:2], v[:2]), {})])
        for result, inputs, expected in ((both, (q, k, v), [[2.0, 3.0], [100.0, 100.0]]),
                                         (negative, (q[1:], k[:2], v[:2]), [[2.0, 3.0]])):
            got = result.unwrap()
            expect_tensor(got, shape=(len(expected), 2), dtype=dtype, call=result)
            expect(bool(torch.isfinite(got).all()),
                   f"{result.call} returned {got.tolist()} for logits of +-1e4 (e^1e4 overflows and e^-1e4 "
                   f"underflows): subtract each row's maximum before exponentiating, as torch.softmax does")
            _expect_attention(result, ref, *inputs)


# --------------------------------------------------------------------------------------------------- mask


@check("mask.hand_example", "Hand example with a mask: True = may attend; a query with no key returns zeros",
       clauses=["mask_polarity", "fully_masked"])
def mask_hand_example(sub, ref):
    # Query 0 may look only at key 0, so its output is v0 = [1, 0, 2] exactly; query 1 may look at nothing.
    mask = torch.tensor([[True, False], [False, False]])
    result = sub.scaled_dot_product_attention.call(HAND_Q, HAND_K, HAND_V, mask)
    got = result.unwrap()
    expect_tensor(got, shape=(2, 3), dtype=torch.float32, call=result)
    expect(bool(torch.isfinite(got).all()), f"{result.call} returned {got.tolist()}: a query whose mask row is "
           "all False must return zeros, not NaN (softmax of a row of -inf is 0 / 0)")
    expected = torch.tensor([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]])
    hint = "(query 0 may attend only to key 0, so it returns v0 = [1, 0, 2]; query 1 may attend to nothing, so " \
        "it returns [0, 0, 0])"
    expect_close(got, expected, call=result, rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL, hint=hint)


@check("mask.forbidden_keys_get_no_weight", "Forbidden keys get weight exactly 0; the rest still sum to 1",
       clauses=["mask_polarity"])
def forbidden_keys_get_no_weight(sub, ref):
    # Values of 1e6 on every forbidden key: any weight leaking onto them shows up at once.
    cases = []
    for seed, (lead, lq, lk) in enumerate([((), 4, 6), ((3,), 5, 5), ((2, 2), 3, 8)]):
        q, k, v = _qkv(50 + seed, lead, lq, lk, 4, 3)
        mask = _random_mask(60 + seed, (*lead, lq, lk))
        cases.append((q, k, v, mask))
    # every query may see only key 1, whose value is [1, 2, 3]: the output is exactly that row
    q, k, _ = _qkv(70, (), 3, 4, 4, 3)
    v = torch.full((4, 3), 1e6, dtype=torch.float64)
    v[1] = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    only_key_one = torch.tensor([False, True, False, False]).expand(3, 4)
    cases.append((q, k, v, only_key_one))
    results = sub.scaled_dot_product_attention.map([((q, k, v, mask), {}) for q, k, v, mask in cases])
    for result, (q, k, v, mask) in zip(results, cases, strict=True):
        _expect_attention(result, ref, q, k, v, mask, hint="(a False entry removes that key: put -inf in its "
                          "logit before the softmax)")


@check("mask.broadcast", "Masks of shape [Lk], [Lq, Lk], [B, 1, Lk] and [B, Lq, 1] broadcast to [..., Lq, Lk]",
       clauses=["mask_broadcast"])
def mask_broadcast(sub, ref):
    q, k, v = _qkv(80, (2,), 3, 5, 4, 2)
    key_padding = torch.tensor([True, True, True, False, False])
    causal = torch.ones(3, 5, dtype=torch.bool).tril(diagonal=2)
    per_batch = torch.tensor([[[True, True, False, True, True]], [[True, False, False, False, True]]])
    per_query = torch.tensor([[[True], [True], [True]], [[True], [True], [True]]])
    masks = [key_padding, causal, per_batch, per_query, _random_mask(81, (2, 3, 5))]
    results = sub.scaled_dot_product_attention.map([((q, k, v, mask), {}) for mask in masks])
    for result, mask in zip(results, masks, strict=True):
        _expect_attention(result, ref, q, k, v, mask, hint=f"(a mask of shape {list(mask.shape)} broadcasts "
                          "against the [..., Lq, Lk] scores like any tensor: align it from the right)")


@check("mask.fully_masked_rows", "Queries with no allowed key return zeros, the others are unaffected",
       clauses=["fully_masked"])
def fully_masked_rows(sub, ref):
    q, k, v = _qkv(90, (2,), 4, 5, 3, 3)
    mask = _random_mask(91, (2, 4, 5))
    mask[0, 1] = False
    mask[1, 3] = False
    nothing = torch.zeros(4, 5, dtype=torch.bool)
    results = sub.scaled_dot_product_attention.map([((q, k, v, mask), {}), ((q, k, v, nothing), {})])
    for result, m in zip(results, (mask, nothing), strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(2, 4, 3), dtype=torch.float64, call=result)
        expect(bool(torch.isfinite(got).all()), f"{result.call} returned NaN for queries with no allowed key: "
               "their output must be a row of zeros (a softmax over a row of -inf is 0 / 0; detect such rows "
               "and give them zero weights)")
        rows = ~m.expand(2, 4, 5).any(dim=-1)
        leaked = got[rows].abs().max() if rows.any() else torch.tensor(0.0)
        expect(float(leaked) == 0.0, f"{result.call}: queries with no allowed key returned values up to "
               f"{float(leaked):.4g}, not zeros; a finite fill such as -1e9 makes the softmax uniform over the "
               "forbidden keys, so the query returns the mean of v (zero the weights of such rows)")
        _expect_attention(result, ref, q, k, v, m)


@check("mask.large_logits", "A forbidden key stays forbidden when its logit is 1e4 (no finite -1e4 fill)",
       clauses=["mask_polarity", "stable"])
def mask_large_logits(sub, ref):
    # Query 0 has logit 1e4 on keys 0 and 1 and -1e4 on key 2; with keys 0 and 1 forbidden it must return
    # v2 = [100, 100]. Adding -1e4 to forbidden logits (a habit from BERT-style additive masks) leaves them
    # at 0, far above key 2's -1e4, and the query returns [2, 3] instead.
    for dtype in (torch.float32, torch.float64):
        q, k, v = _large_logit_inputs(dtype)
        mask = torch.tensor([[False, False, True], [True, True, True]])
        result = sub.scaled_dot_product_attention.call(q, k, v, mask)
        _expect_attention(result, ref, q, k, v, mask, hint="(query 0 may attend only to key 2, so it returns "
                          "[100, 100] whatever the forbidden logits are: forbid with -inf, not a finite number)")


# ---------------------------------------------------------------------------------------------- gradients



def _grad_calls(cases):
    calls = []
    for q, k, v, mask in cases:
        calls.append(((q.clone().requires_grad_(), k.clone().requires_grad_(), v.clone().requires_grad_(), mask),
                      {}))
    return calls



@check("gradients.fully_masked", "No gradient (and no NaN) flows back through a query with no allowed key",
       clauses=["masked_gradients"])
def gradients_fully_masked(sub, ref):
    q, k, v = _qkv(120, (), 1, 4, 3, 1)
    masks = [torch.zeros(1, 4, dtype=torch.bool), torch.zeros(4, dtype=torch.bool)]
    results = sub.scaled_dot_product_attention.map(_grad_calls([(q, k, v, m) for m in masks]), grads=("q", "k", "v"))
    for result in results:
        got = result.unwrap()
        expect_close(got, torch.zeros(1, 1, dtype=torch.float64), call=result,
                     hint="(a query with no allowed key returns zeros)")
        for name in ("q", "k", "v"):
            grad = result.grads.get(name)
            if grad is None:
                continue  # a constant zero output is also fine: no gradient at all reaches the inputs
            expect(bool(torch.isfinite(grad).all()),
                   f"after backward() on {result.call}, {name}.grad contains NaN: the masked row's softmax is "
                   f"0 / 0, and selecting zeros afterwards (torch.where, masked_fill on the output) still "
                   f"multiplies that NaN into the backward pass; replace the row's logits before the softmax")
            expect_close(grad, torch.zeros_like(grad), what=f"{name}.grad", call=result,
                         hint="(a query with no allowed key passes zero gradient)")


# ----------------------------------------------------------------------------------------------- contract



# --------------------------------------------------------------------------------------------- experiment


def _entropy(weights):
    """Mean over queries of the entropy (nats) of each row of attention weights."""
    logs = torch.where(weights > 0, weights.clamp_min(1e-300).log(), torch.zeros_like(weights))
    return float(-(weights * logs).sum(dim=-1).mean())


@check("experiment.entropy", "Experiment: attention entropy against D, with and without the 1 / sqrt(D)",
       clauses=["formula", "scale"])
def entropy_experiment(sub, ref, ctx):
    # With v the identity, the output is the weight matrix itself. Queries and keys have N(0, 1) entries, so
    # q . k has standard deviation sqrt(D): with the scale the logits stay of order 1 at every D and the
    # entropy stays high; multiplying q by sqrt(D) undoes the scale and shows the unscaled softmax collapsing
    # towards one-hot rows (entropy -> 0) as D grows.
    dims = [1, 4, 16, 64, 256]  # 10 calls in one round trip
    lk = 16
    eye = torch.eye(lk, dtype=torch.float64)
    calls = []
    for d in dims:
        q, k, _ = _qkv(150 + d, (), 16, lk, d, 1)
        calls.append(((q, k, eye), {}))
        calls.append(((q * math.sqrt(d), k, eye), {}))
    results = [r.unwrap() for r in sub.scaled_dot_product_attention.map(calls)]
    ctx.record_experiment(
        x_label="key dimension d",
        steps=dims,
        series={
            "entropy_scaled": [_entropy(w) for w in results[0::2]],
            "entropy_unscaled": [_entropy(w) for w in results[1::2]],
            "uniform": [math.log(lk)] * len(dims),  # the entropy of uniform weights over 16 keys
        },
    )
