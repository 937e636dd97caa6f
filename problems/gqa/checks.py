"""Check battery for grouped-query attention (Ainslie et al., 2023).

Groups `sharing` (which key/value head each query head reads, the equation, the refusal of a G that does not
divide H), `mask`, `gradients` and `pooling` (the checkpoint conversion) are required; `experiment` is advisory
(it records the chart of the notes). The declared contract in problem.toml covers shapes, dtypes, layouts,
inputs left unchanged, new storage, requires_grad, autograd against the reference and finite differences, and
the refusals of declared rules; the checks here hold what a declaration cannot say. Every check names the
clauses of problem.toml it tests, and every random input comes from a seeded generator.
"""

import itertools
import math

import torch

from grader.checks import check, expect, expect_close, expect_grad_close, expect_rejected, expect_tensor, fail, vjp

# float32 results are compared with the exact answer (the reference in float64, rounded). Logits here stay below
# ~6 in magnitude, so each output carries a rounding error of a few 1e-6; 2e-5 admits any order of operations,
# while every mutant is off by more than 1e-2.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 2e-5


# ------------------------------------------------------------------------------------------------ inputs


def _randn(generator, *shape, dtype=torch.float64):
    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)


def _qkv(seed, lead, heads, groups, lq, lk, d, dv, dtype=torch.float64):
    generator = torch.Generator().manual_seed(seed)
    return (_randn(generator, *lead, heads, lq, d, dtype=dtype), _randn(generator, *lead, groups, lk, d, dtype=dtype),
            _randn(generator, *lead, groups, lk, dv, dtype=dtype))


def _random_mask(seed, shape, p_allowed=0.6):
    """A bool mask in which every row along the last axis keeps at least one allowed key."""
    generator = torch.Generator().manual_seed(seed)
    mask = torch.rand(*shape, generator=generator) < p_allowed
    first = torch.zeros(shape, dtype=torch.bool)
    first[..., 0] = True
    return mask | (first & ~mask.any(dim=-1, keepdim=True))


def _exact(ref, q, k, v, mask=None):
    """The exact result: the reference in float64 on the same inputs, one [H, Lq, D] slice at a time (a batched
    matmul of these tiny sizes costs milliseconds on a busy grader), rounded to the inputs' dtype."""
    dtype = q.dtype
    q, k, v = (t.detach().double() for t in (q, k, v))
    lead = tuple(q.shape[:-3])
    if not lead:
        return ref.grouped_query_attention(q, k, v, mask).to(dtype)
    full = None if mask is None else mask.expand(*q.shape[:-1], k.shape[-2])
    rows = [ref.grouped_query_attention(q[i], k[i], v[i], None if full is None else full[i])
            for i in itertools.product(*(range(n) for n in lead))]
    return torch.stack(rows).reshape(*q.shape[:-1], v.shape[-1]).to(dtype)


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == torch.float32 else (1e-7, 1e-9)


def _expect_attention(result, ref, q, k, v, mask=None, *, hint="", float32_tolerance=None):
    got = result.unwrap()
    expected = _exact(ref, q, k, v, mask)
    expect_tensor(got, shape=tuple(expected.shape), dtype=q.dtype, call=result)
    if not torch.isfinite(got).all():
        fail(f"{result.call} returned non-finite values (nan or inf) where every value is finite; "
             f"{hint or 'a softmax must subtract each row maximum before exponentiating'}")
    rtol, atol = _tolerances(q.dtype)
    if float32_tolerance is not None and q.dtype == torch.float32:
        rtol, atol = float32_tolerance
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# Logits of 1e4 in float32 are spaced about 1e-3 apart (one ulp is 2^-10), so a correct softmax written as
# exp(s - logsumexp(s)) carries an error of up to ~1e-3 in each exponent; the max-shifted form is exact here. Both are
# correct implementations, so the large-logit checks allow 2e-3 in float32; the mutants they exist for return inf,
# NaN or a weight on the wrong key (errors of order 1 to 100).
LARGE_LOGIT_FLOAT32 = (2e-3, 2e-3)

