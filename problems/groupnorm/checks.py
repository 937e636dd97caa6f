"""Check battery for GroupNorm (Wu & He, 2018).

Groups `group_norm` (values, edge cases, refusals), `gradients` and `contract` are required; `experiment` is
advisory (it records the chart of the notes). The declared contract in problem.toml covers shapes (0 to 2 spatial
dimensions, N = 0, C = G and C a multiple of G), both dtypes, layouts (transposed, expanded, channels-last), inputs
left unchanged, new storage, requires_grad, gradients of x, weight and bias against the reference and central
differences, the refusals of every rule and a property search. The checks here hold what a declaration cannot
say: the hand example, which channels form a group, the biased variance, where eps goes, the per-channel affine
step and None, LayerNorm and InstanceNorm as the two ends, constant and single-value groups, stability far from
zero and at tiny and huge spreads, num_groups' refusals, and the gradient through the statistics.

Expected values come from `_oracle` below: a loop over samples and groups in float64, selecting each group's
channels by index (an oracle independent of the reference's reshape), rounded once to the input's dtype. A
normalised value is O(1) and its denominator is at least sqrt(eps), so a correct float64 computation in any order
lands within 1e-12 of the oracle and float32 within a few 1e-7: the dtype's default tolerances hold.
"""

import math

import torch
import torch.nn.functional as F

from grader.checks import (
    central_differences,
    check,
    expect,
    expect_close,
    expect_grad_close,
    expect_rejected,
    expect_tensor,
    expect_unchanged,
    fail,
    vjp,
)

F64, F32 = torch.float64, torch.float32


def _randn(seed, *shape, dtype=F64, scale=1.0, shift=0.0):
    generator = torch.Generator().manual_seed(seed)
    return (shift + scale * torch.randn(*shape, generator=generator, dtype=F64)).to(dtype)


def _affine(seed, channels, dtype=F64):
    """A gain near 1 and a bias near 0, both different in every channel (as after some training)."""
    return 1 + 0.5 * _randn(seed, channels, dtype=dtype), 0.3 * _randn(seed + 1, channels, dtype=dtype)


def _oracle(x, num_groups, weight=None, bias=None, eps=1e-5):
    """GroupNorm by a loop over samples and groups in float64, rounded once to x's dtype."""
    x64 = x.detach().to(F64)
    out = torch.empty_like(x64)
    per_group = x.shape[1] // num_groups
    for n in range(x.shape[0]):
        for g in range(num_groups):
            channels = list(range(g * per_group, (g + 1) * per_group))
            values = x64[n, channels]  # [C/G, *spatial]: every position of the group's channels
            mean = values.sum() / values.numel()
            var = ((values - mean) ** 2).sum() / values.numel()
            out[n, channels] = (values - mean) / math.sqrt(float(var) + eps)
    shape = (-1,) + (1,) * (x.dim() - 2)
    if weight is not None:
        out = out * weight.detach().to(F64).reshape(shape)
    if bias is not None:
        out = out + bias.detach().to(F64).reshape(shape)
    return out.to(x.dtype)


def _expect_result(result, x, num_groups, weight=None, bias=None, eps=1e-5, *, rtol=None, atol=None, hint=""):
    got = result.unwrap()
    expect_unchanged(
        result,
        hint="(return a new tensor: subtract the mean out of place, x - mean, never x -= mean "
        "on a reshaped view of x, which shares x's memory)",
    )
    expect_tensor(got, shape=tuple(x.shape), dtype=x.dtype, call=result)
    if not bool(torch.isfinite(got).all()):
        fail(
            f"{result.call} returned non-finite values although every input is finite; "
            f"{hint or 'a group of equal values has variance 0: eps inside the square root keeps it finite'}"
        )
    expect_close(got, _oracle(x, num_groups, weight, bias, eps), call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------- values


def _hand_inputs():
    # Group 0 (channels 0, 1) holds {1, 5, 5, 1}: mean 3, biased variance 4, so [-1, 1] and [1, -1].
    # Group 1 (channels 2, 3) holds {2, 4, 6, 8}: mean 5, variance 5, so [-3, -1] / sqrt 5 and [1, 3] / sqrt 5.
    x = torch.tensor([[[1.0, 5.0], [5.0, 1.0], [2.0, 4.0], [6.0, 8.0]]], dtype=F64)
    weight = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=F64)
    bias = torch.tensor([0.0, 0.0, 1.0, -1.0], dtype=F64)
    return x, weight, bias


