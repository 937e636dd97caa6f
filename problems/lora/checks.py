"""Check battery for LoRA's forward pass and merge.

The contracts in problem.toml give the generic battery (`contract.*`: values at distinct ranks and sizes, edges,
dtypes, layouts, gradients of x and the adapter with the frozen weight and bias getting none, a merge that never
requires grad, refusals, the property search); these hand checks add what they cannot state: the hand
examples, LoRA's initialisation (B = 0 gives the frozen layer), the merged weight reproducing the adapted
layer, and a merge with B = 0 that still returns new storage. Groups: `forward`, `merge` and `contract` are
required; `experiment` is advisory (the rank chart for the notes). Every random input comes from a seeded
generator.
"""

import torch

from grader.checks import check, expect_close, expect_no_alias, expect_tensor, expect_unchanged

FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 1e-5  # outputs O(1-10) from sums of <= 32 products: a few eps32 of error


# ------------------------------------------------------------------------------------------------ inputs


def _randn(generator, *shape, dtype=torch.float64, scale=1.0):
    return (scale * torch.randn(*shape, generator=generator, dtype=torch.float64)).to(dtype)


def _layer(seed, lead, d_in, d_out, rank, dtype=torch.float64, *, with_bias=True):
    """(x, weight, bias, lora_a, lora_b): a trained-looking adapter (B is not zero)."""
    g = torch.Generator().manual_seed(seed)
    x = _randn(g, *lead, d_in, dtype=dtype)
    weight = _randn(g, d_out, d_in, dtype=dtype, scale=d_in ** -0.5)
    bias = _randn(g, d_out, dtype=dtype, scale=0.1) if with_bias else None
    lora_a = _randn(g, rank, d_in, dtype=dtype, scale=d_in ** -0.5)
    lora_b = _randn(g, d_out, rank, dtype=dtype, scale=0.5)
    return x, weight, bias, lora_a, lora_b


def _double(t):
    return None if t is None else t.detach().double()


def _exact_forward(ref, x, weight, bias, lora_a, lora_b, alpha):
    return ref.lora_forward(*(_double(t) for t in (x, weight, bias, lora_a, lora_b)), alpha).to(x.dtype)


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == torch.float32 else (1e-7, 1e-9)


def _expect_forward(result, ref, x, weight, bias, lora_a, lora_b, alpha, *, hint=""):
    got = result.unwrap()
    expected = _exact_forward(ref, x, weight, bias, lora_a, lora_b, alpha)
    expect_tensor(got, shape=tuple(expected.shape), dtype=x.dtype, call=result)
    rtol, atol = _tolerances(x.dtype)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


def _expect_merged(result, ref, weight, lora_a, lora_b, alpha, *, hint=""):
    got = result.unwrap()
    expected = ref.merge_lora(_double(weight), _double(lora_a), _double(lora_b), alpha).to(weight.dtype)
    expect_tensor(got, shape=tuple(weight.shape), dtype=weight.dtype, call=result)
    rtol, atol = _tolerances(weight.dtype)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# --------------------------------------------------------------------------------------------- forward

HAND = {
    "weight": torch.eye(2, dtype=torch.float64),
    "bias": torch.tensor([0.5, -0.5], dtype=torch.float64),
    "lora_a": torch.tensor([[1.0, 1.0], [1.0, -1.0]], dtype=torch.float64),
    "lora_b": torch.tensor([[1.0, 0.0], [0.0, 2.0]], dtype=torch.float64),
}
HAND_X = torch.tensor([[1.0, 2.0]], dtype=torch.float64)


@check("forward.hand_example", "Hand example: r = 2, alpha = 4, so the update is scaled by 2",
       clauses=["forward_formula", "scale"])
def forward_hand_example(sub, ref):
    # x W^T + b = [1.5, 1.5]; x A^T = [3, -1]; (x A^T) B^T = [3, -2]; h = [1.5, 1.5] + 2 [3, -2] = [7.5, -2.5]
    result = sub.lora_forward.call(HAND_X, HAND["weight"], HAND["bias"], HAND["lora_a"], HAND["lora_b"], 4)
    _expect_forward(result, ref, HAND_X, HAND["weight"], HAND["bias"], HAND["lora_a"], HAND["lora_b"], 4,
                    hint="(expected [7.5, -2.5]: the update (x A^T) B^T = [3, -2] is scaled by alpha / r = 2)")


@check("forward.zero_b_is_base_layer", "With lora_b = 0 (LoRA's initialisation) the layer is the frozen one",
       clauses=["forward_formula"])
