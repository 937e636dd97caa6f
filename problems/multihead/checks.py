"""Check battery for multi-head self-attention.

The contract in problem.toml gives the generic battery (`contract.*`: values at distinct sizes, edges with B or L
of 0, dtypes, layouts, gradients of x and the four weights, refusals, the property search); these hand checks
add what it cannot state: the hand examples, that later tokens never change earlier outputs under the causal
mask, and logits of 1e4. Groups: `values` and `contract` are required; `experiment` is advisory (the head map
for the notes). Every random input comes from a seeded generator.
"""

import math

import torch

from grader.checks import check, expect_close, expect_tensor, fail

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
       clauses=["formula", "heads", "scale"])
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


@check("values.causal_no_future", "Causal: changing later tokens never changes earlier outputs",
       clauses=["causal", "stable"])
def causal_no_future(sub, ref):
    # Two sequences that agree on their first 3 tokens: with causal=True their first 3 outputs must agree too,
    # and the diagonal must count (position 0 attends to itself, so its output is (x_0 W_v^T) W_o^T).
    args = _case(30, 1, 6, 8)
    changed = args[0].clone()
    changed[:, 3:] = torch.randn(1, 3, 8, generator=torch.Generator().manual_seed(31), dtype=torch.float64)
    # The same with logits of 1e4 (d_model = 1, one head, w_q = 1, w_k = -1, w_v = w_o = 1, so logit i, j is
    # -x_i x_j): token 0 = 100 has logit -1e4 on itself, and token 1 = +-100 gives it a future logit of -1e4 or
    # +1e4. Token 0 sees only itself, so its output is x_0 = 100 in both sequences. A finite fill such as -1e4
    # for the future ties with token 0's own -1e4 and averages in token 1's value: 100, then 0.
    big = []
    for dtype in (torch.float32, torch.float64):
        one, minus_one = torch.ones(1, 1, dtype=dtype), -torch.ones(1, 1, dtype=dtype)
        for later in (100.0, -100.0):
            big.append((torch.tensor([[[100.0], [later]]], dtype=dtype), one, minus_one, one, one))
    results = sub.multi_head_attention.map([((*args, 2), {"causal": True}),
                                            (((changed,) + args[1:] + (2,)), {"causal": True}),
                                            *(((*b, 1), {"causal": True}) for b in big)])
    first, second = results[:2]
    _expect_mha(first, ref, args, 2, True)
    expect_close(second.unwrap()[:, :3], first.unwrap()[:, :3], what="the first 3 outputs", call=second,
                 hint="(with causal=True position i reads only positions j <= i, so later tokens cannot change it)")
    hint = ("(token 0 may attend only to itself, so its output is x_0 W_v^T W_o^T = 100 whatever token 1 is; "
            "future logits must be -inf before the softmax: a finite fill such as -1e4 ties with a real logit of "
            "-1e4 and lets the future back in)")
    for result, b in zip(results[2:], big, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(1, 2, 1), dtype=b[0].dtype, call=result)
        expect_close(got[0, 0], b[0][0, 0], what="token 0's output", call=result, hint=hint)
        _expect_mha(result, ref, b, 1, True, hint=hint)


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
