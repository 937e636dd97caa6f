"""Check battery for the CLIP loss.

The declared contract (problem.toml) makes the generic battery: values against the reference at every size,
dtypes, layouts, inputs left unchanged, gradients into all three arguments, refusals. The hand checks here are
what it cannot state: hand examples, the diagonal labels, invariances, the clip at 100 and its zero gradient,
stability at the largest scale. Groups: `loss`, `scale`, `gradients` and `contract` are required; `experiment`
is advisory (it records the loss and its gradient against logit_scale for the notes). Every random input comes
from a seeded generator, so two runs agree.
"""

import math

import torch

from grader.checks import (
    check,
    expect,
    expect_close,
    expect_grad_close,
    expect_tensor,
    expect_unchanged,
    fail,
    reference_grads,
    tolerance,
)

F32, F64 = torch.float32, torch.float64
FLOAT32_EPS = torch.finfo(F32).eps
LOG_100 = math.log(100.0)
NAMES = ("image_embeddings", "text_embeddings", "logit_scale")


# ------------------------------------------------------------------------------------------------ inputs


def _randn(seed, *shape, dtype=F64):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=generator, dtype=F64).to(dtype)


def _pairs(seed, n, d, dtype=F64, *, noise=1.0):
    """Images and captions that match partly (the texts are the images plus noise), rows of varied length:
    the diagonal is favoured but not certain, and the two directions give different losses."""
    generator = torch.Generator().manual_seed(seed)
    images = torch.randn(n, d, generator=generator, dtype=F64)
    texts = images + noise * torch.randn(n, d, generator=generator, dtype=F64)
    images = images * torch.exp(torch.randn(n, 1, generator=generator, dtype=F64))
    return images.to(dtype), (2 * texts).to(dtype)


def _s(value, dtype=F64):
    return torch.tensor(value, dtype=dtype)


def _tolerances(dtype, logit_scale):
    """(rtol, atol). Every logit is a cosine times the scale, rounded to about eps * scale, and the loss is a
    difference of such numbers; a correct float32 implementation stays within a few eps32 * scale of the exact
    loss. 32 * eps32 * scale admits any order of operations while every mutant is off by far more."""
    rtol, atol = tolerance(dtype)
    if dtype == F32:
        scale = min(math.exp(float(logit_scale)), 100.0)
        atol = max(1e-5, 32 * FLOAT32_EPS * scale)
        rtol = 1e-5
    return rtol, atol


def _exact(ref, images, texts, logit_scale):
    return ref.clip_loss(images.detach().double(), texts.detach().double(), logit_scale.detach().double()).to(
        images.dtype)


def _expect_loss(result, ref, images, texts, logit_scale, *, hint=""):
    got = result.unwrap()
    expected = _exact(ref, images, texts, logit_scale)
    expect_tensor(got, shape=(), dtype=images.dtype, call=result)
    rtol, atol = _tolerances(images.dtype, logit_scale)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------- loss

HAND_IMAGES = torch.tensor([[2.0, 0.0], [0.0, 3.0], [1.0, 1.0]])
HAND_TEXTS = torch.tensor([[1.0, 0.0], [1.0, 1.0], [-1.0, 1.0]])


def _hand_expected():
    """The unit rows are images [1, 0], [0, 1], [c, c] and texts [1, 0], [c, c], [-c, c] with c = 1/sqrt 2, so at
    scale 2 the logits are S = 2 [[1, c, -c], [0, c, c], [c, 1, 0]]. Each cross-entropy is log-sum-exp minus the
    diagonal entry: over the rows 0.4635, 0.8079, 2.5259 (mean 1.2657), over the columns 0.5259, 1.3341, 1.6783
    (mean 1.1794); the loss is their average, 1.2226."""
    c = 1 / math.sqrt(2)
    logits = [[2.0, 2 * c, -2 * c], [0.0, 2 * c, 2 * c], [2 * c, 2.0, 0.0]]

    def lse(values):
        return math.log(sum(math.exp(v) for v in values))

    rows = sum(lse(logits[i]) - logits[i][i] for i in range(3)) / 3
    columns = sum(lse([logits[k][j] for k in range(3)]) - logits[j][j] for j in range(3)) / 3
    return rows, columns


@check("loss.hand_example", "Hand example: three pairs at logit_scale = ln 2 (scale 2): the loss is 1.2226",
       clauses=["loss.formula", "loss.diagonal_labels", "loss.normalise", "scale.exp"])