GROUPED_HINT = "(query head h reads key/value head h // (H / G): the first H/G query heads share head 0, the next " \
    "H/G head 1, and so on)"

# ----------------------------------------------------------------------------------------------- sharing

L3 = 2 * math.log(3)
HAND_Q = torch.tensor([[[L3, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, L3, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]]])
HAND_K = torch.tensor([[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]] * 2)
HAND_V = torch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[10.0, 0.0], [0.0, 10.0]]])


@check("sharing.hand_example", "Hand example: H = 4 query heads share G = 2 key/value heads, D = 4",
       clauses=["sharing.grouped", "sharing.formula"])
def hand_example(sub, ref):
    # Heads 0 and 1 read KV head 0 (values e0, e1), heads 2 and 3 read KV head 1 (values 10 e0, 10 e1).
    # Head 0's logits are [2 ln 3 / sqrt(4), 0] = [ln 3, 0]: weights [3/4, 1/4], output [0.75, 0.25].
    # Head 1's logits are [0, 0]: [0.5, 0.5]. Head 2's are [0, ln 3]: 10 [1/4, 3/4] = [2.5, 7.5]. Head 3: [5, 5].
    result = sub.grouped_query_attention.call(HAND_Q, HAND_K, HAND_V)
    got = result.unwrap()
    expect_tensor(got, shape=(4, 1, 2), dtype=torch.float32, call=result)
    expected = torch.tensor([[[0.75, 0.25]], [[0.5, 0.5]], [[2.5, 7.5]], [[5.0, 5.0]]])
    expect_close(got, expected, call=result, rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL,
                 hint="(heads 0 and 1 read key/value head 0, heads 2 and 3 head 1; head 0's logits are [ln 3, 0] "
                      "after dividing by sqrt(D) = 2, so its weights are [3/4, 1/4])")


@check("sharing.which_head", "Query head h reads key/value head h // (H / G), for several H and G",
       clauses=["sharing.grouped"])
def which_head(sub, ref):
    # Every value of key/value head g is g + 1, so every output of a query head is the number (plus one) of the
    # key/value head it read, whatever its weights.
    cases = [(8, 2), (8, 4), (6, 3), (6, 2), (9, 3), (4, 1), (3, 3)]
    calls = []
    for seed, (heads, groups) in enumerate(cases):
        q, k, _ = _qkv(10 + seed, (), heads, groups, 2, 3, 4, 1)
        v = (torch.arange(groups, dtype=torch.float64) + 1).reshape(groups, 1, 1).expand(groups, 3, 1).clone()
        calls.append(((q, k, v), {}))
    for result, (heads, groups) in zip(sub.grouped_query_attention.map(calls), cases, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(heads, 2, 1), dtype=torch.float64, call=result)
        read = [round(float(x)) - 1 for x in got[:, 0, 0]]
        expected = [h // (heads // groups) for h in range(heads)]
        expect(read == expected, f"{result.call}: with H = {heads} and G = {groups}, query heads 0..{heads - 1} read "
               f"key/value heads {read} (found by giving every value of head g the value g + 1), but they must read "
               f"{expected}: head h uses h // (H / G) = h // {heads // groups}, contiguous groups (h % G interleaves "
               "them, as tiling the key/value stack does; h // G is right only when G = H / G)")
        _expect_attention(result, ref, *calls[cases.index((heads, groups))][0])


@check("sharing.random", "Random heads, batches and sizes against the exact result, float32 and float64",
       clauses=["sharing.grouped", "sharing.formula"])
def random_cases(sub, ref):
    shapes = [((), 8, 2, 3, 5, 4, 3), ((2,), 6, 3, 4, 4, 8, 2), ((3,), 4, 4, 2, 6, 2, 5), ((2,), 4, 1, 3, 3, 5, 4)]
    cases = []
    for seed, (lead, heads, groups, lq, lk, d, dv) in enumerate(shapes):
        for dtype in (torch.float64, torch.float32):
            cases.append(_qkv(20 + seed, lead, heads, groups, lq, lk, d, dv, dtype=dtype))
    results = sub.grouped_query_attention.map([((q, k, v), {}) for q, k, v in cases])
    for result, (q, k, v) in zip(results, cases, strict=True):
        _expect_attention(result, ref, q, k, v, hint=GROUPED_HINT)


@check("sharing.endpoints", "G = H is multi-head attention, G = 1 multi-query attention",
       clauses=["sharing.formula", "sharing.grouped"])
def endpoints(sub, ref):
    # G = H: head h attends with its own k[h], v[h]; G = 1: every head with k[0], v[0]. Written per head from the
    # one-head formula softmax(q k^T / sqrt(D)) v, not from the reference.
    def one_head(q, k, v):
        return torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1) @ v

    multi = _qkv(30, (), 4, 4, 3, 5, 6, 2)
    single = _qkv(31, (), 4, 1, 3, 5, 6, 2)
    results = sub.grouped_query_attention.map([(multi, {}), (single, {})])
    for result, (q, k, v), name in zip(results, (multi, single), ("multi-head", "multi-query"), strict=True):
        expected = torch.stack([one_head(q[h], k[h if k.shape[0] > 1 else 0], v[h if k.shape[0] > 1 else 0])
                                for h in range(4)])
        expect_close(result.unwrap(), expected, call=result, rtol=1e-7, atol=1e-9,
                     hint=f"({name} attention: each query head h computes softmax(q_h k^T / sqrt(D)) v with "
                          f"{'its own key/value head h' if name == 'multi-head' else 'the single key/value head'})")


