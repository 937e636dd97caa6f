"""Check battery for LoRA's forward pass and merge.

Groups: `forward`, `merge`, `gradients` and `contract` are required; `experiment` is advisory (the rank chart
for the notes). Every check names the clauses of problem.toml it tests, and every random input comes from a
seeded generator.

Gradients: the worker calls backward() only on a one-element result, so the gradient checks use a layer with
one output and one input row (x [1, in], weight [1, in], lora_b [1, r]); every path from the output back to x,
lora_a and lora_b still carries a non-trivial gradient.
"""

import torch

from grader.checks import (
    check,
    expect_close,
    expect_grad_close,
    expect_grad_none,
    expect_no_alias,
    expect_rejected,
    expect_tensor,
    expect_unchanged,
    fail,
)

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


@check("forward.scale_over_ranks", "The update is scaled by alpha / r for r = 1, 4 and 16", clauses=["scale"])
def forward_scale_over_ranks(sub, ref):
    cases = [(_layer(10 + r, (3,), 16, 5, r), alpha) for r, alpha in ((1, 8), (4, 8), (16, 32))]
    results = sub.lora_forward.map([(case, {"alpha": alpha}) for case, alpha in cases])
    for result, (case, alpha) in zip(results, cases, strict=True):
        _expect_forward(result, ref, *case, alpha, hint="(r is lora_a.shape[0]; the update is scaled by alpha / r)")


@check("forward.zero_b_is_base_layer", "With lora_b = 0 (LoRA's initialisation) the layer is the frozen one",
       clauses=["forward_formula"])
def zero_b_is_base_layer(sub, ref):
    x, weight, bias, lora_a, lora_b = _layer(20, (4,), 6, 3, 2)
    result = sub.lora_forward.call(x, weight, bias, lora_a, torch.zeros_like(lora_b), 16)
    _expect_forward(result, ref, x, weight, bias, lora_a, torch.zeros_like(lora_b), 16,
                    hint="(with B = 0 the update vanishes and the result is x W^T + b: W is [out, in], as in "
                    "nn.Linear)")


@check("forward.random_float64", "Random layers in float64 (leading dims, square and rectangular) match",
       clauses=["forward_formula", "shapes"])