def hand_example(sub, ref):
    rows, columns = _hand_expected()
    scale = torch.tensor(math.log(2.0))
    result = sub.clip_loss.call(HAND_IMAGES, HAND_TEXTS, scale)
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=F32, call=result)
    hint_text = f"(images -> texts gives {rows:.4f}, texts -> images {columns:.4f}; the loss is their average)"
    expect_close(got, torch.tensor((rows + columns) / 2), call=result, rtol=1e-5, atol=1e-6, hint=hint_text)


@check("loss.diagonal_labels", "Pair i is image i with text i: matching pairs give a small loss, reversed a large one",
       clauses=["loss.diagonal_labels"])
def diagonal_labels(sub, ref):
    # Three orthogonal images at scale 10. Captions equal to the images put e^10 on every diagonal entry: the
    # loss is log(1 + 2 e^-10). Reversed captions leave only pair 1 on the diagonal: rows 0 and 2 (and columns 0
    # and 2) cost log(2 + e^10) and row 1 log(1 + 2 e^-10), so the loss is their mean over the three.
    images = torch.eye(3, dtype=F64)
    s = _s(math.log(10.0))
    matched = math.log(1 + 2 * math.exp(-10.0))
    reversed_ = (2 * math.log(2 + math.exp(10.0)) + matched) / 3
    cases = [(images.clone(), matched), (images.flip(0), reversed_)]
    results = sub.clip_loss.map([((images, texts, s), {}) for texts, _ in cases])
    for result, (_, expected) in zip(results, cases, strict=True):
        got = result.unwrap()
        hint_text = "(the right answer of row i and of column i is entry (i, i), whichever text is most similar)"
        expect_close(got, torch.tensor(expected, dtype=F64), call=result, hint=hint_text)


@check("loss.single_pair", "N = 1: one candidate per softmax, so the loss is exactly 0",
       clauses=["loss.single_pair"])
def single_pair(sub, ref):
    for dtype in (F32, F64):
        images, texts = _pairs(1, 1, 4, dtype, noise=3.0)
        result = sub.clip_loss.call(images, texts, _s(2.0, dtype))
        _expect_loss(result, ref, images, texts, _s(2.0, dtype), hint="(with one pair, each softmax has a single "
                     "candidate, so each cross-entropy is 0)")


@check("loss.symmetric", "Swapping images and texts leaves the loss unchanged: both directions count",
       clauses=["loss.symmetric", "loss.formula"])
def symmetric(sub, ref):
    images, texts = _pairs(2, 5, 4)
    s = _s(1.5)
    forward, swapped = sub.clip_loss.map([((images, texts, s), {}), ((texts, images, s), {})])
    _expect_loss(forward, ref, images, texts, s)
    expect_close(swapped.unwrap(), forward.unwrap(), call=swapped,
                 hint=f"(differs from {forward.call}: the images -> texts and texts -> images cross-entropies are "
                      "averaged, so the loss cannot depend on which modality comes first)")


@check("loss.normalisation_invariance", "Rescaling any row by a positive factor changes nothing",
       clauses=["loss.normalise"])
def normalisation_invariance(sub, ref):
    images, texts = _pairs(30, 5, 4)
    s = _s(2.0)
    scaled = (images * torch.exp(3 * _randn(31, 5, 1)), texts * torch.exp(3 * _randn(32, 5, 1)))
    plain, rescaled = sub.clip_loss.map([((images, texts, s), {}), ((*scaled, s), {})])
    _expect_loss(plain, ref, images, texts, s)
    expect_close(rescaled.unwrap(), plain.unwrap(), call=rescaled,
                 hint="(CLIP compares cosines: normalise every row before the dot products)")


@check("loss.zero_and_tiny_rows", "Rows are divided by max(norm, 1e-12): zero rows give cosine 0, tiny rows shrink",
       clauses=["loss.normalise"])
def zero_and_tiny_rows(sub, ref):
    images, texts = _pairs(33, 4, 3)
    images[0] = 0.0
    texts[1] = 0.0
    images[2] = torch.tensor([1e-13, 0.0, 0.0], dtype=F64)
    s = _s(math.log(20.0))
    result = sub.clip_loss.call(images, texts, s)
    got = result.unwrap()
    expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got).all()),
           f"{result.call} returned {got}: a zero row must give cosine 0 (divide by max(norm, 1e-12)), not 0 / 0")
    _expect_loss(result, ref, images, texts, s, hint="(divide each row by max(norm, 1e-12): clamp the norm, do not "
                 "add 1e-12 to it)")


@check("loss.stable_at_scale_100", "Stable at scale 100 in float32, every cosine near 1 (e^100 overflows)",
       clauses=["loss.stable"])