@check("sharing.scale_uses_d", "The scale is 1 / sqrt(D), D = q.shape[-1], not the value size or the head count",
       clauses=["sharing.formula"])
def scale_uses_d(sub, ref):
    cases = [_qkv(40, (), 4, 2, 3, 5, 16, 1), _qkv(41, (), 6, 2, 4, 4, 2, 9), _qkv(42, (), 2, 1, 2, 6, 32, 4)]
    results = sub.grouped_query_attention.map([(case, {}) for case in cases])
    for result, (q, k, v) in zip(results, cases, strict=True):
        _expect_attention(result, ref, q, k, v, hint="(divide the logits by sqrt(D), the size of queries and keys, "
                          "once; not by sqrt(Dv), sqrt(H D) or twice)")


def _large_logit_inputs(dtype):
    """Two query heads sharing one key/value head, logits exactly +-1e4: q . k = 2 * 100 * 100, sqrt(D) = 2."""
    key = torch.tensor([100.0, 100.0, 0.0, 0.0], dtype=dtype)
    k = torch.stack([key, key, -key])[None]  # [1, 3, 4]: two tied keys and their opposite
    v = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]], dtype=dtype)
    q = torch.stack([key, -key])[:, None]  # [2, 1, 4]: head 0 logits [1e4, 1e4, -1e4], head 1 the opposite
    return q, k, v


@check("sharing.large_logits", "Stable for logits of +1e4 and -1e4 in float32 and float64", clauses=["stable"])
def large_logits(sub, ref):
    # Head 0 ties between keys 0 and 1: (v0 + v1) / 2 = [2, 3]; head 1 puts all its weight on key 2: [100, 100].
    # On the two tied keys alone head 1's logits are both -1e4: e^-1e4 underflows, the answer is again [2, 3].
    for dtype in (torch.float32, torch.float64):
        q, k, v = _large_logit_inputs(dtype)
        both, low = sub.grouped_query_attention.map([((q, k, v), {}), ((q, k[:, :2], v[:, :2]), {})])
        for result, expected in ((both, [[[2.0, 3.0]], [[100.0, 100.0]]]), (low, [[[2.0, 3.0]], [[2.0, 3.0]]])):
            got = result.unwrap()
            expect(bool(torch.isfinite(got).all()),
                   f"{result.call} returned {got.tolist()} for logits of +-1e4 (e^1e4 overflows and e^-1e4 "
                   f"underflows): subtract each row's maximum before exponentiating")
            rtol, atol = LARGE_LOGIT_FLOAT32 if dtype == torch.float32 else (1e-7, 1e-9)
            expect_close(got, torch.tensor(expected, dtype=dtype), call=result, rtol=rtol, atol=atol,
                         hint="(tied logits share the weight equally; subtract each row's maximum before "
                              "exponentiating)")