@check(
    "group_norm.hand_example",
    "Hand example: four channels in two groups, a gain and a bias per channel",
    clauses=["formula", "groups", "biased_variance", "affine_per_channel"],
)
def hand_example(sub, ref):
    x, weight, bias = _hand_inputs()
    result = sub.group_norm.call(x, 2, weight, bias)
    _expect_result(
        result,
        x,
        2,
        weight,
        bias,
        hint="(expected about [[-1, 1], [2, -2], [-3.0249, -0.3416], [0.7889, 4.3666]]: group 0 is "
        "channels 0-1 with mean 3 and variance 4, group 1 is channels 2-3 with mean 5 and variance 5, "
        "then weight[c] * value + bias[c] channel by channel)",
    )


@check(
    "group_norm.groups",
    "Group g is channels g*C/G .. (g+1)*C/G - 1 of one sample, at every position, alone",
    clauses=["groups", "formula"],
)
def groups(sub, ref):
    # Two samples, six channels in three groups of two, five positions. Shifting and scaling group 1 of sample 0
    # must change nothing anywhere else (batch statistics or statistics shared across groups would), and one
    # sample normalised alone gives what it gives inside the batch.
    x = _randn(10, 2, 6, 5)
    moved = x.clone()
    moved[0, 2:4] = 100.0 + 7.0 * moved[0, 2:4]
    weight, bias = _affine(11, 6)
    results = sub.group_norm.map(
        [((x, 3, weight, bias), {}), ((moved, 3, weight, bias), {}), ((x[1:].clone(), 3, weight, bias), {})]
    )
    base, shifted, alone = results
    _expect_result(
        base,
        x,
        3,
        weight,
        bias,
        hint="(group g of a sample holds channels g*C/G to (g+1)*C/G - 1 at every position; with C = 6 "
        "and G = 3: channels {0, 1}, {2, 3}, {4, 5}, each with its own mean and variance)",
    )
    _expect_result(
        shifted,
        moved,
        3,
        weight,
        bias,
        hint="(scaling and shifting channels 2-3 of sample 0 must leave every other group and every other "
        "sample unchanged: statistics come from one (sample, group) only, never from the batch)",
    )
    _expect_result(
        alone,
        x[1:].clone(),
        3,
        weight,
        bias,
        hint="(one sample alone must give what it gives inside the batch: no statistic crosses samples)",
    )


@check(
    "group_norm.biased_variance", "The variance divides by the group's size m, not m - 1", clauses=["biased_variance"]
)
def biased_variance(sub, ref):
    # [[0, 2]] with G = 1: mean 1, biased variance 1, so [-1, 1] (over sqrt(1 + 1e-5)); dividing by m - 1 = 1
    # gives variance 2 and +-0.7071. The random case has groups of 2 channels x 3 positions.
    pair = torch.tensor([[0.0, 2.0]], dtype=F64)
    x = _randn(20, 2, 4, 3)
    results = sub.group_norm.map([((pair, 1), {}), ((x, 2), {})])
    for result, (values, g) in zip(results, ((pair, 1), (x, 2)), strict=True):
        _expect_result(
            result,
            values,
            g,
            hint="(divide the squared deviations by the number of values in the group, "
            "m, not m - 1: torch.var and torch.std need correction=0 / unbiased=False for that)",
        )


@check(
    "group_norm.eps_inside_sqrt",
    "eps sits inside the root, sqrt(var + eps); tiny variances and larger eps",
    clauses=["eps_inside", "formula"],
)
def eps_inside_sqrt(sub, ref):
    # [[0, 2e-3]]: variance 1e-6, ten times smaller than eps = 1e-5, so +-1e-3 / sqrt(1.1e-5) = +-0.3015, while
    # (std + eps) gives +-1e-3 / 1.01e-3 = +-0.990. eps = 0.5 and eps = 2 (an int) weigh against variances near 1.
    tiny = torch.tensor([[0.0, 2e-3]], dtype=F64)
    x = _randn(30, 3, 4, 2)
    cases = [(tiny, 1, 1e-5), (x, 2, 0.5), (x, 4, 2)]
    results = sub.group_norm.map([((values, g), {"eps": eps}) for values, g, eps in cases])
    for result, (values, g, eps) in zip(results, cases, strict=True):
        _expect_result(
            result,
            values,
            g,
            eps=eps,
            hint=f"(with eps = {eps}: (x - mean) / sqrt(variance + eps), "
            "eps added to the variance inside the square root, not to the standard deviation)",
        )