def forward_random_float64(sub, ref):
    specs = [((), 4, 4, 2), ((5,), 8, 3, 1), ((2, 3), 6, 10, 4), ((0,), 5, 2, 2)]
    cases = [_layer(30 + i, *spec) for i, spec in enumerate(specs)]
    results = sub.lora_forward.map([(case, {"alpha": 12.0}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        _expect_forward(result, ref, *case, 12.0)


@check("forward.random_float32", "Random layers in float32 match the exact result to float32 precision",
       clauses=["forward_formula"])
def forward_random_float32(sub, ref):
    cases = [_layer(40, (6,), 32, 16, 8, torch.float32), _layer(41, (2, 3), 12, 7, 3, torch.float32)]
    results = sub.lora_forward.map([(case, {"alpha": 16}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        _expect_forward(result, ref, *case, 16)


@check("forward.no_bias", "bias None means no bias", clauses=["forward_formula"])
def forward_no_bias(sub, ref):
    x, weight, _, lora_a, lora_b = _layer(50, (3,), 5, 4, 2)
    result = sub.lora_forward.call(x, weight, None, lora_a, lora_b, 2)
    _expect_forward(result, ref, x, weight, None, lora_a, lora_b, 2, hint="(None stands for no bias)")


@check("forward.strided", "Transposed and sliced inputs and weights are accepted", clauses=["shapes"])
def forward_strided(sub, ref):
    g = torch.Generator().manual_seed(60)
    base = _randn(g, 8, 8)
    cases = [(base[:3, :6], base.T[:4, :6], base[0, :4], base[4:6, 2:], base[:4, 6:]),
             (base[0, :5].expand(3, 5), base[::2, :5], None, base[6:, :5], base[:4, ::4])]
    results = sub.lora_forward.map([(case, {"alpha": 6.0}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        _expect_forward(result, ref, *case, 6.0, hint="(these inputs are views of one storage: use operations "
                        "that accept any strides, and never write into an input, or the others change with it)")


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


@check("merge.new_tensor", "merge_lora returns new storage that does not require grad; weight is unchanged",
       clauses=["merge_new", "unchanged"])
def merge_new_tensor(sub, ref):
    _, w, _, a, b = _layer(80, (1,), 4, 3, 2)
    for lora_b in (b, torch.zeros_like(b)):
        result = sub.merge_lora.call(w * 1, a.clone().requires_grad_(), lora_b.clone().requires_grad_(), 4)
        expect_unchanged(result)
        expect_no_alias(result, hint="(merge into a new tensor, even when lora_b is zero)")
        expect_tensor(result.unwrap(), shape=(3, 4), dtype=torch.float64, requires_grad=False, call=result)


# ---------------------------------------------------------------------------------------------- gradients


def _one_output(seed, d_in, rank, dtype=torch.float64):
    """A layer with one output and one input row, so the result has one element (see the module docstring)."""
    return _layer(seed, (1,), d_in, 1, rank, dtype)


def _grad_call(case, alpha, *, train_base=False):
    x, weight, bias, lora_a, lora_b = (None if t is None else t.clone() for t in case)
    for t in (x, lora_a, lora_b) + ((weight, bias) if train_base else ()):
        t.requires_grad_()
    return (x, weight, bias, lora_a, lora_b), {"alpha": alpha}


def _reference_grads(ref, case, alpha):
    leaves = [t.detach().double().requires_grad_() for t in (case[0], case[3], case[4])]
    ref.lora_forward(leaves[0], case[1].double(), case[2].double(), leaves[1], leaves[2], alpha).sum().backward()
    return {name: leaf.grad.to(case[0].dtype) for name, leaf in zip(("x", "lora_a", "lora_b"), leaves, strict=True)}


def _expect_grads(result, ref, case, alpha, *, rtol=None, atol=None):
    result.unwrap()
    for name, expected in _reference_grads(ref, case, alpha).items():
        if result.grads.get(name) is None:
            fail(f"after backward() on {result.call}, {name}.grad is None: the adapter trains lora_a and lora_b, "
                 f"and x must pass gradient on to earlier layers, so keep all three in the graph")
        expect_grad_close(result, name, expected, rtol=rtol, atol=atol)


@check("gradients.reference", "Gradients into x, lora_a and lora_b match the reference (float64)",
       clauses=["gradients"])
def gradients_reference(sub, ref):
    cases = [(_one_output(90, 6, 2), 8.0), (_one_output(91, 3, 5), 2.0)]
    results = sub.lora_forward.map([_grad_call(case, alpha) for case, alpha in cases], grads=("x", "lora_a", "lora_b"))
    for result, (case, alpha) in zip(results, cases, strict=True):
        _expect_grads(result, ref, case, alpha)


@check("gradients.frozen_base", "weight and bias get no gradient, even when they require grad",
       clauses=["frozen"])
def gradients_frozen_base(sub, ref):
    case = _one_output(92, 4, 2)
    args, kwargs = _grad_call(case, 4.0, train_base=True)
    result = sub.lora_forward.call(*args, **kwargs, grads=("weight", "bias", "lora_a"))
    result.unwrap()
    expect_grad_none(result, "weight", "bias", hint="LoRA freezes the pretrained layer: detach weight and bias "
                     "(x @ weight.detach().T) so that only the adapter trains")
    if result.grads.get("lora_a") is None:
        fail(f"after backward() on {result.call}, lora_a.grad is None: the adapter must train")


@check("gradients.finite_differences", "Autograd agrees with central differences of your own function",
       clauses=["gradients"])
def gradients_finite_differences(sub, ref):
    # Step 1e-6 in float64: truncation ~1e-12 f''', rounding ~1e-16 / 1e-6.
    x, weight, bias, lora_a, lora_b = _one_output(93, 3, 2)
    args = (x, weight, bias, lora_a, lora_b, 3.0)
    numeric = {}
    for position, name in ((0, "x"), (3, "lora_a"), (4, "lora_b")):
        numeric[name] = _scalar_differences(sub, args, position)
    a_args, kwargs = _grad_call((x, weight, bias, lora_a, lora_b), 3.0)
    result = sub.lora_forward.call(*a_args, **kwargs, grads=("x", "lora_a", "lora_b"))
    result.unwrap()
    for name, expected in numeric.items():
        if result.grads.get(name) is None:
            fail(f"after backward() on {result.call}, {name}.grad is None, but the output changes with {name}")
        expect_grad_close(result, name, expected, rtol=1e-5, atol=1e-8, source="central finite differences")


def _scalar_differences(sub, args, position, eps=1e-6):
    """Central differences of a one-element result, in one round trip."""
    base = args[position]
    calls = []
    for flat in range(base.numel()):
        for sign in (1.0, -1.0):
            shifted = base.detach().clone()
            shifted.view(-1)[flat] += sign * eps
            calls.append((args[:position] + (shifted,) + args[position + 1:], {}))
    values = [float(expect_tensor(r.unwrap(), call=r).reshape(())) for r in sub.lora_forward.map(calls)]
    grad = [(values[2 * i] - values[2 * i + 1]) / (2 * eps) for i in range(base.numel())]
    return torch.tensor(grad, dtype=torch.float64).reshape(base.shape)


@check("gradients.float32", "Gradients in float32 match the exact ones to float32 precision", clauses=["gradients"])
def gradients_float32(sub, ref):
    case = _one_output(94, 8, 4, torch.float32)
    args, kwargs = _grad_call(case, 16)
    result = sub.lora_forward.call(*args, **kwargs, grads=("x", "lora_a", "lora_b"))
    _expect_grads(result, ref, case, 16, rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL)


# ----------------------------------------------------------------------------------------------- contract


@check("contract.result", "lora_forward returns a new [..., out] tensor of the inputs' dtype, in the graph",
       clauses=["result"])
def result_type(sub, ref):
    for dtype in (torch.float32, torch.float64):
        x, w, bias, a, b = _layer(100, (2, 3), 5, 4, 2, dtype)
        result = sub.lora_forward.call(x, w, bias, a.requires_grad_(), b, 2)
        expect_tensor(result.unwrap(), shape=(2, 3, 4), dtype=dtype, requires_grad=True, call=result)


@check("contract.inputs_unchanged", "lora_forward leaves every input unchanged and returns its own storage",
       clauses=["unchanged", "result"])
def inputs_unchanged(sub, ref):
    x, w, bias, a, b = _layer(101, (3,), 4, 4, 2, torch.float32)
    for lora_b in (b, torch.zeros_like(b)):
        result = sub.lora_forward.call(x * 1, w * 1, bias * 1, a * 1, lora_b * 1, 4)
        expect_unchanged(result)
        expect_no_alias(result)


@check("contract.type_errors", "Non-tensors, unsupported or mixed dtypes and a non-number alpha raise TypeError",
       clauses=["type_errors"])
def type_errors(sub, ref):
    x, w, bias, a, b = _layer(110, (2,), 4, 3, 2)
    forward_calls = [
        ((x.tolist(), w, bias, a, b, 4), {}, "x is a list"),
        ((x, w.long(), bias, a, b, 4), {}, "an integer weight is outside the contract"),
        ((x, w, bias, a.float(), b, 4), {}, "lora_a is float32 while weight is float64"),
        ((x.float(), w, bias, a, b, 4), {}, "x is float32 while weight is float64"),
        ((x, w, bias.float(), a, b, 4), {}, "bias is float32 while weight is float64"),
        ((x, w, bias, a, b, True), {}, "alpha is a bool"),
        ((x, w, bias, a, b, torch.tensor(4.0)), {}, "alpha is a tensor"),
    ]
    expect_rejected("TypeError", sub.lora_forward, forward_calls)
    merge_calls = [
        ((w, a, b.half(), 4), {}, "float16 is outside the contract"),
        ((w, a, b, "4"), {}, "alpha is a string"),
        ((w.numpy(), a, b, 4), {}, "weight is a NumPy array, not a tensor"),
    ]
    expect_rejected("TypeError", sub.merge_lora, merge_calls)


@check("contract.value_errors", "Mismatched shapes, r = 0, non-finite values and alpha <= 0 raise ValueError",
       clauses=["value_errors"])
def value_errors(sub, ref):
    x, w, bias, a, b = _layer(111, (2,), 4, 3, 2)
    forward_calls = [
        ((x[:, :3], w, bias, a, b, 4), {}, "x has 3 features for a weight with in = 4"),
        ((x, w, bias[:2], a, b, 4), {}, "bias has 2 entries for out = 3"),
        ((x, w, bias, a[:, :3], b, 4), {}, "lora_a has 3 columns for in = 4"),
        ((x, w, bias, a, b[:, :1], 4), {}, "lora_b has rank 1 but lora_a rank 2"),
        ((x, w, bias, a[:0], b[:, :0], 4), {}, "r = 0 is no adapter"),
        ((x, w[0], bias, a, b, 4), {}, "a 1-D weight is not [out, in]"),
        ((x, w.masked_fill(w > 0.3, float("nan")), bias, a, b, 4), {}, "weight contains nan"),
        ((x, w, bias, a, b, 0), {}, "alpha = 0"),
        ((x, w, bias, a, b, -8.0), {}, "alpha is negative"),
    ]
    expect_rejected("ValueError", sub.lora_forward, forward_calls)
    merge_calls = [
        ((w, a.T, b, 4), {}, "lora_a is [in, r], not [r, in]"),
        ((w, a, b.masked_fill(b > 0, float("inf")), 4), {}, "lora_b contains inf"),
        ((w, a, b, float("nan")), {}, "alpha is nan"),
    ]
    expect_rejected("ValueError", sub.merge_lora, merge_calls)


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
