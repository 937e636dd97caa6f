"""Check battery for multi-head self-attention.

Groups: `values` (the computation, heads and causal mask), `gradients` and `contract` are required;
`experiment` is advisory (the head map for the notes). Every check names the clauses of problem.toml it tests,
and every random input comes from a seeded generator.

Gradients: the worker calls backward() only on a one-element result, which for this function means B = L = 1
and d_model = 1. That case (output = x w_v w_o, the single softmax weight is 1) still proves that the value
and output paths are differentiable and that q and k stay in the graph; the full backward pass through the
heads needs a cotangent the worker cannot take yet, so the values at every tested input carry the rest.
"""

import math

import torch

from grader.checks import (
    check,
    expect_close,
    expect_grad_close,
    expect_no_alias,
    expect_rejected,
    expect_tensor,
    expect_unchanged,
    fail,
)

FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 2e-5  # outputs O(1) from O(d) products and a softmax of O(3) logits


# ------------------------------------------------------------------------------------------------ inputs


def _case(seed, batch, length, d_model, dtype=torch.float64, *, scale=1.0):
    """x and four weights with the nn.Linear initialisation scale, so logits stay O(1)."""
    g = torch.Generator().manual_seed(seed)
    x = scale * torch.randn(batch, length, d_model, generator=g, dtype=torch.float64)
    weights = [torch.randn(d_model, d_model, generator=g, dtype=torch.float64) / math.sqrt(d_model)
               for _ in range(4)]
    return x.to(dtype), *(w.to(dtype) for w in weights)


def _exact(ref, x, w_q, w_k, w_v, w_o, num_heads, causal):
    return ref.multi_head_attention(*(t.detach().double() for t in (x, w_q, w_k, w_v, w_o)), num_heads,
                                    causal).to(x.dtype)


def _expect_mha(result, ref, args, num_heads, causal=False, *, hint=""):
    got = result.unwrap()
    expected = _exact(ref, *args, num_heads, causal)
    expect_tensor(got, shape=tuple(args[0].shape), dtype=args[0].dtype, call=result)
    rtol, atol = (FLOAT32_RTOL, FLOAT32_ATOL) if args[0].dtype == torch.float32 else (1e-7, 1e-9)
    if not torch.isfinite(got).all():
        fail(f"{result.call} returned non-finite values; subtract each row's maximum before the softmax")
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------- values

IDENTITY = torch.eye(2, dtype=torch.float64)
HAND_X = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]], dtype=torch.float64)
HAND_ARGS = (HAND_X, IDENTITY, IDENTITY, IDENTITY, IDENTITY)


@check("values.hand_example", "Hand example: two tokens, two heads of size 1, identity weights",
       clauses=["formula", "heads"])
def hand_example(sub, ref):
    # Head 0 sees feature 0: logits [[1, 0], [0, 0]], so token 0 weighs [e, 1] / (e + 1) and gets e / (e + 1)
    # = 0.731, token 1 gets 0.5; head 1 is the mirror image: [[0.731, 0.5], [0.5, 0.731]].
    result = sub.multi_head_attention.call(*HAND_ARGS, 2)
    _expect_mha(result, ref, HAND_ARGS, 2, hint="(expected [[0.731, 0.5], [0.5, 0.731]]: each head attends with "
                "its own feature, scaled by 1 / sqrt(d_head) = 1)")


@check("values.hand_example_causal", "Hand example, causal: token 0 sees only itself", clauses=["causal"])
def hand_example_causal(sub, ref):
    result = sub.multi_head_attention.call(*HAND_ARGS, 2, causal=True)
    _expect_mha(result, ref, HAND_ARGS, 2, True, hint="(expected [[1, 0], [0.5, 0.731]]: token 0 may attend "
                "only to itself, token 1 to both)")


@check("values.head_count", "The same weights with 1, 2, 4 and 8 heads (d_model = 8) match the reference",
       clauses=["heads", "scale"])