@check(
    "group_norm.affine_per_channel",
    "weight and bias act per channel; None is a gain of 1 or a bias of 0",
    clauses=["affine_per_channel"],
)
def affine_per_channel(sub, ref):
    # Gains and biases differ between the channels of one group, so one value per group cannot match; each of
    # weight and bias may be None on its own.
    x = _randn(40, 2, 6, 3)
    weight, bias = _affine(41, 6)
    cases = [(weight, bias), (weight, None), (None, bias), (None, None)]
    results = sub.group_norm.map([((x, 2), {"weight": w, "bias": b}) for w, b in cases])
    for result, (w, b) in zip(results, cases, strict=True):
        _expect_result(
            result,
            x,
            2,
            w,
            b,
            hint="(multiply channel c by weight[c] and add bias[c], each channel its "
            "own: the groups share statistics, not the affine step; None means gain 1 or bias 0, "
            "whatever the other one is)",
        )


@check(
    "group_norm.special_cases",
    "G = 1 is LayerNorm over (C, *), G = C is InstanceNorm; 0 to 3 spatial dims",
    clauses=["special_cases", "formula"],
)
def special_cases(sub, ref):
    # The two ends against torch's own layer_norm and instance_norm, then a volume [N, C, D, H, W] and a plain
    # [N, C] matrix (no spatial dimension: each group is just C/G numbers) against the oracle.
    image = _randn(50, 2, 4, 3, 3)
    weight, bias = _affine(51, 4)
    volume, matrix = _randn(52, 2, 4, 2, 3, 2), _randn(53, 3, 6)
    w6, b6 = _affine(54, 6)
    layer, instance, deep, flat = sub.group_norm.map(
        [
            ((image, 1, weight, bias), {}),
            ((image, 4, weight, bias), {}),
            ((volume, 2, weight, bias), {}),
            ((matrix, 2, w6, b6), {}),
        ]
    )
    shape = (1, -1, 1, 1)
    expected = F.layer_norm(image, image.shape[1:], eps=1e-5) * weight.reshape(shape) + bias.reshape(shape)
    expect_close(
        layer.unwrap(),
        expected,
        call=layer,
        hint="(with G = 1 the only group is the whole sample: LayerNorm over all C channels and positions)",
    )
    expected = F.instance_norm(image, weight=weight, bias=bias, eps=1e-5)
    expect_close(
        instance.unwrap(),
        expected,
        call=instance,
        hint="(with G = C every channel is its own group: InstanceNorm over each channel's positions)",
    )
    _expect_result(
        deep,
        volume,
        2,
        weight,
        bias,
        hint="(any number of spatial dimensions: a group is its channels at every position of the volume)",
    )
    _expect_result(
        flat, matrix, 2, w6, b6, hint="(with no spatial dimension x is [N, C] and a group is just its C/G numbers)"
    )


@check(
    "group_norm.degenerate_groups",
    "Constant and single-value groups give the bias, finite; N = 0 gives [0, ...]",
    clauses=["degenerate_groups"],
)
def degenerate_groups(sub, ref):
    # A constant group has variance 0: 0 / sqrt(eps) = 0, so y = bias there. With C/G = 1 and no spatial size
    # beyond 1, every group holds one value and the whole output is the bias. An empty batch keeps its shape.
    x = _randn(60, 2, 4, 3)
    x[0, 2:4] = 7.5  # group 1 of sample 0 is constant
    weight, bias = _affine(61, 4)
    single = _randn(62, 3, 4)
    pixel = _randn(63, 2, 4, 1, 1)
    cases = [(x, 2, weight, bias), (single, 4, weight, bias), (pixel, 4, None, bias), (single, 4, None, None)]
    empties = [
        (torch.zeros(0, 4, 3, dtype=F64), 2, weight, bias),
        (torch.zeros(0, 6, dtype=F32), 3, None, None),
        (torch.zeros(0, 4, 2, 2, dtype=F64), 4, weight, None),
    ]
    results = sub.group_norm.map([((values, g, w, b), {}) for values, g, w, b in cases + empties])
    for result, (values, g, w, b) in zip(results, cases + empties, strict=True):
        if values.shape[0] == 0:
            got = result.unwrap()
            expect_tensor(got, shape=tuple(values.shape), dtype=values.dtype, call=result)
            continue
        _expect_result(
            result,
            values,
            g,
            w,
            b,
            hint="(a group whose values are all equal, one value included, has variance 0: it normalises "
            "to 0 and comes out as the bias, 0 without one, never nan)",
        )