def stable_at_scale_100(sub, ref):
    # Eight pairs close to one direction: every cosine is near 1, every logit near 100, and e^100 is beyond
    # float32's largest value (about e^88.7): log(sum(exp(...))) without a shift gives inf or nan.
    direction = _randn(40, 1, 8)
    images = (direction + 0.05 * _randn(41, 8, 8)).float()
    texts = (images.double() + 0.02 * _randn(42, 8, 8)).float()
    s = _s(LOG_100, F32)
    result = sub.clip_loss.call(images, texts, s)
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=F32, call=result)
    expect(bool(torch.isfinite(got)), f"{result.call} returned {float(got)}; use a stable log-sum-exp (subtract each "
           "row's maximum before exponentiating, as torch.logsumexp and F.cross_entropy do)")
    _expect_loss(result, ref, images, texts, s)


# ------------------------------------------------------------------------------------------------- scale


@check("scale.clamp", "Above ln 100 the scale stays 100: logit_scale = 200, 4.7, 6, 10, 50 give the loss at 100",
       clauses=["scale.clamp"])
def scale_clamp(sub, ref):
    images, texts = _pairs(51, 6, 5, noise=1.5)
    values = [200.0, 4.7, 6.0, 10.0, 50.0]  # 200 first: not clipped (e^200) and clipped at 100 (e^100) differ
    results = sub.clip_loss.map([((images, texts, _s(v)), {}) for v in values])
    for result, v in zip(results, values, strict=True):
        expect_unchanged(result, hint="(clip a copy of logit_scale, never logit_scale.clamp_(...) on the caller's "
                         "parameter)")
        _expect_loss(result, ref, images, texts, _s(v), hint=f"(exp({v:g}) = {math.exp(v):.4g} is above 100, so the "
                     "scale is 100: the paper clips it to keep training stable)")


# ---------------------------------------------------------------------------------------------- gradients


@check("gradients.above_the_clip", "Above the clip logit_scale's gradient is exactly 0, never nan, even in float32",
       clauses=["gradients.logit_scale", "scale.clamp"])
def gradients_above_the_clip(sub, ref):
    calls = []
    for dtype, value in ((F64, 6.0), (F64, 800.0), (F32, 50.0), (F32, 100.0)):
        images, texts = _pairs(65, 4, 3, dtype)
        calls.append(((images.requires_grad_(), texts.requires_grad_(), _s(value, dtype).requires_grad_()), {}))
    for result, (args, _) in zip(sub.clip_loss.map(calls, grads=NAMES), calls, strict=True):
        result.unwrap()
        grad = result.grads.get("logit_scale")
        if grad is None:
            fail(f"after backward() on {result.call}, logit_scale.grad is None: keep logit_scale in the graph (above "
                 "the clip its gradient is 0, but it must still be a tensor)")
        expect(bool(torch.isfinite(grad).all()),
               f"after backward() on {result.call}, logit_scale.grad is {float(grad)}: capping exp(logit_scale) after "
               "the exponential multiplies the cap's zero gradient by an overflowing exp (0 * inf = nan); cap "
               "logit_scale itself at ln 100 and then exponentiate")
        expect_close(grad, torch.zeros((), dtype=args[0].dtype), what="logit_scale.grad", call=result,
                     hint="(above ln 100 the scale is the constant 100, so the loss does not change with logit_scale)")
        expected = reference_grads(ref.clip_loss, args, NAMES[:2])
        for name in NAMES[:2]:  # the embeddings still learn, at scale 100
            expect_grad_close(result, name, expected[name], rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------------------------- experiment


SWEEP_SCALES = [1, 2, 3, 5, 7, 10, 14, 20, 30, 40, 55, 70, 85, 100, 120, 150, 200]


@check("experiment.scale_sweep", "Experiment: the loss and its gradient in logit_scale, for scales from 1 to 200")
def scale_sweep(sub, ref, ctx):
    # One batch of 16 partly matching pairs; your loss, and your gradient with respect to logit_scale, at
    # logit_scale = ln(scale) for the scales on the horizontal axis. Past scale 100 the clip holds the loss
    # constant and the gradient at 0.
    images, texts = _pairs(80, 16, 8, noise=0.6)
    calls = [((images, texts, _s(math.log(scale)).requires_grad_()), {}) for scale in SWEEP_SCALES]
    results = sub.clip_loss.map(calls, grads=("logit_scale",))
    losses, slopes = [], []
    for result in results:
        losses.append(float(expect_tensor(result.unwrap(), shape=(), call=result).detach()))
        grad = result.grads.get("logit_scale")
        slopes.append(float(grad) if grad is not None else math.nan)
    # The charts call their horizontal axis "step"; here each step is a scale, hence the series' names.
    ctx.record_experiment(x_label="logit scale", steps=SWEEP_SCALES, series={
        "loss_against_the_scale": losses,
        "gradient_in_logit_scale_against_the_scale": slopes,
    })