def head_count(sub, ref):
    args = _case(1, 2, 5, 8)
    counts = [1, 2, 4, 8]
    results = sub.multi_head_attention.map([((*args, h), {}) for h in counts])
    for result, h in zip(results, counts, strict=True):
        _expect_mha(result, ref, args, h, hint=f"(with {h} heads each head has d_head = {8 // h} features and "
                    f"the scale 1 / sqrt({8 // h}))")


@check("values.random_float64", "Random inputs in float64 (several B, L, d_model, heads, causal) match",
       clauses=["formula", "heads", "causal", "shapes"])
def random_float64(sub, ref):
    specs = [(1, 1, 4, 2, False), (3, 6, 12, 3, True), (2, 4, 6, 6, False), (1, 7, 8, 2, True), (2, 3, 3, 1, True)]
    cases = [(_case(10 + i, b, length, d), h, c) for i, (b, length, d, h, c) in enumerate(specs)]
    results = sub.multi_head_attention.map([((*args, h), {"causal": c}) for args, h, c in cases])
    for result, (args, h, c) in zip(results, cases, strict=True):
        _expect_mha(result, ref, args, h, c)


@check("values.random_float32", "Random inputs in float32 match the exact result to float32 precision",
       clauses=["formula"])
def random_float32(sub, ref):
    cases = [(_case(20, 2, 8, 16, torch.float32), 4, True), (_case(21, 3, 5, 12, torch.float32), 3, False)]
    results = sub.multi_head_attention.map([((*args, h), {"causal": c}) for args, h, c in cases])
    for result, (args, h, c) in zip(results, cases, strict=True):
        _expect_mha(result, ref, args, h, c)


@check("values.causal_no_future", "Causal: changing later tokens never changes earlier outputs",
       clauses=["causal"])
def causal_no_future(sub, ref):
    # Two sequences that agree on their first 3 tokens: with causal=True their first 3 outputs must agree too,
    # and the diagonal must count (position 0 attends to itself, so its output is (x_0 W_v^T) W_o^T).
    args = _case(30, 1, 6, 8)
    changed = args[0].clone()
    changed[:, 3:] = torch.randn(1, 3, 8, generator=torch.Generator().manual_seed(31), dtype=torch.float64)
    first, second = sub.multi_head_attention.map([((*args, 2), {"causal": True}),
                                                  (((changed,) + args[1:] + (2,)), {"causal": True})])
    _expect_mha(first, ref, args, 2, True)
    expect_close(second.unwrap()[:, :3], first.unwrap()[:, :3], what="the first 3 outputs", call=second,
                 hint="(with causal=True position i reads only positions j <= i, so later tokens cannot change it)")


@check("values.large_logits", "Stable for logits of 1e4 (inputs of size 100)", clauses=["stable"])
def large_logits(sub, ref):
    # x of size ~100 with identity-scaled weights gives logits ~1e4 / sqrt(d_head): exp overflows without the
    # max shift. A single head over d_model = 2 keeps the numbers exact: logits = x_i . x_j.
    x = torch.tensor([[[100.0, 0.0], [0.0, 100.0], [100.0, 0.0]]], dtype=torch.float64)
    eye = torch.eye(2, dtype=torch.float64) * math.sqrt(2)  # cancels the 1 / sqrt(2) scale on q only
    identity = torch.eye(2, dtype=torch.float64)
    for dtype in (torch.float32, torch.float64):
        args = tuple(t.to(dtype) for t in (x, eye, identity, identity, identity))
        for causal in (False, True):
            result = sub.multi_head_attention.call(*args, 1, causal=causal)
            _expect_mha(result, ref, args, 1, causal)