@check(
    "group_norm.stability",
    "Far from zero (1e4 in float32, 1e8 in float64) and at spreads 1e-20 and 1e17",
    clauses=["stability"],
)
def stability(sub, ref):
    # 1e4 + noise of size 1 in float32: mean(x^2) - mean(x)^2 subtracts two numbers near 1e8 whose float32 spacing
    # is 8, so the variance is lost (often negative: nan). The two-pass mean((x - mean)^2) keeps it; what remains
    # is the float32 rounding of the mean near 1e4 (spacing 1e-3), an error of about 1e-3 in y, so float32 allows
    # 1e-2 while the one-pass formula is off by order 1. The same happens in float64 near 1e8 (spacing 1.5e-8 in
    # x, 2 in x^2): two passes leave about 1e-8, the tolerance is 1e-6.
    far32 = _randn(70, 3, 8, 6, dtype=F32, shift=1e4)
    far64 = _randn(71, 3, 8, 6, shift=1e8)
    # Spreads of 1e-20 (squares below float32's normal range: eps dominates and y is about x / sqrt(eps), nearly
    # 0) and 1e17 (squares near 1e34, still finite in float32: y is the same O(1) pattern at any scale).
    tiny = _randn(72, 2, 4, 5, dtype=F32, scale=1e-20)
    huge = _randn(73, 2, 4, 5, dtype=F32, scale=1e17)
    weight32, bias32 = _affine(74, 8, F32)
    cases = [
        (far32, weight32, bias32, 1e-2),
        (far64, None, None, 1e-6),
        (tiny, None, None, None),
        (huge, None, None, None),
    ]
    results = sub.group_norm.map([((values, 4, w, b), {}) for values, w, b, _ in cases])
    for result, (values, w, b, tol) in zip(results, cases, strict=True):
        _expect_result(
            result,
            values,
            4,
            w,
            b,
            rtol=tol,
            atol=tol,
            hint="(compute the variance in two passes, the mean of (x - mean)^2, not mean(x^2) - mean^2, "
            "which cancels catastrophically far from zero)",
        )


@check(
    "group_norm.num_groups_refused",
    "num_groups: a non-int raises TypeError; 0, negative or not dividing C raise ValueError",
    clauses=["num_groups"],
)
def num_groups_refused(sub, ref):
    x = _randn(80, 2, 6, 3)
    expect_rejected(
        "TypeError",
        sub.group_norm,
        [
            ((x, 2.0), {}, "num_groups is a float, even if it is a whole number"),
            ((x, True), {}, "num_groups is a bool, not an int"),
            ((x, "3"), {}, "num_groups is a string"),
            ((x, torch.tensor(3)), {}, "num_groups is a tensor, not a Python int"),
        ],
    )
    expect_rejected(
        "ValueError",
        sub.group_norm,
        [
            (
                (x, 4),
                {},
                "4 groups do not divide C = 6 channels (C * L = 18 values per sample divide by 3, not the channels)",
            ),
            ((_randn(81, 2, 6, 4), 4), {}, "4 groups do not divide C = 6, although C * L = 24 values per sample do"),
            ((x, 0), {}, "num_groups = 0: there is no group to normalise"),
            ((x, -2), {}, "num_groups = -2 is negative"),
            ((x, 12), {}, "12 groups cannot split 6 channels"),
        ],
    )


# --------------------------------------------------------------------------------------------- gradients


