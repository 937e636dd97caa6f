"""Check battery for the SimCLR NT-Xent loss.

Groups: `loss` (values), `gradients` (both views are differentiated), `contract` (dtype, shape, errors) are
required; `experiment` is advisory (it records the batch-size chart for the notes). Every random input comes
from a seeded generator, so two runs give identical verdicts.
"""

import math

import torch

from grader.checks import (
    central_differences,
    check,
    expect,
    expect_close,
    expect_grad_close,
    expect_no_alias,
    expect_raises,
    expect_tensor,
    expect_unchanged,
    fail,
    tolerance,
)

FLOAT32_EPS = torch.finfo(torch.float32).eps


# ------------------------------------------------------------------------------------------------ inputs


def _views(seed, n, d, dtype=torch.float64, *, noise=1.0):
    """Two correlated views: z2 is z1 plus noise, so positives are closer than negatives (as after training)."""
    generator = torch.Generator().manual_seed(seed)
    z1 = torch.randn(n, d, generator=generator, dtype=torch.float64)
    z2 = z1 + noise * torch.randn(n, d, generator=generator, dtype=torch.float64)
    return z1.to(dtype), z2.to(dtype)


def _expected(ref, z1, z2, temperature):
    """The exact loss (computed in float64 from the same inputs), rounded to the inputs' dtype."""
    return ref.nt_xent_loss(z1.detach().double(), z2.detach().double(), temperature).to(z1.dtype)


def _tolerances(dtype, temperature):
    """(rtol, atol). The logits are cosines / T, each rounded to about eps / T; the loss is a difference of
    such numbers. A correct float32 implementation measured at most 3.3 * eps32 / T away from the exact loss
    over 250 random cases; 32 * eps32 / T leaves room for any order of operations while every mistake the
    mutants make is off by far more (>= 1e-2)."""
    rtol, atol = tolerance(dtype)
    if dtype == torch.float32:
        atol = max(atol, 32 * FLOAT32_EPS / temperature)
    return rtol, atol


def _expect_loss(result, ref, z1, z2, temperature, *, hint=""):
    """The learner's loss for one call equals the exact loss. A value one of the mutants also gives is named by
    the engine's diagnosis (the mutant's description), so no hand-written list of mistakes is needed here."""
    got = result.unwrap()
    expected = _expected(ref, z1, z2, temperature)
    expect_tensor(got, shape=(), dtype=z1.dtype, call=result)
    rtol, atol = _tolerances(z1.dtype, temperature)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------- values


@check("loss.hand_example", "Hand example: two aligned pairs at T = 0.5",
       clauses=["loss.partner", "loss.normalise", "loss.temperature", "loss.self_excluded",
                "loss.positive_in_denominator", "loss.mean_all_anchors"])
def hand_example(sub, ref):
    # Views (after normalisation) a1 = a2 = [1, 0] and b1 = b2 = [0, 1]. Anchor a1: its partner a2 has cosine
    # 1, the negatives b1 and b2 cosine 0, so its loss is log(e^{1/T} + 2) - 1/T = log(1 + 2 e^{-1/T}); the
    # other three anchors are the same by symmetry. The rows are scaled so normalisation matters.
    z1 = torch.tensor([[3.0, 0.0], [0.0, 0.5]])
    z2 = torch.tensor([[2.0, 0.0], [0.0, 4.0]])
    result = sub.nt_xent_loss.call(z1, z2, 0.5)
    got = result.unwrap()
    expected = torch.tensor(math.log(1 + 2 * math.exp(-2.0)))
    hint = "(log(1 + 2 e^-2) = 0.2395: per anchor, one positive with cosine 1 and two negatives with cosine 0)"
    expect_close(got, expected, call=result, hint=hint)


@check("loss.partner_is_positive", "The positive of view i is its partner i + N, not a look-alike",
       clauses=["loss.partner"])