@check("values.shapes", "B = 0, L = 0 and strided views are accepted", clauses=["shapes"])
def shapes(sub, ref):
    x, w_q, w_k, w_v, w_o = _case(40, 2, 4, 6)
    cases = [((x[:0], w_q, w_k, w_v, w_o), 2, False), ((x[:, :0], w_q, w_k, w_v, w_o), 3, True),
             ((x.transpose(0, 1).contiguous().transpose(0, 1), w_q.T, w_k, w_v.T, w_o), 2, True),
             ((x[:, ::2], w_q, w_k, w_v, w_o), 6, False)]
    results = sub.multi_head_attention.map([((*args, h), {"causal": c}) for args, h, c in cases])
    for result, (args, h, c) in zip(results, cases, strict=True):
        _expect_mha(result, ref, args, h, c, hint="(use reshape rather than view: transposed inputs are not "
                    "contiguous)")


# ---------------------------------------------------------------------------------------------- gradients


@check("gradients.single_token", "B = L = d_model = 1: gradients reach x and all four weights",
       clauses=["gradients"])
def single_token(sub, ref):
    # With one token the only attention weight is 1, so the output is x w_v w_o: d/dx = w_v w_o,
    # d/dw_v = x w_o, d/dw_o = x w_v, and d/dw_q = d/dw_k = 0 (present, since they are in the graph).
    values = {"x": 1.5, "w_q": 0.7, "w_k": -1.2, "w_v": 2.0, "w_o": -0.5}
    tensors = {name: torch.tensor([[value]] if name != "x" else [[[value]]], dtype=torch.float64).requires_grad_()
               for name, value in values.items()}
    result = sub.multi_head_attention.call(tensors["x"], tensors["w_q"], tensors["w_k"], tensors["w_v"],
                                           tensors["w_o"], 1, grads=tuple(values))
    result.unwrap()
    x, wv, wo = values["x"], values["w_v"], values["w_o"]
    expected = {"x": [[[wv * wo]]], "w_q": [[0.0]], "w_k": [[0.0]], "w_v": [[x * wo]], "w_o": [[x * wv]]}
    for name, grad in expected.items():
        if result.grads.get(name) is None:
            fail(f"after backward() on {result.call}, {name}.grad is None: the result must stay in the graph of x "
                 "and of all four weights (no .detach(), .item() or torch.no_grad())")
        expect_grad_close(result, name, torch.tensor(grad, dtype=torch.float64))


# ----------------------------------------------------------------------------------------------- contract


@check("contract.result", "The result is a new [B, L, d_model] tensor of x's dtype, in the graph",
       clauses=["result"])
def result_type(sub, ref):
    for dtype in (torch.float32, torch.float64):
        x, w_q, w_k, w_v, w_o = _case(50, 2, 3, 4, dtype)
        result = sub.multi_head_attention.call(x, w_q.requires_grad_(), w_k, w_v, w_o, 2)
        expect_tensor(result.unwrap(), shape=(2, 3, 4), dtype=dtype, requires_grad=True, call=result)


@check("contract.inputs_unchanged", "No input is modified and the result has its own storage",
       clauses=["unchanged", "result"])
def inputs_unchanged(sub, ref):
    args = _case(51, 1, 3, 4, torch.float32)
    for causal in (False, True):
        result = sub.multi_head_attention.call(*(t * 1 for t in args), 2, causal=causal)
        expect_unchanged(result)
        expect_no_alias(result)


@check("contract.type_errors", "Wrong kinds of x, weights, num_heads and causal raise TypeError",
       clauses=["type_errors"])
def type_errors(sub, ref):
    x, w_q, w_k, w_v, w_o = _case(60, 1, 3, 4)
    calls = [
        ((x.tolist(), w_q, w_k, w_v, w_o, 2), {}, "x is a list"),
        ((x.long(), w_q.long(), w_k.long(), w_v.long(), w_o.long(), 2), {}, "integer inputs"),
        ((x, w_q.float(), w_k, w_v, w_o, 2), {}, "w_q is float32 while x is float64"),
        ((x, w_q, w_k, w_v, 1.0, 2), {}, "w_o is a float"),
        ((x, w_q, w_k, w_v, w_o, 2.0), {}, "num_heads is a float"),
        ((x, w_q, w_k, w_v, w_o, True), {}, "num_heads is a bool"),
        ((x, w_q, w_k, w_v, w_o, 2), {"causal": 1}, "causal is an int, not a bool"),
        ((x, w_q, w_k, w_v, w_o, 2), {"causal": "yes"}, "causal is a string"),
    ]
    expect_rejected("TypeError", sub.multi_head_attention, calls)


