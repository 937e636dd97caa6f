"""Check battery for causal sliding-window attention (Beltagy et al., 2020; Jiang et al., 2023).

Groups `mask`, `padding`, `attention` and `gradients` are required; `experiment` is advisory (it records the
receptive-field chart of the notes). The declared contract in problem.toml covers shapes, dtypes, layouts,
inputs left unchanged, new storage, requires_grad, autograd against the reference and finite differences, and
the refusals; the checks here hold what a declaration cannot say: the band and its convention, the edges of the
window, padding acting on keys, the outputs of hand examples, queries with no allowed key (value and gradient)
and stability at large logits. Every random input comes from a seeded generator.
"""

import math

import torch

from grader.checks import (
    check,
    expect,
    expect_close,
    expect_equal,
    expect_grad_close,
    expect_rejected,
    expect_tensor,
    fail,
    vjp,
)

# float32 results are compared with the exact answer (the reference in float64, rounded). The logits here stay
# below ~10 in magnitude, so each weight carries a relative rounding error of a few eps32 * 10 and each output
# a few 1e-6; 2e-5 admits any order of operations, while every mutant is off by more than 1e-2.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 2e-5


def _band(T, window):
    """The expected mask, written out entry by entry: i - window < j <= i."""
    return torch.tensor([[i - window < j <= i for j in range(T)] for i in range(T)], dtype=torch.bool).reshape(T, T)


def _bools(rows):
    return torch.tensor(rows, dtype=torch.bool)


def _qkv(seed, B, H, T, D, Dv, dtype=torch.float64, scale=1.0):
    generator = torch.Generator().manual_seed(seed)
    draw = [torch.randn(B, H, T, n, generator=generator, dtype=torch.float64) * scale for n in (D, D, Dv)]
    return tuple(t.to(dtype) for t in draw)


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == torch.float32 else (1e-7, 1e-9)


def _exact(ref, q, k, v, window, key_padding=None):
    """The exact result: the reference in float64 on the same inputs, rounded to the inputs' dtype."""
    q64, k64, v64 = (t.detach().double() for t in (q, k, v))
    return ref.windowed_attention(q64, k64, v64, window, key_padding).to(q.dtype)


def _expect_attention(result, ref, q, k, v, window, key_padding=None, *, hint=""):
    got = result.unwrap()
    expected = _exact(ref, q, k, v, window, key_padding)
    expect_tensor(got, shape=tuple(expected.shape), dtype=q.dtype, call=result)
    if not torch.isfinite(got).all():
        fail(f"{result.call} returned NaN or inf where every value is finite; a query with no allowed key must "
             "return zeros (a softmax over a row of -inf is 0 / 0), and a softmax must subtract each row's maximum")
    rtol, atol = _tolerances(q.dtype)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


def _left_padding(B, T, lengths):
    """key_padding [B, T] with the real tokens at the end of each row (lengths[b] of them)."""
    return torch.stack([torch.arange(T) >= T - n for n in lengths]) if B else torch.zeros(0, T, dtype=torch.bool)


def _right_padding(B, T, lengths):
    return torch.stack([torch.arange(T) < n for n in lengths]) if B else torch.zeros(0, T, dtype=torch.bool)


# -------------------------------------------------------------------------------------------------- mask


@check("mask.hand_example", "Hand example: T = 4, W = 2 keeps each query and the one before it",
       clauses=["mask.band", "mask.polarity"])