def partner_is_positive(sub, ref):
    # a1 = [1, 0], b1 = [0, 1], a2 = [0, 1], b2 = [1, 0]: every anchor's partner is orthogonal to it (cosine 0)
    # while one negative is identical (cosine 1), so the loss is log(2 + e^{1/T}) = log(2 + e^2) at T = 0.5.
    z1 = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    z2 = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    result = sub.nt_xent_loss.call(z1, z2, 0.5)
    got = result.unwrap()
    hint = "(log(2 + e^2) = 2.2395: the positive of z1[i] is z2[i], whatever the other rows look like)"
    expect_close(got, torch.tensor(math.log(2 + math.exp(2.0))), call=result, hint=hint)


@check("loss.single_pair", "N = 1: no negatives, so the loss is exactly 0",
       clauses=["loss.single_pair", "loss.self_excluded"])
def single_pair(sub, ref):
    # With one pair, each anchor's only candidate is its partner (2N - 2 = 0 negatives): logsumexp over the
    # positive alone is the positive itself, whatever the two vectors are.
    for dtype in (torch.float32, torch.float64):
        z1, z2 = _views(3, 1, 4, dtype, noise=2.0)
        result = sub.nt_xent_loss.call(z1, z2, 0.2)
        _expect_loss(result, ref, z1, z2, 0.2, hint="(the view itself must not be a candidate; with N = 1 only "
                     "the partner is left, so the loss is 0)")


@check("loss.self_excluded", "A view is never its own negative (identical views, orthogonal pairs)",
       clauses=["loss.self_excluded", "loss.positive_in_denominator"])
def self_excluded(sub, ref):
    # z1 = z2 = identity (N = D = 3): each anchor's partner has cosine 1 and the 2N - 2 = 4 negatives cosine 0,
    # so the loss is log(e + 4) - 1 at T = 1. Leaving the anchor's cosine-1 self-similarity in would give
    # log(2e + 4) - 1.
    z1, z2 = torch.eye(3), torch.eye(3)
    result = sub.nt_xent_loss.call(z1, z2, 1.0)
    got = result.unwrap()
    hint = "(expected log(e + 4) - 1: one positive and 2N - 2 = 4 negatives)"
    expect_close(got, torch.tensor(math.log(math.e + 4) - 1), call=result, hint=hint)


@check("loss.symmetric_mean", "The mean runs over all 2N anchors, so swapping the views changes nothing",
       clauses=["loss.mean_all_anchors"])
def symmetric_mean(sub, ref):
    z1, z2 = _views(4, 5, 3, noise=1.0)
    forward, backward = sub.nt_xent_loss.map([((z1, z2, 0.3), {}), ((z2, z1, 0.3), {})])
    _expect_loss(forward, ref, z1, z2, 0.3)
    expect_close(backward.unwrap(), forward.unwrap(), call=backward,
                 hint=f"(differs from {forward.call}: both directions must be in the mean)")


@check("loss.random_float64", "Random batches in float64 match the reference",
       clauses=["loss.precision"])
def random_float64(sub, ref):
    cases = [(_views(10 + i, n, d), t) for i, (n, d, t) in enumerate([(2, 3, 0.1), (4, 8, 0.5), (7, 5, 1.0),
                                                                         (16, 32, 0.07), (3, 1, 0.5)])]
    results = sub.nt_xent_loss.map([((z1, z2, t), {}) for (z1, z2), t in cases])
    for result, ((z1, z2), t) in zip(results, cases, strict=True):
        _expect_loss(result, ref, z1, z2, t)


@check("loss.random_float32", "Random batches in float32 match the exact loss to float32 precision",
       clauses=["loss.precision"])
def random_float32(sub, ref):
    cases = [(_views(20 + i, n, d, torch.float32), t) for i, (n, d, t) in enumerate([(2, 3, 0.1), (5, 8, 0.5),
                                                                                       (12, 16, 0.07)])]
    results = sub.nt_xent_loss.map([((z1, z2, t), {}) for (z1, z2), t in cases])
    for result, ((z1, z2), t) in zip(results, cases, strict=True):
        _expect_loss(result, ref, z1, z2, t)


