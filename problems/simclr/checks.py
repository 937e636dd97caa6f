"""Check battery for the SimCLR NT-Xent loss.

The declared contract (problem.toml) makes the generic battery: values against the reference at every size,
dtypes, layouts, inputs left unchanged, gradients into both views, refusals. The hand checks here are what it
cannot state: hand examples, the partner rule and the N = 1 case, invariances, stability at small temperatures.
Groups: `loss` and `contract` are required; `experiment` is advisory (it records the batch-size chart for the
notes). Every random input comes from a seeded generator, so two runs give identical verdicts.
"""

import math

import torch

from grader.checks import check, expect, expect_close, expect_tensor, tolerance

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