def zero_b_is_base_layer(sub, ref):
    x, weight, bias, lora_a, lora_b = _layer(20, (4,), 6, 3, 2)
    result = sub.lora_forward.call(x, weight, bias, lora_a, torch.zeros_like(lora_b), 16)
    _expect_forward(result, ref, x, weight, bias, lora_a, torch.zeros_like(lora_b), 16,
                    hint="(with B = 0 the update vanishes and the result is x W^T + b: W is [out, in], as in "
                    "nn.Linear)")


# ----------------------------------------------------------------------------------------------- merge


@check("merge.hand_example", "Hand example: W + 2 B A = [[3, 2], [4, -3]]", clauses=["merge_formula", "scale"])
def merge_hand_example(sub, ref):
    result = sub.merge_lora.call(HAND["weight"], HAND["lora_a"], HAND["lora_b"], 4)
    _expect_merged(result, ref, HAND["weight"], HAND["lora_a"], HAND["lora_b"], 4,
                   hint="(B A = [[1, 1], [2, -2]], scaled by alpha / r = 2 and added to W = I)")


@check("merge.matches_forward", "The merged weight gives the same outputs as the unmerged layer",
       clauses=["merge_formula"])
def merge_matches_forward(sub, ref):
    cases = [(_layer(70, (5,), 6, 9, 3), 9.0), (_layer(71, (4,), 12, 12, 4), 1.5)]
    results = sub.merge_lora.map([((w, a, b, alpha), {}) for (_, w, _, a, b), alpha in cases])
    for result, ((x, w, bias, a, b), alpha) in zip(results, cases, strict=True):
        _expect_merged(result, ref, w, a, b, alpha)
        merged_out = x @ result.unwrap().T + bias
        expect_close(merged_out, _exact_forward(ref, x, w, bias, a, b, alpha), what="x @ merged.T + bias",
                     call=result, hint="(folding the update into the weight must not change the layer's outputs)")


@check("merge.zero_b_new_tensor", "With lora_b = 0 the merged weight equals weight but is still new storage, "
       "off the graph, and weight is unchanged", clauses=["merge_new"])
def merge_zero_b_new_tensor(sub, ref):
    # B = 0 is LoRA's initialisation: the update vanishes, and returning weight itself is the tempting shortcut
    # (the generic battery draws B at random, so this path is checked here).
    _, w, _, a, b = _layer(80, (1,), 4, 3, 2)
    result = sub.merge_lora.call(w * 1, a.clone().requires_grad_(), torch.zeros_like(b).requires_grad_(), 4)
    expect_unchanged(result)
    expect_no_alias(result, hint="(merge into a new tensor, even when lora_b is zero)")
    expect_tensor(result.unwrap(), shape=(3, 4), dtype=torch.float64, requires_grad=False, call=result)
    expect_close(result.unwrap(), w, call=result, hint="(with lora_b = 0 the merged weight is weight)")


# --------------------------------------------------------------------------------------------- experiment


@check("experiment.rank", "Experiment: how well a rank-r adapter reproduces a full fine-tuning update",
       clauses=["forward_formula"])
def rank_experiment(sub, ref, ctx):
    # A "full fine-tuning" update Delta (32 x 32) built from 32 rank-one terms s_k u_k v_k^T with unit u_k, v_k
    # and a decaying spectrum s_k = 1 / k, as measured updates of fine-tuned models tend to have. The rank-r
    # adapter keeps the r largest terms (B = [s_k u_k], A = [v_k^T], alpha = r so the scale is 1). Your
    # lora_forward runs the adapted layer on 64 inputs; the chart is the relative error of its outputs against
    # the fully fine-tuned layer, beside the share of the layer's parameters the adapter trains.
    g = torch.Generator().manual_seed(120)
    d = 32
    u = torch.randn(d, d, generator=g, dtype=torch.float64)
    v = torch.randn(d, d, generator=g, dtype=torch.float64)
    u, v = u / u.norm(dim=0, keepdim=True), v / v.norm(dim=0, keepdim=True)  # columns are unit vectors
    spectrum = 1.0 / torch.arange(1, d + 1, dtype=torch.float64)
    delta = (u * spectrum) @ v.T
    weight = torch.randn(d, d, generator=g, dtype=torch.float64) / d ** 0.5
    x = torch.randn(64, d, generator=g, dtype=torch.float64)
    target = x @ (weight + delta).T
    ranks = [1, 2, 4, 8, 16, 32]
    calls = [((x, weight, None, v[:, :r].T.contiguous(), u[:, :r] * spectrum[:r], float(r)), {}) for r in ranks]
    outputs = [res.unwrap() for res in sub.lora_forward.map(calls)]
    update_size = (target - x @ weight.T).norm()
    ctx.record_experiment(x_label="rank r", steps=ranks, series={
        "relative_error": [float((out - target).norm() / update_size) for out in outputs],
        "trainable_share": [2 * r * d / (d * d) for r in ranks],  # r (in + out) against out * in
    })