def mask_hand_example(sub, ref):
    four, five = sub.sliding_window_mask.map([((4, 2), {}), ((5, 3), {})])
    expect_equal(four.unwrap(), _bools([[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]), call=four,
                 hint="(True = may attend; row i keeps keys i - 1 and i: i - W < j <= i, W keys counting the query "
                      "itself, never a later key)")
    expect_equal(five.unwrap(), _band(5, 3), call=five,
                 hint="(row 4 of a window of 3 keeps keys 2, 3 and 4: three keys, itself included)")


@check("mask.edges", "W = 1 is the diagonal, W >= T the causal triangle, T = 0 an empty mask",
       clauses=["mask.edges", "mask.band"])
def mask_edges(sub, ref):
    cases = [((4, 1), torch.eye(4, dtype=torch.bool), "(a window of 1 keeps only the query itself: the diagonal)"),
             ((4, 4), _band(4, 4), "(W = T: every earlier key and the query itself, the plain causal mask)"),
             ((3, 10), _band(3, 10), "(a window longer than the sequence changes nothing: the causal mask)"),
             ((1, 1), _bools([[True]]), "(one token sees itself)"),
             ((0, 3), torch.zeros(0, 0, dtype=torch.bool), "(T = 0: an empty [0, 0] bool mask)")]
    results = sub.sliding_window_mask.map([(args, {}) for args, _, _ in cases])
    for result, (_, expected, why) in zip(results, cases, strict=True):
        expect_equal(result.unwrap(), expected, call=result, hint=why)


@check("mask.every_size", "The band is exact for every T up to 7 and every window up to 8",
       clauses=["mask.band", "mask.edges"])
def mask_every_size(sub, ref):
    cases = [(T, window) for T in range(2, 8) for window in range(1, 9) if window <= T + 1]
    results = sub.sliding_window_mask.map([((T, window), {}) for T, window in cases])
    for result, (T, window) in zip(results, cases, strict=True):
        got = result.unwrap()
        expected = _band(T, window)
        if isinstance(got, torch.Tensor) and got.shape == expected.shape and got.dtype == torch.bool:
            counts, wanted = got.sum(dim=1).tolist(), expected.sum(dim=1).tolist()
            expect(counts == wanted, f"{result.call}: the rows keep {counts} keys, expected {wanted} (query i "
                   f"keeps min(i + 1, W) keys: itself and the W - 1 before it)")
        expect_equal(got, expected, call=result, hint="(i - W < j <= i)")


@check("mask.new_each_call", "Every call returns a new mask: two calls with equal arguments share no memory",
       clauses=["mask.new_tensor", "mask.band"])
def mask_new_each_call(sub, ref):
    # sliding_window_mask takes no tensor, so the generic battery's new-storage test has nothing to compare its
    # result with. Two calls with equal arguments go in one request whose results the worker keeps until it ends
    # (keep=True), and the worker reports whether the second shares memory with the first: a fact of the worker's,
    # read with what it captured before the learner's code loaded, so no submission can rebind it.
    first, second = sub.sliding_window_mask.map([((5, 2), {}), ((5, 2), {})], keep=True)
    for result in (first, second):
        expect_equal(result.unwrap(), _band(5, 2), what="sliding_window_mask(T=5, window=2)", call=result,
                     hint="(i - W < j <= i)")
    expect(not second.shares, "two calls sliding_window_mask(T=5, window=2) returned tensors that share memory: each "
           "call must return a new tensor, because a caller may edit its mask in place (mask &= allowed) and a "
           "memoised mask (functools.lru_cache, a module-level table or a view of one) would carry that edit into "
           "every later call; build the mask anew each time, or return a .clone() of the cached one")


# ----------------------------------------------------------------------------------------------- padding


@check("padding.hand_example", "Hand example: left and right padding remove columns, never rows",
       clauses=["padding.keys", "mask.polarity"])
def padding_hand_example(sub, ref):
    mask = _band(4, 2)
    key_padding = _bools([[0, 1, 1, 1], [1, 1, 1, 0]])  # one pad on the left, one on the right
    result = sub.combine_with_padding.call(mask, key_padding)
    expected = _bools([[[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]],
                       [[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 0]]])
    expect_equal(result.unwrap(), expected, call=result,
                 hint="(key_padding True = real token: element 0 loses key column 0, element 1 loses key column 3; "
                      "entry [b, i, j] is mask[i, j] and key_padding[b, j], rows are never removed)")


@check("padding.keys_not_queries", "Padding removes keys for each batch element, also when Tq != Tk",
       clauses=["padding.keys"])
def padding_keys_not_queries(sub, ref):
    generator = torch.Generator().manual_seed(11)
    cases = []
    for B, Tq, Tk in ((3, 2, 5), (2, 4, 3), (1, 3, 3)):
        mask = torch.rand(Tq, Tk, generator=generator) < 0.7
        key_padding = torch.rand(B, Tk, generator=generator) < 0.6
        cases.append((mask, key_padding))
    results = sub.combine_with_padding.map([((m, p), {}) for m, p in cases])
    for result, (mask, key_padding) in zip(results, cases, strict=True):
        expected = mask.unsqueeze(0) & key_padding.unsqueeze(1)
        expect_equal(result.unwrap(), expected, call=result,
                     hint="(entry [b, i, j] is mask[i, j] and key_padding[b, j]: padding is per key, i.e. per column)")


@check("padding.bool_only", "0/1 integer padding and float masks are refused with TypeError",
       clauses=["padding.bool_only"])
def padding_bool_only(sub, ref):
    mask = _band(3, 2)
    real = _bools([[0, 1, 1], [1, 1, 1]])
    why = "key_padding must be a bool tensor (True = real token); a 0/1 integer attention_mask is another type"
    expect_rejected("TypeError", sub.combine_with_padding, [
        ((mask, real.to(torch.int64)), {}, why),
        ((mask, real.to(torch.float32)), {}, why),
        ((mask.to(torch.int64), real), {}, "mask must be a bool tensor (True = may attend)"),
    ])
    q, k, v = _qkv(12, 2, 1, 3, 2, 2)
    expect_rejected("TypeError", sub.windowed_attention, [
        ((q, k, v, 2), {"key_padding": real.to(torch.int64)}, why),
    ])


# --------------------------------------------------------------------------------------------- attention

HAND_V = torch.tensor([1.0, 2.0, 4.0, 8.0]).reshape(1, 1, 4, 1)
HAND_ZEROS = torch.zeros(1, 1, 4, 2)
LOG3 = math.log(3.0)
SCALE_Q = torch.tensor([[0.5, -1.0, 2.0, 0.0], [0.0, 2 * LOG3, 0.0, 0.0]]).reshape(1, 1, 2, 4)
SCALE_K = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]).reshape(1, 1, 2, 4)
SCALE_V = torch.tensor([[1.0, 0.0], [0.0, 1.0]]).reshape(1, 1, 2, 2)