@check("contract.value_errors", "Wrong shapes, non-finite values and num_heads that do not divide d_model raise "
       "ValueError", clauses=["value_errors"])
def value_errors(sub, ref):
    x, w_q, w_k, w_v, w_o = _case(61, 1, 3, 4)
    calls = [
        ((x[0], w_q, w_k, w_v, w_o, 2), {}, "a 2-D x is not [B, L, d_model]"),
        ((x, w_q[:, :3], w_k, w_v, w_o, 2), {}, "w_q is [4, 3], not [4, 4]"),
        ((x[..., :3], w_q, w_k, w_v, w_o, 1), {}, "x has 3 features for 4 x 4 weights"),
        ((x, w_q, w_k, w_v, w_o, 3), {}, "3 heads do not divide d_model = 4"),
        ((x, w_q, w_k, w_v, w_o, 0), {}, "0 heads"),
        ((x, w_q, w_k, w_v, w_o, -2), {}, "a negative number of heads"),
        ((x.masked_fill(x == x.max(), float("nan")), w_q, w_k, w_v, w_o, 2), {}, "x contains nan"),
        ((x, w_q, w_k, w_v.masked_fill(w_v == w_v.max(), float("inf")), w_o, 2), {}, "w_v contains inf"),
    ]
    expect_rejected("ValueError", sub.multi_head_attention, calls)


# --------------------------------------------------------------------------------------------- experiment


@check("experiment.heads", "Experiment: two heads, one reading the previous token and one the first",
       clauses=["heads", "causal"])
def heads_experiment(sub, ref, ctx):
    # Tokens carry a one-hot position code in features 0..7 and a copy shifted by one in features 8..15, and
    # d_model = 16 with two heads of 8. Head 0's query for position i matches the key of position i - 1 (a
    # "previous token" head); head 1's query matches position 0 for everyone (a "first token" head). With v
    # the identity and w_o the identity, output feature j of head h is head h's attention weight on position
    # j, so the chart reads each head's weight on the intended position straight from your function.
    length, scale = 8, 16.0  # logits of 16 / sqrt(8) = 5.7 on the matching key
    eye = torch.eye(length, dtype=torch.float64)
    x = torch.cat([eye, torch.roll(eye, -1, dims=1)], dim=1)[None]  # (1, 8, 16): [one-hot(i), one-hot(i - 1)]
    w_q = torch.zeros(16, 16, dtype=torch.float64)
    w_q[:8, 8:] = scale * torch.eye(8, dtype=torch.float64)  # head 0 query = one-hot(i - 1)
    w_q[8, :8] = scale  # head 1 query = scale * e_0 for every token (the one-hot features sum to 1)
    w_k = torch.zeros(16, 16, dtype=torch.float64)
    w_k[:8, :8] = torch.eye(8, dtype=torch.float64)  # head 0 key = one-hot(j)
    w_k[8:, :8] = torch.eye(8, dtype=torch.float64)  # head 1 key = one-hot(j)
    w_v = torch.zeros(16, 16, dtype=torch.float64)
    w_v[:8, :8] = torch.eye(8, dtype=torch.float64)
    w_v[8:, :8] = torch.eye(8, dtype=torch.float64)
    out = sub.multi_head_attention.call(x, w_q, w_k, w_v, torch.eye(16, dtype=torch.float64), 2,
                                        causal=True).unwrap()[0]  # (8, 16)
    positions = list(range(length))
    ctx.record_experiment(x_label="position", steps=positions, series={
        "previous_token_head": [float(out[i, max(i - 1, 0)]) for i in positions],
        "first_token_head": [float(out[i, 8]) for i in positions],
    })