@check(
    "gradients.through_statistics",
    "Gradients of x (through the mean and variance), weight and bias",
    clauses=["gradients"],
)
def through_statistics(sub, ref):
    # Against autograd through the float64 oracle and against central differences of your own function, with a
    # random cotangent. Each group's gradient in x sums to 0: shifting all of a group's values by the same amount
    # changes no output, a direction the statistics' gradient must cancel (detached statistics do not).
    x = _randn(90, 2, 4, 2)
    weight, bias = _affine(91, 4)
    cotangent = _randn(92, 2, 4, 2)
    leaves = [t.clone().requires_grad_(True) for t in (x, weight, bias)]
    result = sub.group_norm.call(
        leaves[0], 2, leaves[1], leaves[2], grads=("x", "weight", "bias"), grad_output=cotangent
    )
    oracle_leaves = [t.clone().requires_grad_(True) for t in (x, weight, bias)]
    oracle_grads = vjp([_differentiable_oracle(*oracle_leaves, 2)], oracle_leaves, [cotangent])
    hint = (
        "(the mean and the variance are functions of x: let the gradient flow through them, do not detach "
        "them; the gain and bias get gradients channel by channel)"
    )
    for name, expected in zip(("x", "weight", "bias"), oracle_grads, strict=True):
        expect_grad_close(result, name, expected, source="autograd through the definition", hint=hint)
    grad_x = result.grads["x"]
    sums = grad_x.reshape(2, 2, -1).sum(dim=-1)
    expect(
        bool((sums.abs() < 1e-9).all()),
        f"after backward() on {result.call}, the gradient of x summed over each (sample, group) is "
        f"{sums.flatten().tolist()}, not 0: adding a constant to every value of a group changes no output, so "
        "the gradient through the group's mean must cancel the direct one",
    )
    numeric = central_differences(sub.group_norm, (x, 2, weight, bias), (0, 2, 3), grad_output=cotangent)
    for name, expected in zip(("x", "weight", "bias"), numeric, strict=True):
        expect_grad_close(result, name, expected, rtol=1e-5, atol=1e-7, source="central differences of your function")


def _differentiable_oracle(x, weight, bias, num_groups, eps=1e-5):
    """The oracle's formula with autograd: loops over samples and groups, built by stacking."""
    per_group = x.shape[1] // num_groups
    samples = []
    for n in range(x.shape[0]):
        parts = []
        for g in range(num_groups):
            values = x[n, g * per_group : (g + 1) * per_group]
            mean = values.sum() / values.numel()
            var = ((values - mean) ** 2).sum() / values.numel()
            parts.append((values - mean) / torch.sqrt(var + eps))
        samples.append(torch.cat(parts))
    shape = (-1,) + (1,) * (x.dim() - 2)
    return torch.stack(samples) * weight.reshape(shape) + bias.reshape(shape)


@check(
    "gradients.constant_group",
    "A constant group's gradient is finite; backward works on an empty batch",
    clauses=["gradients", "degenerate_groups"],
)
def constant_group(sub, ref):
    # At variance 0 the gradient is (cotangent - its group mean) * weight / sqrt(eps) in x: large but finite, with
    # eps inside the root. An empty batch contributes nothing: backward runs, and weight and bias get zeros (or no
    # gradient at all, which the contract treats alike).
    x = _randn(100, 2, 4, 3)
    x[1, 0:2] = -3.0
    weight, bias = _affine(101, 4)
    cotangent = _randn(102, 2, 4, 3)
    result = sub.group_norm.call(
        x.clone().requires_grad_(True),
        2,
        weight.clone().requires_grad_(True),
        bias.clone().requires_grad_(True),
        grads=("x", "weight", "bias"),
        grad_output=cotangent,
    )
    for name in ("x", "weight", "bias"):
        grad = result.grads.get(name)
        if grad is not None and not bool(torch.isfinite(grad).all()):
            fail(
                f"after backward() on {result.call}, {name}.grad holds nan or inf: a constant group has variance 0, "
                "and only eps inside the square root keeps the derivative finite"
            )
    leaves = [t.clone().requires_grad_(True) for t in (x, weight, bias)]
    oracle_grads = vjp([_differentiable_oracle(*leaves, 2)], leaves, [cotangent])
    for name, expected in zip(("x", "weight", "bias"), oracle_grads, strict=True):
        expect_grad_close(
            result,
            name,
            expected,
            source="autograd through the definition",
            hint="(the derivative at a constant group is finite: (g - mean of g) * weight / sqrt(eps))",
        )
    empty = torch.zeros(0, 4, 3, dtype=F64)
    result = sub.group_norm.call(
        empty.requires_grad_(True),
        2,
        weight.clone().requires_grad_(True),
        bias.clone().requires_grad_(True),
        grads=("weight", "bias"),
        grad_output=torch.zeros(0, 4, 3, dtype=F64),
    )
    result.unwrap()
    if result.backward_error:
        fail(f"{result.call}: backward() failed on an empty batch: {result.backward_error}")
    for name in ("weight", "bias"):
        if result.grads.get(name) is not None:  # no gradient at all is as good as a zero one here
            expect_grad_close(
                result,
                name,
                torch.zeros(4, dtype=F64),
                source="an empty batch",
                hint="(an empty batch contributes nothing to the gradients)",
            )