@check("sharing.refuses_indivisible", "A G that does not divide H, or no key/value head, raises ValueError",
       clauses=["sharing.divides"])
def refuses_indivisible(sub, ref):
    calls = []
    for heads, groups, why in ((6, 4, "G = 4 does not divide H = 6"), (3, 2, "G = 2 does not divide H = 3"),
                               (2, 4, "G = 4 key/value heads for H = 2 query heads"),
                               (4, 0, "there is no key/value head (G = 0)")):
        q, k, v = _qkv(50, (), heads, groups, 2, 3, 4, 2)
        calls.append(((q, k, v), {}, why))
    expect_rejected("ValueError", sub.grouped_query_attention, calls)


# -------------------------------------------------------------------------------------------------- mask


@check("mask.hand_example", "Hand example with a mask per query head: True = may attend, none allowed gives zeros",
       clauses=["mask.polarity", "mask.fully_masked"])
def mask_hand_example(sub, ref):
    # Head 0 sees only key 0 of KV head 0: [1, 0]. Head 1 sees nothing: [0, 0]. Head 2 sees only key 1 of KV head
    # 1: [0, 10]. Head 3 sees both keys with equal logits: [5, 5].
    mask = torch.tensor([[[True, False]], [[False, False]], [[False, True]], [[True, True]]])
    result = sub.grouped_query_attention.call(HAND_Q, HAND_K, HAND_V, mask)
    got = result.unwrap()
    expect_tensor(got, shape=(4, 1, 2), dtype=torch.float32, call=result)
    expect(bool(torch.isfinite(got).all()), f"{result.call} returned {got.tolist()}: a query whose mask row is "
           "all False must return zeros, not NaN (softmax of a row of -inf is 0 / 0)")
    expected = torch.tensor([[[1.0, 0.0]], [[0.0, 0.0]], [[0.0, 10.0]], [[5.0, 5.0]]])
    expect_close(got, expected, call=result, rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL,
                 hint="(True = may attend: head 0 may attend only to key 0 and returns [1, 0]; head 1 to nothing and "
                      "returns zeros; head 2 only to key 1 of its key/value head and returns [0, 10])")


@check("mask.broadcast", "Forbidden keys get weight 0; masks [Lk], [Lq, Lk], [H, 1, Lk], [B, 1, Lq, Lk] broadcast",
       clauses=["mask.polarity"])
def mask_broadcast(sub, ref):
    q, k, v = _qkv(60, (2,), 4, 2, 3, 5, 4, 2)
    v = v.clone()
    v[..., 3:, :] = 1e6  # keys 3 and 4 carry huge values: any weight leaking onto them shows at once
    masks = [torch.tensor([True, True, True, False, False]), torch.ones(3, 5, dtype=torch.bool).tril(diagonal=2),
             _random_mask(61, (4, 1, 5)), _random_mask(62, (2, 1, 3, 5)), _random_mask(63, (2, 4, 3, 5))]
    masks = [m & torch.tensor([True, True, True, False, False]) | torch.tensor([True, False, False, False, False])
             for m in masks]
    results = sub.grouped_query_attention.map([((q, k, v, m), {}) for m in masks])
    for result, mask in zip(results, masks, strict=True):
        _expect_attention(result, ref, q, k, v, mask, hint=f"(a False entry removes that key: -inf in its logit "
                          f"before the softmax; a mask of shape {list(mask.shape)} broadcasts against the "
                          "[..., H, Lq, Lk] scores of the query heads, aligned from the right)")


@check("mask.fully_masked_rows", "Queries with no allowed key, or no keys at all, return zeros; others unaffected",
       clauses=["mask.fully_masked"])
