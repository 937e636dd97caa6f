"""Check battery for the CLIP loss.

Groups: `loss` (values), `scale` (the learned temperature: exponentiated, clipped at 100), `gradients` (into both
embeddings and logit_scale) and `contract` (result kind, refused arguments) are required; `experiment` is
advisory (it records the loss and its gradient against logit_scale for the notes). Every random input comes
from a seeded generator, so two runs agree.
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
    expect_rejected,
    expect_tensor,
    expect_unchanged,
    fail,
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


@check("loss.random_float64", "Random batches in float64 at several scales match the reference",
       clauses=["loss.formula", "loss.precision"])
def random_float64(sub, ref):
    cases = [(_pairs(10 + i, n, d), _s(s)) for i, (n, d, s) in enumerate(
        [(2, 3, 0.0), (4, 8, math.log(1 / 0.07)), (7, 5, 1.0), (16, 32, 3.0), (3, 1, -1.0)])]
    results = sub.clip_loss.map([((i, t, s), {}) for (i, t), s in cases])
    for result, ((images, texts), s) in zip(results, cases, strict=True):
        _expect_loss(result, ref, images, texts, s)


@check("loss.random_float32", "Random batches in float32 match the exact loss to float32 precision",
       clauses=["loss.precision"])
def random_float32(sub, ref):
    cases = [(_pairs(20 + i, n, d, F32), _s(s, F32)) for i, (n, d, s) in enumerate(
        [(2, 3, 0.5), (6, 8, math.log(1 / 0.07)), (12, 16, 4.0)])]
    results = sub.clip_loss.map([((i, t, s), {}) for (i, t), s in cases])
    for result, ((images, texts), s) in zip(results, cases, strict=True):
        _expect_loss(result, ref, images, texts, s)


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


@check("loss.inputs_unchanged", "The inputs are left unchanged and the result has its own storage",
       clauses=["loss.unchanged"])
def inputs_unchanged(sub, ref):
    images, texts = _pairs(43, 4, 3, F32)
    for args in ((3 * images, 3 * texts, _s(1.0, F32)),
                 (images.clone().requires_grad_(), texts.clone().requires_grad_(), _s(6.0, F32).requires_grad_())):
        result = sub.clip_loss.call(*args)
        expect_unchanged(result, hint="(normalise into new tensors, and clip a copy of logit_scale, never "
                         "logit_scale.clamp_(...) on the caller's parameter)")
        expect_no_alias(result)


@check("loss.strided_views", "Transposed, sliced and expanded inputs give the same loss as copies",
       clauses=["loss.strided"])
def strided_views(sub, ref):
    base = _randn(44, 6, 8)
    s = _s(2.5)
    cases = [
        (base[:3, ::2], base[3:, 1::2]),
        (base[:4, :3].T, base[:4, 3:6].T),
        (base[0].expand(3, 8), base[1:4]),
    ]
    results = sub.clip_loss.map([((i, t, s), {}) for i, t in cases])
    for result, (images, texts) in zip(results, cases, strict=True):
        _expect_loss(result, ref, images, texts, s, hint="(use operations that accept any strides: matmul, arithmetic "
                     "and reshape rather than view)")


# ------------------------------------------------------------------------------------------------- scale


@check("scale.exp", "The logits are multiplied by exp(logit_scale), for logit_scale from -2 to 4",
       clauses=["scale.exp"])
def scale_exp(sub, ref):
    images, texts = _pairs(50, 6, 5)
    values = [-2.0, -0.5, 1.0, math.log(1 / 0.07), 4.0]
    results = sub.clip_loss.map([((images, texts, _s(v)), {}) for v in values])
    for result, v in zip(results, values, strict=True):
        _expect_loss(result, ref, images, texts, _s(v), hint=f"(logit_scale = {v:.4g} is the log of the scale: the "
                     f"logits are exp({v:.4g}) = {math.exp(v):.4g} times the cosines)")


@check("scale.clamp", "Above ln 100 the scale stays 100: logit_scale = 200, 4.7, 6, 10, 50 give the loss at 100",
       clauses=["scale.clamp"])
def scale_clamp(sub, ref):
    images, texts = _pairs(51, 6, 5, noise=1.5)
    values = [200.0, 4.7, 6.0, 10.0, 50.0]  # 200 first: not clipped (e^200) and clipped at 100 (e^100) differ
    results = sub.clip_loss.map([((images, texts, _s(v)), {}) for v in values])
    for result, v in zip(results, values, strict=True):
        _expect_loss(result, ref, images, texts, _s(v), hint=f"(exp({v:g}) = {math.exp(v):.4g} is above 100, so the "
                     "scale is 100: the paper clips it to keep training stable)")


# ---------------------------------------------------------------------------------------------- gradients


def _reference_grads(ref, images, texts, logit_scale):
    leaves = [t.detach().double().requires_grad_() for t in (images, texts, logit_scale)]
    ref.clip_loss(*leaves).backward()
    return [leaf.grad.to(images.dtype) for leaf in leaves]


def _grad_call(images, texts, logit_scale):
    return (images.clone().requires_grad_(), texts.clone().requires_grad_(), logit_scale.clone().requires_grad_())


def _expect_grads(result, ref, images, texts, logit_scale, *, rtol=None, atol=None):
    result.unwrap()
    for name in NAMES:
        if result.grads.get(name) is None:
            why = ("logit_scale is learned with the encoders, so the loss must stay differentiable in it (no "
                   ".item(), float() or .detach() on it)") if name == "logit_scale" else (
                "CLIP trains both encoders, so gradients must reach both embeddings")
            fail(f"after backward() on {result.call}, {name}.grad is None: {why}")
    for name, expected in zip(NAMES, _reference_grads(ref, images, texts, logit_scale), strict=True):
        expect_grad_close(result, name, expected, rtol=rtol, atol=atol)


@check("gradients.reference", "Gradients into both embeddings and logit_scale match the reference (float64)",
       clauses=["gradients.embeddings", "gradients.logit_scale"])
def gradients_reference(sub, ref):
    cases = [(_pairs(60, 4, 3), _s(1.0)), (_pairs(61, 2, 5), _s(-0.5)), (_pairs(62, 6, 2), _s(3.0))]
    results = sub.clip_loss.map([(_grad_call(i, t, s), {}) for (i, t), s in cases], grads=NAMES)
    for result, ((images, texts), s) in zip(results, cases, strict=True):
        _expect_grads(result, ref, images, texts, s)


@check("gradients.finite_differences", "The gradients agree with central differences of your own function",
       clauses=["gradients.embeddings", "gradients.logit_scale"])
def gradients_finite_differences(sub, ref):
    # Central differences with step 1e-6 in float64: truncation ~1e-12 f''', rounding ~1e-16 / 1e-6.
    images, texts = _pairs(63, 3, 3)
    args = (images, texts, _s(1.2))
    numeric = [central_differences(sub.clip_loss, args, position) for position in range(3)]
    result = sub.clip_loss.call(*_grad_call(*args), grads=NAMES)
    result.unwrap()
    for name, expected in zip(NAMES, numeric, strict=True):
        if result.grads.get(name) is None:
            fail(f"after backward() on {result.call}, {name}.grad is None, but the loss changes when {name} changes "
                 f"(finite differences give {expected.abs().max():.3g} at most): keep {name} in the graph")
        expect_grad_close(result, name, expected, rtol=1e-5, atol=1e-8, source="central finite differences")


@check("gradients.float32", "The float32 gradients match the exact ones to float32 precision",
       clauses=["gradients.embeddings", "gradients.logit_scale", "loss.precision"])
def gradients_float32(sub, ref):
    images, texts = _pairs(64, 6, 5, F32)
    s = _s(math.log(1 / 0.07), F32)
    result = sub.clip_loss.call(*_grad_call(images, texts, s), grads=NAMES)
    _expect_grads(result, ref, images, texts, s, rtol=1e-4, atol=1e-4)


@check("gradients.above_the_clip", "Above the clip logit_scale's gradient is exactly 0, never nan, even in float32",
       clauses=["gradients.logit_scale", "scale.clamp"])
def gradients_above_the_clip(sub, ref):
    calls = []
    for dtype, value in ((F64, 6.0), (F64, 800.0), (F32, 50.0), (F32, 100.0)):
        images, texts = _pairs(65, 4, 3, dtype)
        calls.append((_grad_call(images, texts, _s(value, dtype)), {}))
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
        images, texts, _ = args
        _expect_grads(result, ref, images, texts, args[2], rtol=1e-4, atol=1e-5)


# ----------------------------------------------------------------------------------------------- contract


@check("contract.result", "The loss is a 0-d tensor of the inputs' dtype that requires grad when an input does",
       clauses=["result.kind"])
def result_kind(sub, ref):
    calls, wanted = [], []
    for dtype in (F32, F64):
        images, texts = _pairs(70, 3, 4, dtype)
        s = _s(1.0, dtype)
        calls += [((images.clone().requires_grad_(), texts, s), {}), ((images, texts.clone().requires_grad_(), s), {}),
                  ((images, texts, s.clone().requires_grad_()), {}), ((images, texts, s), {})]
        wanted += [(dtype, True), (dtype, True), (dtype, True), (dtype, False)]
    for result, (dtype, grad) in zip(sub.clip_loss.map(calls), wanted, strict=True):
        expect_tensor(result.unwrap(), shape=(), dtype=dtype, requires_grad=grad, call=result)


@check("contract.embeddings", "Malformed embeddings raise TypeError or ValueError", clauses=["validation.embeddings"])
def invalid_embeddings(sub, ref):
    images, texts = _pairs(71, 3, 4)
    s = _s(1.0)
    calls = [((i, t, s), {}, why) for i, t, why in [
        (images.tolist(), texts, "image_embeddings is a list, not a tensor"),
        (images, 1.0, "text_embeddings is a float, not a tensor"),
        (images[0], texts[0], "1-D inputs are not [N, D] batches"),
        (images[None], texts[None], "3-D inputs are not [N, D] batches"),
        (images, texts[:2], "3 images but 2 texts"),
        (images, texts[:, :3], "the feature sizes differ"),
        (images[:0], texts[:0], "N = 0 leaves nothing to classify"),
        (images[:, :0], texts[:, :0], "D = 0 has no direction"),
        (images.long(), texts.long(), "integer tensors are outside the contract"),
        (images.half(), texts.half(), "float16 is outside the contract"),
        (images.float(), texts, "image_embeddings is float32 while text_embeddings is float64"),
        (images.masked_fill(images > 1, math.nan), texts, "image_embeddings contains nan"),
        (images, texts.masked_fill(texts > 1, math.inf), "text_embeddings contains inf"),
        (images, texts.to("meta"), "text_embeddings is on another device"),
    ]]
    expect_rejected(("TypeError", "ValueError"), sub.clip_loss, calls)


@check("contract.logit_scale_type", "A logit_scale that is not a tensor, or has another dtype, raises TypeError",
       clauses=["validation.logit_scale"])
def logit_scale_type(sub, ref):
    images, texts = _pairs(72, 3, 4)
    calls = [((images, texts, bad), {}, why) for bad, why in [
        (2.0, "a Python float is not a learnable parameter: pass a 0-d tensor"),
        (2, "a Python int is not a 0-d tensor"),
        (None, "None is not a tensor"),
        (torch.tensor(2.0, dtype=F32), "logit_scale is float32 while the embeddings are float64"),
        (torch.tensor(2), "an integer tensor is not a float logit_scale"),
    ]]
    expect_rejected("TypeError", sub.clip_loss, calls)


@check("contract.logit_scale_value", "A logit_scale that is not 0-d, not finite or elsewhere raises ValueError",
       clauses=["validation.logit_scale"])
def logit_scale_value(sub, ref):
    images, texts = _pairs(73, 3, 4)
    calls = [((images, texts, bad), {}, why) for bad, why in [
        (torch.tensor([2.0], dtype=F64), "a [1] tensor is not 0-d"),
        (torch.full((3,), 2.0, dtype=F64), "a [3] tensor would give each row its own scale"),
        (_s(math.nan), "logit_scale is nan"),
        (_s(math.inf), "logit_scale is inf"),
        (_s(-math.inf), "logit_scale is -inf"),
        (_s(1.0).to("meta"), "logit_scale is on another device"),
    ]]
    expect_rejected("ValueError", sub.clip_loss, calls)


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