# -------------------------------------------------------------------------------------------- experiment

BATCH_SIZES = [1, 2, 4, 8, 16]
SAMPLES, CHANNELS, SIDE, GROUPS = 32, 8, 4, 4


def _activations():
    """32 feature maps [8 channels, 4 x 4] like a conv layer's: every channel with its own offset and scale, every
    sample with its own contrast, so batch statistics vary from batch to batch."""
    generator = torch.Generator().manual_seed(110)
    offsets = 2.0 * torch.randn(1, CHANNELS, 1, 1, generator=generator, dtype=F64)
    scales = torch.exp(0.5 * torch.randn(1, CHANNELS, 1, 1, generator=generator, dtype=F64))
    contrast = torch.exp(0.5 * torch.randn(SAMPLES, 1, 1, 1, generator=generator, dtype=F64))
    z = torch.randn(SAMPLES, CHANNELS, SIDE, SIDE, generator=generator, dtype=F64)
    return offsets + scales * contrast * z


def _batch_norm(x, mean, var, eps=1e-5):
    return (x - mean) / torch.sqrt(var + eps)


@check(
    "experiment.batch_dependence",
    "Experiment: how far each sample's normalised activations move with the batch "
    "it is in, your GroupNorm against batch statistics",
    group="experiment",
    required=False,
)
def batch_dependence(sub, ref, ctx):
    # For each batch size b the 32 samples are cut into 32 / b batches. "Gap" is the mean absolute difference
    # between a sample's output inside its training batch and the output inference gives it: GroupNorm on the
    # sample alone for your function, and for batch statistics (per channel over the batch and the positions) the
    # population statistics of all 32 samples, which converged running averages would hold.
    x = _activations()
    calls, slices = [], []
    for b in BATCH_SIZES:
        for start in range(0, SAMPLES, b):
            calls.append(((x[start : start + b].clone(), GROUPS), {}))
            slices.append(b)
    results = sub.group_norm.map(calls)
    outputs = {b: [] for b in BATCH_SIZES}
    for result, b in zip(results, slices, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(b, CHANNELS, SIDE, SIDE), dtype=F64, call=result)
        outputs[b].append(got.detach())
    alone = torch.cat(outputs[1])
    dims = (0, 2, 3)
    population = _batch_norm(x, x.mean(dim=dims, keepdim=True), x.var(dim=dims, keepdim=True, unbiased=False))
    group_gap, batch_gap = [], []
    for b in BATCH_SIZES:
        group_gap.append(float((torch.cat(outputs[b]) - alone).abs().mean()))
        pieces = [
            _batch_norm(part, part.mean(dim=dims, keepdim=True), part.var(dim=dims, keepdim=True, unbiased=False))
            for part in x.split(b)
        ]
        batch_gap.append(float((torch.cat(pieces) - population).abs().mean()))
    ctx.record_experiment(
        x_label="batch size", steps=BATCH_SIZES, series={"group_norm_gap": group_gap, "batch_norm_gap": batch_gap}
    )
    worst = max(range(len(BATCH_SIZES)), key=lambda i: group_gap[i])
    expect(
        group_gap[worst] < 1e-9,
        f"your group_norm gave a sample different outputs in batches of {BATCH_SIZES[worst]} and alone (mean "
        f"absolute difference {group_gap[worst]:.3g}): GroupNorm's statistics come from one sample only",
    )