@check("attention.hand_example", "Hand example: equal logits average the window, [1, 1.5, 3, 6] at W = 2",
       clauses=["attention.formula", "attention.empty_rows"])
def attention_hand_example(sub, ref):
    # Every logit is 0, so each query averages the values its window allows: (1), (1+2)/2, (2+4)/2, (4+8)/2.
    # With one pad on the left, query 0 has no allowed key (0) and query 1 sees only key 1 (2).
    left_pad = _bools([[0, 1, 1, 1]])
    plain, padded = sub.windowed_attention.map([((HAND_ZEROS, HAND_ZEROS, HAND_V, 2), {}),
                                                ((HAND_ZEROS, HAND_ZEROS, HAND_V, 2), {"key_padding": left_pad})])
    for result, values, why in (
            (plain, [1.0, 1.5, 3.0, 6.0], "(equal logits: query i averages the values of keys i - 1 and i, and "
                                         "query 0 has only itself)"),
            (padded, [0.0, 2.0, 3.0, 6.0], "(the pad at position 0 is no key: query 0 has no allowed key and "
                                           "returns 0, query 1 sees only key 1)")):
        got = result.unwrap()
        expect_tensor(got, shape=(1, 1, 4, 1), dtype=torch.float32, call=result)
        expect_close(got, torch.tensor(values).reshape(1, 1, 4, 1), call=result, rtol=FLOAT32_RTOL,
                     atol=FLOAT32_ATOL, hint=why)
    scale = sub.windowed_attention.call(SCALE_Q, SCALE_K, SCALE_V, 2)
    expect_close(scale.unwrap(), torch.tensor([[1.0, 0.0], [0.25, 0.75]]).reshape(1, 1, 2, 2), call=scale,
                 rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL,
                 hint="(query 1's logits are [0, 2 ln 3] / sqrt(4) = [0, ln 3], so its weights are [1/4, 3/4]; "
                      "query 0 sees only key 0)")


@check("attention.random", "Random inputs against the exact result: windows 1 to T + 2, padding left, right, "
       "none, float32 and float64", clauses=["attention.formula"])