def fully_masked_rows(sub, ref):
    q, k, v = _qkv(70, (), 4, 2, 3, 5, 3, 3)
    mask = _random_mask(71, (4, 3, 5))
    mask[0, 1] = False
    mask[3, 2] = False
    nothing = torch.zeros(5, dtype=torch.bool)
    no_keys = _qkv(72, (), 4, 2, 3, 0, 3, 3)
    results = sub.grouped_query_attention.map([((q, k, v, mask), {}), ((q, k, v, nothing), {}), (no_keys, {})])
    for result, m in zip(results[:2], (mask, nothing), strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(4, 3, 3), dtype=torch.float64, call=result)
        expect(bool(torch.isfinite(got).all()), f"{result.call} returned NaN for queries with no allowed key: "
               "their output must be a row of zeros (detect such rows and give them zero weights)")
        rows = ~m.expand(4, 3, 5).any(dim=-1)
        leaked = float(got[rows].abs().max()) if rows.any() else 0.0
        expect(leaked == 0.0, f"{result.call}: queries with no allowed key returned values up to {leaked:.4g}, "
               "not zeros; a finite fill such as -1e9 makes the softmax uniform over the forbidden keys, so the "
               "query returns the mean of v (zero the weights of such rows)")
        _expect_attention(result, ref, q, k, v, m)
    empty = results[2]
    expect_close(empty.unwrap(), torch.zeros(4, 3, 3, dtype=torch.float64), call=empty,
                 hint="(with Lk = 0 no query has a key: every output row is zeros)")


@check("mask.large_logits", "A forbidden key stays forbidden when its logit is 1e4",
       clauses=["mask.polarity", "stable"])
def mask_large_logits(sub, ref):
    # Head 0 has logit 1e4 on keys 0 and 1 and -1e4 on key 2; with keys 0 and 1 forbidden it returns v2 = [100, 100].
    for dtype in (torch.float32, torch.float64):
        q, k, v = _large_logit_inputs(dtype)
        mask = torch.tensor([[[False, False, True]], [[True, True, True]]])
        result = sub.grouped_query_attention.call(q, k, v, mask)
        _expect_attention(result, ref, q, k, v, mask, float32_tolerance=LARGE_LOGIT_FLOAT32,
                          hint="(head 0 may attend only to key 2, so it returns [100, 100] whatever the forbidden "
                               "logits are: forbid with -inf, not a finite number)")


# --------------------------------------------------------------------------------------------- gradients