@check("loss.normalisation_invariance", "Rescaling any row by a positive factor leaves the loss unchanged",
       clauses=["loss.normalise"])
def normalisation_invariance(sub, ref):
    z1, z2 = _views(5, 4, 6)
    generator = torch.Generator().manual_seed(6)
    scale1 = torch.exp(3 * torch.randn(4, 1, generator=generator, dtype=torch.float64))  # factors ~ e^{+-3}
    scale2 = torch.exp(3 * torch.randn(4, 1, generator=generator, dtype=torch.float64))
    plain, scaled = sub.nt_xent_loss.map([((z1, z2, 0.5), {}), ((z1 * scale1, z2 * scale2, 0.5), {})])
    _expect_loss(plain, ref, z1, z2, 0.5)
    expect_close(scaled.unwrap(), plain.unwrap(), call=scaled,
                 hint="(cosine similarity ignores length: normalise every row before the dot products)")


@check("loss.zero_and_tiny_rows", "Rows are divided by max(norm, 1e-12): zero rows stay zero, tiny rows shrink",
       clauses=["loss.normalise"])
def zero_and_tiny_rows(sub, ref):
    # A zero row has cosine 0 with everything. A row of norm 1e-13 becomes a row of norm 1e-13 / 1e-12 = 0.1,
    # not a unit row and not 1e-13 / (1e-13 + 1e-12) ~ 0.09.
    z1, z2 = _views(7, 3, 4)
    z1[0] = 0.0
    z2[1] = torch.tensor([1e-13, 0.0, 0.0, 0.0], dtype=torch.float64)
    result = sub.nt_xent_loss.call(z1, z2, 0.1)
    _expect_loss(result, ref, z1, z2, 0.1, hint="(divide each row by max(norm, 1e-12): clamp the norm, do not "
                 "add 1e-12 to it)")


@check("loss.temperature", "The cosines are divided by the temperature (int temperatures accepted)",
       clauses=["loss.temperature", "validation.temperature_type"])
def temperature(sub, ref):
    z1, z2 = _views(8, 4, 5)
    temperatures = [0.07, 0.2, 1.0, 5.0, 2]
    results = sub.nt_xent_loss.map([((z1, z2, t), {}) for t in temperatures])
    for result, t in zip(results, temperatures, strict=True):
        _expect_loss(result, ref, z1, z2, t)


@check("loss.small_temperature_float32", "Stable at T = 0.01 in float32 (logits near 100 overflow exp)",
       clauses=["loss.stable"])
def small_temperature_float32(sub, ref):
    # All eight views lie close to one direction, so every cosine is near 1 and every logit near 1 / T = 100:
    # exp(100) is beyond float32's largest value (about e^88.7), so log(sum(exp(...))) without subtracting the
    # row's maximum gives inf or nan. The cosines still differ by about T, so the loss is of order 1.
    generator = torch.Generator().manual_seed(9)
    direction = torch.randn(1, 8, generator=generator, dtype=torch.float64)
    z1 = direction + 0.1 * torch.randn(4, 8, generator=generator, dtype=torch.float64)
    z2 = z1 + 0.05 * torch.randn(4, 8, generator=generator, dtype=torch.float64)
    z1, z2 = z1.float(), z2.float()
    for t in (0.01, 0.005):
        result = sub.nt_xent_loss.call(z1, z2, t)
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=torch.float32, call=result)
        expect(bool(torch.isfinite(got)), f"{result.call} returned {float(got)}; use a stable logsumexp "
               "(torch.logsumexp subtracts each row's maximum before exponentiating)")
        _expect_loss(result, ref, z1, z2, t)


@check("loss.strided_views", "Non-contiguous views, a stride-0 expand and views sharing storage",
       clauses=["inputs.strided"])
