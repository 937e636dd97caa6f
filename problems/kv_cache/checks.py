"""Check battery for the key/value cache problem (Pope et al., 2022).

Groups `append`, `attention`, `decode`, `gradients` and `contract` are required; `experiment` is advisory (it
records the chart of the notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs
left unchanged, new storage, requires_grad, autograd against the reference and finite differences, and the
refusals of declared rules; the checks here hold what a declaration cannot say: the order and axis of the
cache's growth, the bottom-right causal mask of queries that are a suffix of the cache, equality with full
causal attention at every step of a decode loop that feeds your own caches back in, the prefill edges,
stability at logits of 1e4, gradients that never reach a key from a query's future, and sizes of 1 that must
not broadcast. Every random input comes from a seeded generator, so two runs give identical verdicts.
"""

import math

import torch

from grader.checks import (
    check,
    expect,
    expect_close,
    expect_equal,
    expect_grad_close,
    expect_no_alias,
    expect_rejected,
    expect_tensor,
    expect_unchanged,
    fail,
    reference_grads,
)

# float32 results are compared with the exact answer (float64, rounded). Logits here stay below ~6 in magnitude,
# so each weight carries a relative rounding error of a few eps32 * 6 and each output a few 1e-6 absolute; 2e-5
# admits any order of operations, while every mutant is off by more than 1e-2.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 2e-5
FLOAT64_RTOL, FLOAT64_ATOL = 1e-9, 1e-10


# ------------------------------------------------------------------------------------------------ inputs


def _sequence(seed, batch, heads, length, d, dv, dtype=torch.float64):
    """q, k, v [B, H, T, D / Dv] of a whole sequence, standard normal, from a generator of their own."""
    generator = torch.Generator().manual_seed(seed)
    shape = (batch, heads, length)
    q = torch.randn(*shape, d, generator=generator, dtype=torch.float64)
    k = torch.randn(*shape, d, generator=generator, dtype=torch.float64)
    v = torch.randn(*shape, dv, generator=generator, dtype=torch.float64)
    return q.to(dtype), k.to(dtype), v.to(dtype)