def attention_random(sub, ref):
    cases = []
    shapes = [(2, 2, 4, 5, 1), (1, 2, 5, 8, 2), (3, 1, 7, 3, 5), (2, 3, 6, 4, 3)]  # B = H first: padding on the
    # heads axis then gives wrong values rather than a shape error
    for seed, (B, H, T, D, Dv) in enumerate(shapes):
        dtype = torch.float64 if seed % 2 == 0 else torch.float32
        q, k, v = _qkv(20 + seed, B, H, T, D, Dv, dtype, scale=1.5)
        lengths = [max(1, T - 2 * b) for b in range(B)]
        paddings = [None, _left_padding(B, T, lengths), _right_padding(B, T, lengths)]
        for window in (1, 2, 3, T + 2):
            cases.append((q, k, v, window, paddings[(window + seed) % 3]))
    results = sub.windowed_attention.map([((q, k, v, w), {"key_padding": p}) for q, k, v, w, p in cases])
    for result, (q, k, v, window, key_padding) in zip(results, cases, strict=True):
        _expect_attention(result, ref, q, k, v, window, key_padding,
                          hint="(each query: softmax over keys i - W < j <= i that are real tokens, scaled by "
                               "1 / sqrt(D))")


@check("attention.window_edges", "W >= T is plain causal attention; W = 1 returns each query's own value",
       clauses=["attention.window_edges"])
def attention_window_edges(sub, ref):
    q, k, v = _qkv(30, 2, 2, 5, 3, 4)
    full, wider, one = sub.windowed_attention.map([((q, k, v, 5), {}), ((q, k, v, 9), {}), ((q, k, v, 1), {})])
    scores = (q @ k.transpose(-2, -1) / math.sqrt(3)).masked_fill(~torch.ones(5, 5, dtype=torch.bool).tril(),
                                                                  float("-inf"))
    causal = torch.softmax(scores, dim=-1) @ v
    for result in (full, wider):
        expect_close(result.unwrap(), causal, call=result,
                     hint="(a window at least as long as the sequence removes nothing but the future: plain "
                          "causal attention)")
    expect_close(one.unwrap(), v, call=one, hint="(a window of 1 leaves each query only itself, so its output is "
                                                 "its own value row)")


@check("attention.empty_rows", "Queries whose window holds no real key return zeros; the others are unaffected",
       clauses=["attention.empty_rows"])
def attention_empty_rows(sub, ref):
    # Element 0 has 3 pads on the left and W = 2: queries 0, 1, 2 see only pads. Element 1 is all padding.
    # Element 2 has no padding at all. Element 3 has 4 pads on the right: with W = 2 queries 3, 4, 5 see only
    # pads although real tokens lie further back (with W = 4 only query 5 does).
    q, k, v = _qkv(40, 4, 2, 6, 4, 3)
    key_padding = _bools([[0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0]])
    results = sub.windowed_attention.map([((q, k, v, window), {"key_padding": key_padding}) for window in (2, 4)])
    for result, window in zip(results, (2, 4), strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(4, 2, 6, 3), dtype=torch.float64, call=result)
        expect(bool(torch.isfinite(got).all()),
               f"{result.call} returned NaN for queries with no allowed key: their output must be a row of zeros "
               "(a softmax over a row of -inf is 0 / 0; detect such rows and give them zero weights)")
        allowed = _band(6, window).unsqueeze(0) & key_padding.unsqueeze(1)  # [B, T, T]
        empty = ~allowed.any(dim=-1)  # [B, T]
        leaked = got.abs().amax(dim=(1, 3))[empty]
        expect(float(leaked.max()) == 0.0,
               f"{result.call}: queries with no allowed key (pads whose window holds only pads, left or right, and "
               f"the whole all-padding element 1) returned values up to {float(leaked.max()):.4g}, not zeros; a "
               "finite fill such as -1e9 averages values the query may not read (zero the weights of such rows)")
        _expect_attention(result, ref, q, k, v, window, key_padding)


@check("attention.large_logits", "Stable at logits of +-1e4 in float32 and float64; a key outside the window "
       "stays out", clauses=["attention.stable", "attention.formula"])