def _summed_grads(q, k, v, mask, cotangent):
    """Gradients of sum(cotangent * output) computed as multi-head attention on explicit copies of each key/value
    head (one leaf per query head), then summed over the H/G copies of each key/value head."""
    heads, groups = q.shape[-3], k.shape[-3]
    index = torch.arange(heads) // (heads // groups)
    q = q.detach().double().clone().requires_grad_(True)
    k_copies = k.detach().double().index_select(-3, index).requires_grad_(True)
    v_copies = v.detach().double().index_select(-3, index).requires_grad_(True)
    scores = q @ k_copies.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v_copies
    q_grad, k_copies_grad, v_copies_grad = vjp([out], [q, k_copies, v_copies], [cotangent.double()])
    per_group = (*k.shape[:-3], groups, heads // groups)
    k_grad = k_copies_grad.reshape(*per_group, *k.shape[-2:]).sum(dim=-3)
    v_grad = v_copies_grad.reshape(*per_group, *v.shape[-2:]).sum(dim=-3)
    return q_grad, k_grad, v_grad


@check("gradients.summed_over_group", "A key/value head's gradient is the sum over its H/G query heads",
       clauses=["gradients.summed"])
def summed_over_group(sub, ref):
    cases = [(_qkv(80, (), 8, 2, 3, 4, 3, 2), None), (_qkv(81, (2,), 6, 3, 2, 5, 4, 3), None),
             (_qkv(82, (), 4, 1, 3, 4, 2, 2), _random_mask(83, (4, 3, 4)))]
    generator = torch.Generator().manual_seed(84)
    for (q, k, v), mask in cases:
        cotangent = torch.randn(*q.shape[:-1], v.shape[-1], generator=generator, dtype=torch.float64)
        result = sub.grouped_query_attention.call(q.clone().requires_grad_(True), k.clone().requires_grad_(True),
                                                  v.clone().requires_grad_(True), mask, grads=("q", "k", "v"),
                                                  grad_output=cotangent)
        q_grad, k_grad, v_grad = _summed_grads(q, k, v, mask, cotangent)
        source = "multi-head attention on copies of each key/value head, the copies' gradients summed"
        for name, expected in (("k", k_grad), ("v", v_grad), ("q", q_grad)):
            expect_grad_close(result, name, expected, rtol=1e-6, atol=1e-9, source=source,
                              hint=f"({name}: every query head that reads a key/value head adds its own gradient to "
                                   "it; sharing a head means summing, not averaging, and the copies must stay on "
                                   "the graph)")


@check("gradients.fully_masked", "No gradient (and no NaN) flows back through a query with no allowed key",
       clauses=["mask.fully_masked"])
def gradients_fully_masked(sub, ref):
    q, k, v = _qkv(90, (), 2, 1, 1, 4, 3, 1)
    mask = torch.tensor([[[False] * 4], [[True, False, True, False]]])  # head 0 sees nothing, head 1 two keys
    cotangent = torch.tensor([[[1.0]], [[0.0]]], dtype=torch.float64)  # only head 0's output counts
    result = sub.grouped_query_attention.call(q.clone().requires_grad_(True), k.clone().requires_grad_(True),
                                              v.clone().requires_grad_(True), mask, grads=("q", "k", "v"),
                                              grad_output=cotangent)
    got = result.unwrap()
    expect(float(got[0].detach().abs().max()) == 0.0,
           f"{result.call}: head 0 may attend to no key and must return zeros")
    for name in ("q", "k", "v"):
        grad = result.grads.get(name)
        if grad is None:
            continue  # nothing reached the input at all: also zero
        expect(bool(torch.isfinite(grad).all()),
               f"after backward() on {result.call}, {name}.grad contains NaN: the masked row's softmax is 0 / 0, and "
               "selecting zeros afterwards (torch.where, masked_fill on the output) still sends that NaN backwards; "
               "replace the row's logits before the softmax")
        expect_close(grad, torch.zeros_like(grad), what=f"{name}.grad", call=result,
                     hint="(only the fully masked head's output is differentiated, and it passes zero gradient)")


# --------------------------------------------------------------------------------------------------- pooling

HAND_W = torch.arange(1.0, 9.0)[:, None] * torch.tensor([1.0, 10.0])  # 4 heads of 2 rows: [[1, 10], [2, 20]], ...


@check("pooling.hand_example", "Hand example: 4 heads of size 2 pooled into 2 groups",
       clauses=["pooling.mean"])
def pooling_hand_example(sub, ref):
    # Head 0 is rows [1, 10], [2, 20]; head 1 rows [3, 30], [4, 40]; group 0 is their mean [2, 20], [3, 30].
    # Group 1 is the mean of heads 2 and 3: [6, 60], [7, 70].
    result = sub.mean_pool_kv_heads.call(HAND_W, 4, 2)
    got = result.unwrap()
    expect_tensor(got, shape=(4, 2), dtype=torch.float32, call=result)
    expect_close(got, torch.tensor([[2.0, 20.0], [3.0, 30.0], [6.0, 60.0], [7.0, 70.0]]), call=result,
                 hint="(rows 0-1 are head 0, rows 2-3 head 1, ...; group 0 = (head 0 + head 1) / 2, group 1 = "
                      "(head 2 + head 3) / 2, row by row)")


@check("pooling.groups", "Random projections pooled for several H and G, G = H and G = 1 included",
       clauses=["pooling.mean"])
def pooling_groups(sub, ref):
    cases = [(8, 2, 3, 5), (8, 4, 2, 3), (6, 3, 4, 2), (6, 2, 1, 4), (4, 4, 2, 3), (4, 1, 3, 2)]
    calls = []
    for seed, (heads, groups, head_dim, d_model) in enumerate(cases):
        generator = torch.Generator().manual_seed(100 + seed)
        for dtype in (torch.float64, torch.float32):
            calls.append(((_randn(generator, heads * head_dim, d_model, dtype=dtype), heads, groups), {}))
    for result, (args, _) in zip(sub.mean_pool_kv_heads.map(calls), calls, strict=True):
        w, heads, groups = args
        expected = ref.mean_pool_kv_heads(w.double(), heads, groups).to(w.dtype)
        got = result.unwrap()
        expect_tensor(got, shape=tuple(expected.shape), dtype=w.dtype, call=result)
        rtol, atol = (1e-5, 1e-6) if w.dtype == torch.float32 else (1e-12, 1e-12)  # a mean of <= 4 values
        expect_close(got, expected, call=result, rtol=rtol, atol=atol,
                     hint=f"(H = {heads}, G = {groups}: view the rows as [G, H/G, head_dim, d_model] and average "
                          "over the H/G axis)")


@check("pooling.lossless_when_heads_agree", "A checkpoint whose heads already agree within each group: pooled "
       "projections and grouped attention reproduce its multi-head attention exactly",
       clauses=["pooling.mean", "sharing.grouped"])
def lossless_when_heads_agree(sub, ref):
    # Heads 0-1 share one key projection and one value projection, heads 2-3 another, heads 4-5 a third. Pooling
    # keeps them and the grouped attention must then give back the multi-head output. Pooling and sharing must
    # use the same grouping for that: both contiguous here.
    heads, groups, head_dim, d_model, length = 6, 3, 2, 5, 4
    generator = torch.Generator().manual_seed(110)
    x = _randn(generator, length, d_model)
    w_q = _randn(generator, heads * head_dim, d_model)
    w_k = _randn(generator, groups, 1, head_dim, d_model).expand(groups, 2, head_dim, d_model).reshape(-1, d_model)
    w_v = _randn(generator, groups, 1, head_dim, d_model).expand(groups, 2, head_dim, d_model).reshape(-1, d_model)
    pooled = sub.mean_pool_kv_heads.map([((w_k, heads, groups), {}), ((w_v, heads, groups), {})])
    p_k, p_v = (r.unwrap() for r in pooled)
    for result in pooled:
        expect_tensor(result.unwrap(), shape=(groups * head_dim, d_model), dtype=torch.float64, call=result)

    def split(t, n):  # (L, n * Dh) -> (n, L, Dh)
        return t.reshape(length, n, head_dim).transpose(0, 1)

    q = split(x @ w_q.T, heads)
    full = sub.grouped_query_attention.call(q, split(x @ w_k.T, heads), split(x @ w_v.T, heads))
    grouped = sub.grouped_query_attention.call(q, split(x @ p_k.T, groups), split(x @ p_v.T, groups))
    expect_close(grouped.unwrap(), full.unwrap(), call=grouped, rtol=1e-9, atol=1e-10,
                 hint="(the heads of each contiguous group were identical, so mean-pooling loses nothing; a "
                      "difference means the pooling and the sharing group different heads, or one of them is not "
                      "the contiguous grouping)")


@check("pooling.refuses", "A num_groups that does not divide num_heads, or rows that are not whole heads, raise "
       "ValueError", clauses=["pooling.mean"])
def pooling_refuses(sub, ref):
    w = torch.ones(12, 3, dtype=torch.float64)
    expect_rejected("ValueError", sub.mean_pool_kv_heads, [
        ((w, 6, 4), {}, "num_groups = 4 does not divide num_heads = 6"),
        ((w, 4, 3), {}, "num_groups = 3 does not divide num_heads = 4"),
        ((w, 5, 5), {}, "12 rows are not 5 heads of a whole head_dim"),
        ((w, 6, 0), {}, "num_groups = 0 leaves no key/value head"),
    ])


# ------------------------------------------------------------------------------------------------ experiment

EXP_HEADS, EXP_HEAD_DIM, EXP_MODEL, EXP_LENGTH = 8, 8, 64, 24
EXP_GROUPS = [1, 2, 4, 8]
EXP_SHARED = {"": 0.6, "_redundant": 0.9}  # series suffix -> share of variance common to all heads


def _checkpoint(seed, shared):
    """A synthetic multi-head checkpoint whose key and value heads are partly redundant, as trained heads are: each
    head's projection is a share `shared` of one common matrix plus its own part (the variances add up to 1)."""
    generator = torch.Generator().manual_seed(seed)
    scale = 2 / math.sqrt(EXP_MODEL)
    x = _randn(generator, EXP_LENGTH, EXP_MODEL)
    w_q = _randn(generator, EXP_HEADS * EXP_HEAD_DIM, EXP_MODEL) * scale

    def partly_shared():
        common = _randn(generator, 1, EXP_HEAD_DIM, EXP_MODEL)
        own = _randn(generator, EXP_HEADS, EXP_HEAD_DIM, EXP_MODEL)
        heads = math.sqrt(shared) * common + math.sqrt(1 - shared) * own
        return (heads * scale).reshape(EXP_HEADS * EXP_HEAD_DIM, EXP_MODEL)

    return x, w_q, partly_shared(), partly_shared()


def _split(t, n):
    return t.reshape(EXP_LENGTH, n, EXP_HEAD_DIM).transpose(0, 1)


@check("experiment.kv_cache_vs_error", "Experiment: KV-cache size against the output error of a mean-pooled "
       "checkpoint, G = 1 .. H", group="experiment", required=False)
def kv_cache_experiment(sub, ref, ctx):
    # For each checkpoint: the multi-head output (G = H, the original projections) and, for each G, the output with
    # mean-pooled key/value projections and with the first head of each group kept. Causal, as in a decoder.
    causal = torch.ones(EXP_LENGTH, EXP_LENGTH, dtype=torch.bool).tril()
    checkpoints = [_checkpoint(120 + i, shared) for i, shared in enumerate(EXP_SHARED.values())]
    pooled = sub.mean_pool_kv_heads.map([((w, EXP_HEADS, g), {}) for _, _, w_k, w_v in checkpoints
                                         for g in EXP_GROUPS for w in (w_k, w_v)])
    pooled = iter([r.unwrap() for r in pooled])
    calls = []
    for x, w_q, w_k, w_v in checkpoints:
        q = _split(x @ w_q.T, EXP_HEADS)
        calls.append(((q, _split(x @ w_k.T, EXP_HEADS), _split(x @ w_v.T, EXP_HEADS), causal), {}))
        for g in EXP_GROUPS:
            p_k, p_v = next(pooled), next(pooled)
            for p in (p_k, p_v):
                expect(isinstance(p, torch.Tensor) and p.shape == (g * EXP_HEAD_DIM, EXP_MODEL),
                       f"mean_pool_kv_heads returned a {type(p).__name__} of the wrong shape for G = {g}")
            calls.append(((q, _split(x @ p_k.T, g), _split(x @ p_v.T, g), causal), {}))
            first = torch.arange(g) * (EXP_HEADS // g)  # the first head of each group: the paper's other conversion
            rows = (first[:, None] * EXP_HEAD_DIM + torch.arange(EXP_HEAD_DIM)).reshape(-1)
            calls.append(((q, _split(x @ w_k[rows].T, g), _split(x @ w_v[rows].T, g), causal), {}))
    outputs = [r.unwrap() for r in sub.grouped_query_attention.map(calls)]
    for output in outputs:
        expect(isinstance(output, torch.Tensor) and output.shape == (EXP_HEADS, EXP_LENGTH, EXP_HEAD_DIM),
               f"grouped_query_attention returned a {type(output).__name__} of the wrong shape: expected "
               f"[{EXP_HEADS}, {EXP_LENGTH}, {EXP_HEAD_DIM}], one output per query head")
    series = {}
    per_checkpoint = 1 + 2 * len(EXP_GROUPS)
    for i, suffix in enumerate(EXP_SHARED):
        block = outputs[i * per_checkpoint:(i + 1) * per_checkpoint]
        full = block[0]
        series[f"error_mean_pool{suffix}"] = [float((o - full).norm() / full.norm()) for o in block[1::2]]
        series[f"error_first_head{suffix}"] = [float((o - full).norm() / full.norm()) for o in block[2::2]]
    series["kv_cache_share"] = [g / EXP_HEADS for g in EXP_GROUPS]
    ctx.record_experiment(x_label="key/value heads G", steps=EXP_GROUPS, series=series)