def strided_views(sub, ref):
    generator = torch.Generator().manual_seed(11)
    base = torch.randn(6, 8, generator=generator, dtype=torch.float64)
    cases = [
        (base[:3, ::2], base[3:, 1::2]),  # every other column of one storage
        (base[:4, :3].T, base[:4, 3:6].T),  # transposed slices: column-major [3, 4]
        (base[0].expand(3, 8), base[1:4]),  # three identical rows with stride 0
    ]
    results = sub.nt_xent_loss.map([((z1, z2, 0.4), {}) for z1, z2 in cases])
    for result, (z1, z2) in zip(results, cases, strict=True):
        _expect_loss(result, ref, z1, z2, 0.4, hint="(use operations that accept any strides, e.g. torch.cat "
                     "and reshape rather than view)")


@check("loss.inputs_unchanged", "z1 and z2 are left unchanged and the result has its own storage",
       clauses=["inputs.unchanged"])
def inputs_unchanged(sub, ref):
    z1, z2 = _views(12, 4, 3, torch.float32, noise=1.0)
    result = sub.nt_xent_loss.call(z1 * 3, z2 * 3, 0.5)
    expect_unchanged(result)
    expect_no_alias(result)


# ---------------------------------------------------------------------------------------------- gradients


def _reference_grads(ref, z1, z2, temperature):
    a = z1.detach().double().requires_grad_()
    b = z2.detach().double().requires_grad_()
    ref.nt_xent_loss(a, b, temperature).backward()
    return a.grad.to(z1.dtype), b.grad.to(z2.dtype)


def _expect_both_grads(result, ref, z1, z2, temperature, *, rtol=None, atol=None):
    result.unwrap()
    for name in ("z1", "z2"):
        if result.grads.get(name) is None:
            fail(f"after backward() on {result.call}, {name}.grad is None: in SimCLR both views come from the "
                 f"same encoder and both are trained, so gradients must flow into z1 and z2 (unlike MoCo, do "
                 f"not detach either view)")
    expected1, expected2 = _reference_grads(ref, z1, z2, temperature)
    expect_grad_close(result, "z1", expected1, rtol=rtol, atol=atol)
    expect_grad_close(result, "z2", expected2, rtol=rtol, atol=atol)


@check("gradients.both_views", "Gradients flow into both z1 and z2 and match the reference (float64)",
       clauses=["gradients.both_views"])
def both_views(sub, ref):
    z1, z2 = _views(13, 5, 4)
    z1.requires_grad_()
    z2.requires_grad_()
    result = sub.nt_xent_loss.call(z1, z2, 0.3, grads=("z1", "z2"))
    _expect_both_grads(result, ref, z1, z2, 0.3)


@check("gradients.finite_differences", "Autograd gradients agree with central finite differences",
       clauses=["gradients.both_views"])
def finite_differences(sub, ref):
    # Central differences with step 1e-6 in float64: truncation error ~ 1e-12 * f''', rounding ~ 1e-16 / 1e-6.
    z1, z2 = _views(14, 3, 4)
    args = (z1, z2, 0.5)
    numeric = [central_differences(sub.nt_xent_loss, args, position) for position in (0, 1)]
    a, b = z1.clone().requires_grad_(), z2.clone().requires_grad_()
    result = sub.nt_xent_loss.call(a, b, 0.5, grads=("z1", "z2"))
    result.unwrap()
    for name, expected in zip(("z1", "z2"), numeric, strict=True):
        if result.grads.get(name) is None:
            fail(f"after backward() on {result.call}, {name}.grad is None, but the loss changes when {name} "
                 f"changes (finite differences give {expected.abs().max():.3g} at most): keep {name} in the graph")
        expect_grad_close(result, name, expected, rtol=1e-5, atol=1e-8, source="central finite differences")


@check("gradients.float32", "Gradients in float32 match the exact ones to float32 precision",
       clauses=["gradients.both_views", "loss.precision"])