def _full_causal(q, k, v):
    """Full causal self-attention over a whole sequence in float64 (position i reads 0..i), the quantity a cache
    must reproduce. Written out (no torch.softmax: on tiny tensors it costs milliseconds of thread start-up)."""
    q, k, v = (t.detach().double() for t in (q, k, v))
    length = q.shape[2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    future = torch.ones(length, length, dtype=torch.bool).triu(diagonal=1)
    scores = scores.masked_fill(future, float("-inf"))
    if length == 0:
        return scores @ v
    exps = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    return exps / exps.sum(dim=-1, keepdim=True) @ v


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == torch.float32 else (FLOAT64_RTOL, FLOAT64_ATOL)


def _expect_rows(got, expected, result, dtype, *, what="the result", hint=""):
    """got equals the exact rows `expected` (float64), in the inputs' dtype, finite."""
    expect_tensor(got, shape=tuple(expected.shape), dtype=dtype, what=what, call=result)
    if not bool(torch.isfinite(got).all()):
        fail(f"{what} of {result.call} has non-finite values (nan or inf) where every value is finite; "
             f"{hint or 'subtract each row maximum before exponentiating, and let every query see its own key'}")
    rtol, atol = _tolerances(dtype)
    expect_close(got, expected.to(dtype), what=what, call=result, rtol=rtol, atol=atol, hint=hint)


def _value(result, length):
    """The learner's tuple (out, cache_k, cache_v), or a failure naming what came back instead."""
    value = result.unwrap()
    if not isinstance(value, tuple) or len(value) != length:
        fail(f"{result.call} returned {type(value).__name__}, not a tuple of {length} tensors")
    return value


# ------------------------------------------------------------------------------------------------ append


def _hand_cache(dtype=torch.float64):
    """Keys [1, 2, 2, 2] (B = 1, H = 2, T = 2, D = 2) numbered 1..8 and values [1, 2, 2, 3] numbered 11..22,
    and one new position per head: keys 101.., values 111..; every entry says where it belongs."""
    cache_k = torch.arange(1.0, 9.0, dtype=dtype).reshape(1, 2, 2, 2)
    cache_v = torch.arange(11.0, 23.0, dtype=dtype).reshape(1, 2, 2, 3)
    k_new = torch.arange(101.0, 105.0, dtype=dtype).reshape(1, 2, 1, 2)
    v_new = torch.arange(111.0, 117.0, dtype=dtype).reshape(1, 2, 1, 3)
    return cache_k, cache_v, k_new, v_new


@check("append.hand_example", "Hand example: two cached positions per head, one new one after them",
       clauses=["append.layout"])
def append_hand_example(sub, ref):
    cache_k, cache_v, k_new, v_new = _hand_cache()
    result = sub.append_kv.call(cache_k, cache_v, k_new, v_new)
    grown_k, grown_v = _value(result, 2)
    expected_k = torch.tensor([[[[1.0, 2.0], [3.0, 4.0], [101.0, 102.0]],
                                [[5.0, 6.0], [7.0, 8.0], [103.0, 104.0]]]], dtype=torch.float64)
    expected_v = torch.tensor([[[[11.0, 12.0, 13.0], [14.0, 15.0, 16.0], [111.0, 112.0, 113.0]],
                                [[17.0, 18.0, 19.0], [20.0, 21.0, 22.0], [114.0, 115.0, 116.0]]]],
                              dtype=torch.float64)
    hint = ("(the cache is [B, H, T, D]: each head keeps its own positions 0, 1 and the new one becomes position 2 "
            "of the same head, after the old ones, along dim 2)")
    expect_equal(grown_k, expected_k, what="the grown cache_k", call=result, hint=hint)
    expect_equal(grown_v, expected_v, what="the grown cache_v", call=result, hint=hint)
    expect_unchanged(result, hint="(append_kv builds new tensors: the caller's cache and new tokens stay as they were)")


@check("append.growth", "An empty cache grows by a prefill, single tokens, a chunk and nothing, in new tensors",
       clauses=["append.layout", "append.copies"])
def append_growth(sub, ref):
    # Every step appends the next positions of one sequence to the exact prefix before them: the result must be
    # the longer prefix, T + N positions, whatever T and N are (0 included), in both dtypes.
    cases = []
    for dtype in (torch.float64, torch.float32):
        _, k, v = _sequence(11, 2, 3, 8, 4, 5, dtype)
        for start, count in ((0, 3), (3, 1), (4, 1), (5, 3), (8, 0), (0, 0)):
            end = start + count
            cases.append((k[:, :, :start], v[:, :, :start], k[:, :, start:end], v[:, :, start:end],
                          k[:, :, :end], v[:, :, :end]))
    results = sub.append_kv.map([(case[:4], {}) for case in cases])
    for result, (cache_k, _, k_new, _, want_k, want_v) in zip(results, cases, strict=True):
        grown_k, grown_v = _value(result, 2)
        hint = (f"(a cache of T = {cache_k.shape[2]} positions plus N = {k_new.shape[2]} new ones holds T + N = "
                f"{want_k.shape[2]} positions, the old ones first, along the time axis dim 2)")
        expect_equal(grown_k, want_k, what="the grown cache_k", call=result, hint=hint)
        expect_equal(grown_v, want_v, what="the grown cache_v", call=result, hint=hint)
        expect_no_alias(result, hint="(append_kv returns new tensors even when nothing or everything is new: the "
                                     "caller may keep using the old cache, so never hand it back)")


# --------------------------------------------------------------------------------------------- attention

# The statement's hand example: D = 4 (sqrt(D) = 2), Dv = 2, three cached positions, every query q = [1, 0, 0, 0].
# Logits q . k / 2 are [0, 0, ln 2]: keys 0 and 1 weigh 1 each against key 2's 2.
HAND_Q = torch.tensor([[1.0, 0.0, 0.0, 0.0]] * 3)
HAND_K = torch.tensor([[0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0], [2 * math.log(2), 0.0, 0.0, 0.0]])
HAND_V = torch.tensor([[3.0, 1.0], [0.0, 1.0], [6.0, 1.0]])
HAND_CASES = [  # (queries, expected rows, why)
    (1, [[3.75, 1.0]], "(one query at position 2 sees all three keys: weights [1/4, 1/4, 1/2], so 3/4 + 3 = 3.75; "
                       "building the mask as if it were position 0 gives v_0 = [3, 1])"),
    (2, [[1.5, 1.0], [3.75, 1.0]], "(two queries at positions 1 and 2: the first sees keys 0 and 1, weights "
                                   "[1/2, 1/2], so 1.5; the second sees all three, 3.75)"),
    (3, [[3.0, 1.0], [1.5, 1.0], [3.75, 1.0]], "(a prefill: query 0 sees only key 0 and returns v_0 = [3, 1], "
                                               "query 1 averages keys 0 and 1, query 2 gives 3.75)"),
]


@check("attention.hand_example", "Hand example: one, two and three queries at the end of a three-position cache",
       clauses=["attention.suffix_mask", "attention.formula"])
def attention_hand_example(sub, ref):
    q, k, v = (t[None, None] for t in (HAND_Q, HAND_K, HAND_V))  # [1, 1, 3, *]
    results = sub.cached_attention.map([((q[:, :, 3 - count:], k, v), {}) for count, _, _ in HAND_CASES])
    for result, (_, rows, why) in zip(results, HAND_CASES, strict=True):
        expected = torch.tensor(rows, dtype=torch.float64)[None, None]
        _expect_rows(result.unwrap(), expected, result, torch.float32, hint=why)
        expect_unchanged(result, hint="(scale the scores, not the caller's queries: q_new must be left as it was)")


@check("attention.suffix_mask", "Queries that end a longer cache attend causally from their absolute positions",
       clauses=["attention.suffix_mask", "attention.formula"])
def attention_suffix_mask(sub, ref):
    # The last L rows of full causal attention over the whole cache, for a single query, chunks and a prefill.
    q, k, v = _sequence(21, 2, 3, 9, 4, 5)
    counts = (1, 2, 4, 9)
    full = _full_causal(q, k, v)
    results = sub.cached_attention.map([((q[:, :, 9 - n:], k, v), {}) for n in counts])
    for result, n in zip(results, counts, strict=True):
        _expect_rows(result.unwrap(), full[:, :, 9 - n:], result, torch.float64,
                     hint=f"(the {n} queries are positions {9 - n}..8 of the 9 cached ones: query j sees keys "
                          f"0..{9 - n} + j, never a key after its own position and never fewer)")


@check("attention.scale", "The logits are divided by sqrt(D), D the key size, when D and Dv differ",
       clauses=["attention.formula"])
def attention_scale(sub, ref):
    cases = [_sequence(31, 1, 2, 5, 16, 2), _sequence(32, 2, 1, 6, 2, 9)]
    results = sub.cached_attention.map([((q[:, :, -2:], k, v), {}) for q, k, v in cases])
    for result, (q, k, v) in zip(results, cases, strict=True):
        _expect_rows(result.unwrap(), _full_causal(q, k, v)[:, :, -2:], result, torch.float64,
                     hint=f"(divide q . k by sqrt(D) = sqrt({q.shape[-1]}), the size of queries and keys, not by the "
                          f"value size {v.shape[-1]} or the number of positions)")


def _large_logit_cache(dtype):
    """Keys with logits of exactly +-1e4: key . key = 2e4 and sqrt(D) = 2 (all exact in float32)."""
    key = torch.tensor([100.0, 100.0, 0.0, 0.0], dtype=dtype)
    k = torch.stack([key, key, -key])[None, None]  # [1, 1, 3, 4]: two tied keys and their opposite
    v = torch.tensor([[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]], dtype=dtype)[None, None]
    return key, k, v


@check("attention.large_logits", "Stable for logits of +1e4 and -1e4 in float32 and float64",
       clauses=["attention.stable"])
def attention_large_logits(sub, ref):
    # Two queries at positions 1 and 2. The first, -key, sees keys 0 and 1 with logits -1e4 each: e^-1e4
    # underflows and a naive softmax returns 0 / 0, but the answer is their mean [2, 3]. The second, key, sees
    # logits [1e4, 1e4, -1e4]: e^1e4 overflows, the answer is again [2, 3]. A single query -key at position 2
    # puts everything on key 2: [100, 100].
    calls, expected = [], []
    for dtype in (torch.float32, torch.float64):
        key, k, v = _large_logit_cache(dtype)
        calls.append(((torch.stack([-key, key])[None, None], k, v), {}))
        expected.append((dtype, [[2.0, 3.0], [2.0, 3.0]]))
        calls.append((((-key)[None, None, None], k, v), {}))
        expected.append((dtype, [[100.0, 100.0]]))
    for result, (dtype, rows) in zip(sub.cached_attention.map(calls), expected, strict=True):
        _expect_rows(result.unwrap(), torch.tensor(rows, dtype=torch.float64)[None, None], result, dtype,
                     hint="(e^1e4 overflows and e^-1e4 underflows: subtract each row's maximum over its allowed keys "
                          "before exponentiating)")


# ------------------------------------------------------------------------------------------------ decode


@check("decode.prefill_edges", "An empty cache: a prefill of one token returns its value; of four, causal attention",
       clauses=["decode.prefill_edges", "attention.suffix_mask"])
def decode_prefill_edges(sub, ref):
    calls, cases = [], []
    for dtype in (torch.float32, torch.float64):
        for length in (1, 4):
            q, k, v = _sequence(41 + length, 2, 2, length, 3, 4, dtype)
            empty_k, empty_v = k[:, :, :0], v[:, :, :0]
            calls.append(((empty_k, empty_v, q, k, v), {}))
            cases.append((dtype, q, k, v))
    for result, (dtype, q, k, v) in zip(sub.decode_step.map(calls), cases, strict=True):
        out, grown_k, grown_v = _value(result, 3)
        length = q.shape[2]
        hint = ("(one token in an empty cache can only attend to itself: its output is its own value)" if length == 1
                else "(with an empty cache the step is a prefill: plain causal self-attention over the new tokens)")
        _expect_rows(out, _full_causal(q, k, v), result, dtype, what="out", hint=hint)
        expect_equal(grown_k, k, what="the returned cache_k", call=result,
                     hint="(an empty cache grown by the prefill holds exactly the prefill's keys)")
        expect_equal(grown_v, v, what="the returned cache_v", call=result,
                     hint="(an empty cache grown by the prefill holds exactly the prefill's values)")
        expect_unchanged(result, hint="(a decode step returns new tensors and leaves every argument as it was)")


DECODE_CHUNKS = (3, 1, 1, 3, 1, 2)  # a prefill of 3, two single tokens, a chunk of 3, one token, a chunk of 2


@check("decode.every_step", "A prefill, then tokens one at a time and in chunks, feeding back your own caches: "
       "equal to full causal attention at every step", clauses=["decode.equals_full", "append.layout"])
def decode_every_step(sub, ref):
    q, k, v = _sequence(51, 2, 2, sum(DECODE_CHUNKS), 3, 4)
    full = _full_causal(q, k, v)
    cache_k, cache_v = k[:, :, :0], v[:, :, :0]
    start = 0
    for step, count in enumerate(DECODE_CHUNKS):
        end = start + count
        result = sub.decode_step.call(cache_k, cache_v, q[:, :, start:end], k[:, :, start:end], v[:, :, start:end])
        out, cache_k, cache_v = _value(result, 3)
        where = (f"(step {step}: {count} new token(s) at positions {start}..{end - 1} after a cache of {start}; "
                 f"each must equal full causal attention over positions 0..its own)")
        _expect_rows(out, full[:, :, start:end], result, torch.float64, what="out", hint=where)
        expect_equal(cache_k, k[:, :, :end], what="the returned cache_k", call=result,
                     hint=f"(after step {step} the cache holds the keys of positions 0..{end - 1}, in order)")
        expect_equal(cache_v, v[:, :, :end], what="the returned cache_v", call=result,
                     hint=f"(after step {step} the cache holds the values of positions 0..{end - 1}, in order)")
        start = end


# --------------------------------------------------------------------------------------------- gradients


@check("gradients.no_future_keys", "Gradients reach the queries and the cache, never a key after the query",
       clauses=["gradients.through_cache"])
def gradients_no_future_keys(sub, ref):
    # Two queries at positions 3 and 4, the last two of a 5-position cache; only query 0's output carries a
    # cotangent, so key and value 4 (after query 0) must get exactly zero gradient, and the rest the reference's.
    q, k, v = _sequence(61, 1, 2, 5, 3, 2)
    q_new = q[:, :, 3:5]
    cotangent = torch.zeros(1, 2, 2, 2, dtype=torch.float64)
    cotangent[:, :, 0] = torch.tensor([[1.0, -0.5], [0.25, 2.0]], dtype=torch.float64)
    k_cut, v_cut = k, v
    args = (q_new.clone().requires_grad_(True), k_cut.clone().requires_grad_(True),
            v_cut.clone().requires_grad_(True))
    result = sub.cached_attention.call(*args, grads=("q_new", "cache_k", "cache_v"), grad_output=cotangent)
    expected = reference_grads(ref.cached_attention, (q_new, k_cut, v_cut), ("q_new", "cache_k", "cache_v"),
                               grad_output=cotangent)
    hint = ("(query 0 sits at position 3 and reads keys 0..3 only, so key and value 4 get no gradient from it; "
            "the cache is part of the graph: do not detach it)")
    for name in ("q_new", "cache_k", "cache_v"):
        expect_grad_close(result, name, expected[name], rtol=1e-7, atol=1e-9, hint=hint)


@check("gradients.decode_step", "A decode step sends gradients into the cached keys and values and the new ones",
       clauses=["gradients.through_cache"])
def gradients_decode_step(sub, ref):
    q, k, v = _sequence(71, 1, 2, 5, 3, 2)
    names = ("cache_k", "cache_v", "q_new", "k_new", "v_new")
    plain = (k[:, :, :3], v[:, :, :3], q[:, :, 3:], k[:, :, 3:], v[:, :, 3:])
    generator = torch.Generator().manual_seed(72)
    cotangent = tuple(torch.randn(*shape, generator=generator, dtype=torch.float64)
                      for shape in ((1, 2, 2, 2), (1, 2, 5, 3), (1, 2, 5, 2)))
    result = sub.decode_step.call(*(t.clone().requires_grad_(True) for t in plain), grads=names,
                                  grad_output=cotangent)
    expected = reference_grads(ref.decode_step, plain, names, grad_output=cotangent)
    for name in names:
        expect_grad_close(result, name, expected[name], rtol=1e-7, atol=1e-9,
                          hint="(the output and the grown cache both depend on the old cache and the new tokens: "
                               "concatenate without detaching, so training through a cache works too)")


@check("gradients.empty_part", "A grown cache requires grad exactly when its old or its new part does, even an empty "
       "one, and when both are empty", clauses=["gradients.through_cache"])
def gradients_empty_part(sub, ref):
    q, k, v = _sequence(73, 1, 2, 3, 3, 2)
    empty_k, empty_v = k[:, :, :0], v[:, :, :0]

    def tracked(t):
        return t.clone().requires_grad_(True)

    # (arguments, whether the grown cache must require grad): torch.cat of the two parts requires grad exactly
    # when one of them does, whatever their sizes, so an empty grown cache follows its empty parts too.
    appends = [((tracked(empty_k), tracked(empty_v), k, v), True), ((k, v, tracked(empty_k), tracked(empty_v)), True),
               ((tracked(empty_k), tracked(empty_v), empty_k, empty_v), True),
               ((empty_k, empty_v, tracked(empty_k), tracked(empty_v)), True),
               ((empty_k, empty_v, empty_k, empty_v), False)]
    decodes = [((tracked(empty_k), tracked(empty_v), q[:, :, :2], k[:, :, :2], v[:, :, :2]), True),
               ((k, v, q[:, :, :0], tracked(empty_k), tracked(empty_v)), True),
               ((tracked(empty_k), tracked(empty_v), q[:, :, :0], empty_k, empty_v), True)]
    grown = [(result, result.unwrap(), wanted)
             for result, (_, wanted) in zip(sub.append_kv.map([(args, {}) for args, _ in appends]), appends,
                                            strict=True)]
    grown += [(result, result.unwrap()[1:], wanted)
              for result, (_, wanted) in zip(sub.decode_step.map([(args, {}) for args, _ in decodes]), decodes,
                                             strict=True)]
    for result, parts, wanted in grown:
        for name, part in zip(("cache_k'", "cache_v'"), parts, strict=True):
            expect_tensor(part, what=name, call=result)
            if wanted:
                expect(part.requires_grad, f"{name} of {result.call} does not require grad, though one of its parts "
                       "does (an empty one, or both parts empty): build the grown cache with torch.cat of both "
                       "parts, as a cache that training runs through must; a shortcut that returns a copy of one "
                       "part, or a fresh empty tensor, drops the other from the graph")
            else:
                expect(not part.requires_grad, f"{name} of {result.call} requires grad, though neither of its "
                       "parts does: the grown cache is torch.cat of the two parts and follows them")


# ---------------------------------------------------------------------------------------------- contract


@check("contract.mismatch", "Sizes of 1 do not broadcast, and queries may not outnumber the cached positions",
       clauses=["contract.mismatch"])
def contract_mismatch(sub, ref):
    q, k, v = _sequence(81, 2, 3, 4, 5, 6)
    expect_rejected("ValueError", sub.cached_attention, [
        ((q[:1], k, v), {}, "q_new has batch 1 and the cache batch 2: each sequence needs its own cache"),
        ((q[:, :1], k, v), {}, "q_new has 1 head and the cache 3: each head attends over its own cache"),
        ((q, k[:, :, :3], v[:, :, :3]), {}, "4 queries cannot be the last positions of a 3-position cache"),
        ((q, k, v[:, :, :3]), {}, "cache_k holds 4 positions and cache_v 3"),
        ((q[..., :4], k, v), {}, "q_new has 4 features and the keys 5"),
    ])
    expect_rejected("ValueError", sub.append_kv, [
        ((k, v, k[:1, :, :2], v[:1, :, :2]), {}, "the new tokens have batch 1 and the cache batch 2"),
        ((k, v, k[:, :1, :2], v[:, :1, :2]), {}, "the new tokens have 1 head and the cache 3"),
        ((k, v, k[:, :, :2], v[:, :, :1]), {}, "k_new holds 2 positions and v_new 1"),
        ((k, v, k[..., :1, :2], v[:, :, :2]), {}, "k_new has 2 features per key and the cache 5"),
        ((k, v, k[:, :, :2], v[..., :2, :2]), {}, "v_new has 2 features per value and the cache 6"),
        ((k[0], v[0], k[0, :, :2], v[0, :, :2]), {}, "3-D tensors are not in the [B, H, T, D] layout"),
    ])
    expect_rejected("ValueError", sub.decode_step, [
        ((k, v, q[:, :, :2], k[:, :, :1], v[:, :, :1]), {}, "2 queries but 1 new key and value"),
        ((k[:1], v[:1], q, k, v), {}, "a cache of batch 1 for new tokens of batch 2"),
    ])


# -------------------------------------------------------------------------------------------- experiment

EXPERIMENT_HEADS, EXPERIMENT_D = 4, 16
EXPERIMENT_CHUNKS = (1, 1, 2, 4, 8, 16, 32)  # the cache holds 1, 2, 4, ..., 64 positions after each step


@check("experiment.growth", "Experiment: cache memory, work per new token and agreement with full attention "
       "against the sequence length", group="experiment", required=False)
def experiment_growth(sub, ref, ctx):
    # One sequence in float32, B = 1, H = 4, D = Dv = 16: a prefill of one token, then chunks that double the cache.
    # After each step: the bytes of your returned cache, the dot products q . k that one new token costs with the
    # cache (T) and when the whole prefix is recomputed (T (T + 1) / 2 for the causal score matrix), and the
    # largest difference between the step's newest output and exact full causal attention (float64).
    length = sum(EXPERIMENT_CHUNKS)
    q, k, v = _sequence(91, 1, EXPERIMENT_HEADS, length, EXPERIMENT_D, EXPERIMENT_D, torch.float32)
    exact = _full_causal(q, k, v)
    cache_k, cache_v = k[:, :, :0], v[:, :, :0]
    series = {"cache_kib": [], "dot_products_cached": [], "dot_products_recomputed": [], "max_difference": []}
    lengths, start = [], 0
    for count in EXPERIMENT_CHUNKS:
        end = start + count
        result = sub.decode_step.call(cache_k, cache_v, q[:, :, start:end], k[:, :, start:end], v[:, :, start:end])
        out, cache_k, cache_v = _value(result, 3)
        expect(all(isinstance(t, torch.Tensor) for t in (out, cache_k, cache_v)) and out.shape[2] == count,
               f"{result.call} did not return three tensors with {count} output rows")
        lengths.append(end)
        series["cache_kib"].append((cache_k.numel() * cache_k.element_size()
                                    + cache_v.numel() * cache_v.element_size()) / 1024)
        series["dot_products_cached"].append(float(EXPERIMENT_HEADS * end))
        series["dot_products_recomputed"].append(float(EXPERIMENT_HEADS * end * (end + 1) // 2))
        newest = out[:, :, -1].detach().double() - exact[:, :, end - 1]
        series["max_difference"].append(float(newest.abs().max()))
        start = end
    ctx.record_experiment(x_label="cached positions T", steps=lengths, series=series)