def attention_large_logits(sub, ref):
    # D = 4, sqrt(D) = 2; key rows +-[100, 100, 0, 0] and query rows +-[100, 100, 0, 0] give logits of +-1e4
    # exactly. Query 1 ties keys 0 and 1 at -1e4 (e^-1e4 underflows: only a max-shifted softmax survives);
    # query 2 puts all its weight on key 1 (1e4 against -1e4); keys 0 and 1 have logit 1e4 for query 3 but lie
    # outside its window of 2, so it averages keys 2 and 3, tied at -1e4.
    for dtype in (torch.float32, torch.float64):
        row = torch.tensor([100.0, 100.0, 0.0, 0.0], dtype=dtype)
        k = torch.stack([row, row, -row, -row]).reshape(1, 1, 4, 4)
        q = torch.stack([row, -row, row, row]).reshape(1, 1, 4, 4)
        v = torch.tensor([[1.0, 2.0], [3.0, 4.0], [10.0, 20.0], [30.0, 40.0]], dtype=dtype).reshape(1, 1, 4, 2)
        result = sub.windowed_attention.call(q, k, v, 2)
        got = result.unwrap()
        expected = torch.tensor([[1.0, 2.0], [2.0, 3.0], [3.0, 4.0], [20.0, 30.0]], dtype=dtype)
        expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got).all()),
               f"{result.call} returned {got.tolist() if isinstance(got, torch.Tensor) else got} for logits of "
               "+-1e4: subtract each row's maximum over the allowed keys before exponentiating")
        expect_close(got, expected.reshape(1, 1, 4, 2), call=result, rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL,
                     hint="(query 1 ties keys 0 and 1 at logit -1e4: [2, 3]; query 2 has key 1 at 1e4 and key 2 "
                          "at -1e4: [3, 4]; query 3 may not see keys 0 and 1 whatever their logit, and its two keys "
                          "tie at -1e4: [20, 30])")


# --------------------------------------------------------------------------------------------- gradients


@check("gradients.empty_rows", "No gradient (and no NaN) flows back through a query with no allowed key",
       clauses=["gradients.empty_rows", "attention.empty_rows"])
def gradients_empty_rows(sub, ref):
    q, k, v = _qkv(50, 2, 1, 4, 3, 2)
    key_padding = _bools([[0, 0, 1, 1], [0, 0, 0, 0]])  # queries 0, 1 of element 0 and all of element 1: empty
    generator = torch.Generator().manual_seed(51)
    cotangent = torch.randn(2, 1, 4, 2, generator=generator, dtype=torch.float64)
    leaves = tuple(t.clone().requires_grad_(True) for t in (q, k, v))
    result = sub.windowed_attention.call(*leaves, 2, key_padding=key_padding, grads=("q", "k", "v"),
                                         grad_output=cotangent)
    _expect_attention(result, ref, q, k, v, 2, key_padding)
    expected = ref.windowed_attention  # the exact gradients come from the reference in float64
    for name, index in (("q", 0), ("k", 1), ("v", 2)):
        grad = result.grads.get(name)
        if grad is None:
            fail(f"after backward() on {result.call}, {name}.grad is None, but the queries of element 0 that have "
                 "keys must pass gradient back")
        expect(bool(torch.isfinite(grad).all()),
               f"after backward() on {result.call}, {name}.grad contains NaN: the softmax of a row with no allowed "
               "key is 0 / 0, and zeroing it afterwards (torch.where, masked_fill on the output) still sends that "
               "NaN backwards; replace the row's logits before the softmax")
        exact = _reference_grad(expected, (q, k, v), key_padding, cotangent)[index]
        expect_grad_close(result, name, exact, rtol=1e-7, atol=1e-9,
                          hint="(a query with no allowed key returns a constant 0 and passes zero gradient)")


def _reference_grad(function, qkv, key_padding, cotangent):
    leaves = tuple(t.detach().double().clone().requires_grad_(True) for t in qkv)
    out = function(*leaves, 2, key_padding)
    return vjp([out], leaves, [cotangent])


# -------------------------------------------------------------------------------------------- experiment

LAYERS, LENGTH, WINDOWS = 8, 64, (2, 4, 8)


@check("experiment.receptive_field", "How many positions the last token can reach through L stacked layers of "
       "your mask", group="experiment", required=False)
def experiment_receptive_field(sub, ref, ctx):
    series = {}
    for window in WINDOWS:
        result = sub.sliding_window_mask.call(LENGTH, window)
        mask = result.unwrap()
        expect_tensor(mask, shape=(LENGTH, LENGTH), dtype=torch.bool, call=result)
        step = mask.to(torch.float64)
        reach = torch.eye(LENGTH, dtype=torch.float64)
        counts = []
        for _ in range(LAYERS):
            reach = ((reach @ step) > 0).to(torch.float64)  # positions reachable through one more layer
            counts.append(float(reach[-1].sum()))
        series[f"reach_window_{window}"] = counts
    series["full_causal"] = [float(LENGTH)] * LAYERS
    ctx.record_experiment(steps=list(range(1, LAYERS + 1)), series=series, x_label="layers L")