def gradients_float32(sub, ref):
    z1, z2 = _views(15, 6, 5, torch.float32)
    z1.requires_grad_()
    z2.requires_grad_()
    result = sub.nt_xent_loss.call(z1, z2, 0.2, grads=("z1", "z2"))
    rtol, atol = _tolerances(torch.float32, 0.2)
    _expect_both_grads(result, ref, z1, z2, 0.2, rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------------------------- contract


@check("contract.scalar_result", "The result is a 0-d tensor of the inputs' dtype, attached to the graph",
       clauses=["result.kind"])
def scalar_result(sub, ref):
    for dtype in (torch.float32, torch.float64):
        z1, z2 = _views(16, 3, 4, dtype)
        result = sub.nt_xent_loss.call(z1.requires_grad_(), z2.requires_grad_(), 0.5)
        expect_tensor(result.unwrap(), shape=(), dtype=dtype, requires_grad=True, call=result)


@check("contract.temperature_type", "A temperature that is not a Python int or float raises TypeError",
       clauses=["validation.temperature_type"])
def temperature_type(sub, ref):
    z1, z2 = _views(17, 2, 3)
    for bad in (True, False, torch.tensor(0.5), "0.5", None):
        expect_raises("TypeError", sub.nt_xent_loss, z1, z2, bad)


@check("contract.temperature_range", "A temperature <= 0, nan or infinite raises ValueError",
       clauses=["validation.temperature_range"])
def temperature_range(sub, ref):
    z1, z2 = _views(18, 2, 3)
    for bad in (0, 0.0, -0.5, float("nan"), float("inf"), float("-inf")):
        expect_raises("ValueError", sub.nt_xent_loss, z1, z2, bad)


@check("contract.invalid_views", "Malformed z1 / z2 raise TypeError or ValueError",
       clauses=["validation.views"])
def invalid_views(sub, ref):
    z1, z2 = _views(19, 3, 4)
    bad_pairs = [
        ([[1.0, 0.0]], [[0.0, 1.0]]),  # not tensors
        (z1[0], z2[0]),  # 1-D
        (z1[None], z2[None]),  # 3-D
        (z1, z2[:2]),  # different N
        (z1, z2[:, :3]),  # different D
        (z1[:0], z2[:0]),  # N = 0
        (z1[:, :0], z2[:, :0]),  # D = 0
        (z1.long(), z2.long()),  # integer dtype
        (z1.half(), z2.half()),  # float16 is outside the contract
        (z1.float(), z2),  # float32 with float64
        (z1.masked_fill(z1 > 1, float("nan")), z2),  # nan
        (z1, z2.masked_fill(z2 > 1, float("inf"))),  # inf
    ]
    for a, b in bad_pairs:
        expect_raises(("TypeError", "ValueError"), sub.nt_xent_loss, a, b, 0.5)


# --------------------------------------------------------------------------------------------- experiment


@check("experiment.batch_size", "Experiment: the same views cost more as the batch grows")
def batch_size(sub, ref, ctx):
    # Unrelated views (an untrained encoder) give every candidate about the same logit, so each anchor's loss
    # is about log(number of candidates) = log(2N - 1). Correlated views (cosine about 0.7 between partners,
    # a partly trained encoder) are equally good at every N, yet their loss grows too: the batch size sets
    # the number of negatives, and with it the loss scale.
    sizes = [1, 2, 4, 8, 16, 32, 64]
    unrelated = [_views(100 + n, n, 64, noise=50.0) for n in sizes]
    correlated = [_views(200 + n, n, 64, noise=1.0) for n in sizes]
    calls = [((z1, z2, 1.0), {}) for z1, z2 in unrelated] + [((z1, z2, 0.2), {}) for z1, z2 in correlated]
    values = [float(result.unwrap()) for result in sub.nt_xent_loss.map(calls)]
    ctx.record_experiment(
        x_label="batch size N",
        steps=sizes,
        series={
            "unrelated": values[: len(sizes)],  # loss of unrelated views at T = 1
            "chance": [math.log(2 * n - 1) for n in sizes],  # log(number of candidates)
            "correlated": values[len(sizes):],  # loss of correlated views at T = 0.2
            "negatives": [float(2 * n - 2) for n in sizes],
        },
    )
