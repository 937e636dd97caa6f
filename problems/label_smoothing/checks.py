"""Check battery for cross-entropy with label smoothing.

Groups: `loss` (values), `gradients` and `contract` are required; `experiment` is advisory (it records the
confidence chart for the notes). Every check names the clauses of problem.toml it tests, and every random
input comes from a seeded generator.
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
)

FLOAT32_EPS = torch.finfo(torch.float32).eps

# ------------------------------------------------------------------------------------------------ inputs


def _batch(seed, n, c, dtype=torch.float64, *, scale=2.0, ignored=0.0, ignore_index=-100):
    """Logits with some spread and targets, a fraction `ignored` of them set to ignore_index."""
    generator = torch.Generator().manual_seed(seed)
    logits = scale * torch.randn(n, c, generator=generator, dtype=torch.float64)
    target = torch.randint(0, c, (n,), generator=generator)
    drop = torch.rand(n, generator=generator) < ignored
    target = torch.where(drop, torch.full_like(target, ignore_index), target)
    return logits.to(dtype), target


def _exact(ref, logits, target, *args, **kwargs):
    """The loss computed in float64 from the same inputs, rounded to the logits' dtype."""
    return ref.smoothed_cross_entropy(logits.detach().double(), target, *args, **kwargs).to(logits.dtype)


def _tolerances(logits):
    """(rtol, atol). In float32 each log-probability carries a rounding error of about eps32 times the size
    of the logits (the log-sum-exp is of that size), and the loss averages such terms: 16 * eps32 * (1 +
    max |logit|) admits any order of operations; every mutant is off by >= 1e-2 here."""
    if logits.dtype == torch.float64:
        return 1e-7, 1e-9
    size = float(logits.detach().abs().max()) if logits.numel() else 0.0
    return 1e-5, 16 * FLOAT32_EPS * (1 + size)


def _expect_loss(result, ref, logits, target, epsilon=0.1, ignore_index=-100, *, hint=""):
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=logits.dtype, call=result)
    expected = _exact(ref, logits, target, epsilon, ignore_index)
    if not torch.isfinite(got).all():
        fail(f"{result.call} returned {float(got)}; "
             f"{hint or 'use a stable log-softmax (subtract each row log-sum-exp), and divide by at least 1'}")
    rtol, atol = _tolerances(logits)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------- values

HAND_LOGITS = torch.tensor([[math.log(6.0), 0.0, 0.0, 0.0], [5.0, -3.0, 2.0, 0.0]], dtype=torch.float64)
HAND_TARGET = torch.tensor([0, -100])


@check("loss.hand_example", "Hand example: p = [2/3, 1/9, 1/9, 1/9], one ignored row, epsilon = 0.1",
       clauses=["formula", "convention", "ignore"])
def hand_example(sub, ref):
    # -log p_y = ln 1.5; the mean of -log p_c over 4 classes is (ln 1.5 + 3 ln 9) / 4; the loss is
    # 0.9 ln 1.5 + 0.1 (ln 1.5 + 3 ln 9) / 4 = 0.53985, and the ignored second row does not count.
    result = sub.smoothed_cross_entropy.call(HAND_LOGITS, HAND_TARGET, 0.1, -100)
    expected = 0.9 * math.log(1.5) + 0.1 * (math.log(1.5) + 3 * math.log(9)) / 4
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=torch.float64, call=result)
    hint = "(0.9 ln 1.5 + 0.1 (ln 1.5 + 3 ln 9) / 4 = 0.5398; the row with target -100 is ignored)"
    expect_close(got, torch.tensor(expected, dtype=torch.float64), call=result, hint=hint)


@check("loss.convention_two_classes", "epsilon / C on every class: with C = 2 and epsilon = 0.2 the target is "
       "[0.9, 0.1]", clauses=["convention"])
def convention_two_classes(sub, ref):
    # logits [0, 0]: p = [1/2, 1/2] and every target distribution gives ln 2. logits [2, 0]: the loss is
    # -(0.9 log p0 + 0.1 log p1); the (C - 1) convention would use [0.8, 0.2].
    logits = torch.tensor([[0.0, 0.0], [2.0, 0.0]], dtype=torch.float64)
    target = torch.tensor([0, 0])
    result = sub.smoothed_cross_entropy.call(logits, target, 0.2, -100)
    _expect_loss(result, ref, logits, target, 0.2, hint="(the true class gets 1 - epsilon + epsilon / C = 0.9, "
                 "the other epsilon / C = 0.1)")


@check("loss.epsilon_endpoints", "epsilon = 0 is plain cross-entropy; epsilon = 1 is cross-entropy with the "
       "uniform distribution", clauses=["formula"])
def epsilon_endpoints(sub, ref):
    logits, target = _batch(1, 6, 5)
    cases = [0, 0.0, 1, 1.0, 0.5]
    results = sub.smoothed_cross_entropy.map([((logits, target, eps), {}) for eps in cases])
    for result, eps in zip(results, cases, strict=True):
        _expect_loss(result, ref, logits, target, eps)


@check("loss.random_float64", "Random batches in float64 (C = 1 to 50, various epsilon) match the reference",
       clauses=["formula", "ignore"])
def random_float64(sub, ref):
    specs = [(4, 3, 0.1, 0.0), (16, 10, 0.2, 0.3), (5, 1, 0.1, 0.0), (9, 50, 0.05, 0.5), (1, 7, 0.9, 0.0)]
    cases = [(*_batch(10 + i, n, c, ignored=p), eps) for i, (n, c, eps, p) in enumerate(specs)]
    results = sub.smoothed_cross_entropy.map([((z, t, eps), {}) for z, t, eps in cases])
    for result, (z, t, eps) in zip(results, cases, strict=True):
        _expect_loss(result, ref, z, t, eps)


@check("loss.random_float32", "Random batches in float32 match the exact loss to float32 precision",
       clauses=["formula"])
def random_float32(sub, ref):
    cases = [_batch(20 + i, n, c, torch.float32, ignored=0.2) for i, (n, c) in enumerate([(8, 5), (32, 100)])]
    results = sub.smoothed_cross_entropy.map([((z, t, 0.1), {}) for z, t in cases])
    for result, (z, t) in zip(results, cases, strict=True):
        _expect_loss(result, ref, z, t, 0.1)


@check("loss.ignore_index", "Rows whose target is ignore_index are left out of the sum and of the count",
       clauses=["ignore"])
def ignore_index(sub, ref):
    logits, target = _batch(30, 8, 4, ignored=0.4)
    custom = torch.where(target == -100, torch.full_like(target, -1), target)
    as_class = torch.tensor([0, 1, 2, 3, 2, 2, 1, 0])  # ignore_index = 2 is also a valid class
    calls = [((logits, target, 0.1, -100), {}), ((logits, custom, 0.1, -1), {}), ((logits, as_class, 0.1, 2), {})]
    results = sub.smoothed_cross_entropy.map(calls)
    for result, ((z, t, eps, ignore), _) in zip(results, calls, strict=True):
        _expect_loss(result, ref, z, t, eps, ignore, hint=f"(rows with target {ignore} do not count, not even "
                     "in the denominator)")


@check("loss.all_ignored", "Every row ignored, or N = 0: the loss is 0.0, not NaN", clauses=["all_ignored"])
def all_ignored(sub, ref):
    logits, _ = _batch(40, 3, 4)
    cases = [(logits, torch.full((3,), -100)), (logits[:0], torch.zeros(0, dtype=torch.int64)),
             (logits.float(), torch.full((3,), -100))]
    results = sub.smoothed_cross_entropy.map([((z, t), {}) for z, t in cases])
    for result, (z, _) in zip(results, cases, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=z.dtype, call=result)
        expect(bool(torch.isfinite(got)), f"{result.call} returned {float(got)} when no row counts: the mean of "
               "no rows is defined here as 0.0 (divide the sum by max(count, 1))")
        expect_close(got, torch.zeros((), dtype=z.dtype), call=result, hint="(no row counts, so the loss is 0.0)")


@check("loss.large_logits", "Stable for logits of +-1e4 in float32 and float64 (every class's log p counts)",
       clauses=["stable"])
def large_logits(sub, ref):
    # Row 0: logits [1e4, -1e4, 0] with target 0: -log p_0 = 0 to double precision, while the smoothing term
    # needs -log p_1 = 2e4 and -log p_2 = 1e4, which log(softmax) turns into log(0) = -inf.
    for dtype in (torch.float32, torch.float64):
        logits = torch.tensor([[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4], [1e4, 1e4, -1e4]], dtype=dtype)
        target = torch.tensor([0, 2, 1])
        result = sub.smoothed_cross_entropy.call(logits, target, 0.1)
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=dtype, call=result)
        expect(bool(torch.isfinite(got)), f"{result.call} returned {float(got)}: compute log p as z minus the "
               "row's log-sum-exp (torch.logsumexp or log_softmax), never log(softmax(z))")
        _expect_loss(result, ref, logits, target, 0.1)


@check("loss.defaults", "epsilon defaults to 0.1 and ignore_index to -100", clauses=["defaults"])
def defaults(sub, ref):
    logits, target = _batch(50, 6, 5, ignored=0.3)
    result = sub.smoothed_cross_entropy.call(logits, target)
    _expect_loss(result, ref, logits, target, 0.1, -100, hint="(the defaults are epsilon = 0.1, ignore_index = -100)")


@check("loss.strided", "Transposed and sliced logits and targets give the same loss", clauses=["shapes"])
def strided(sub, ref):
    generator = torch.Generator().manual_seed(60)
    base = 2 * torch.randn(6, 10, generator=generator, dtype=torch.float64)
    targets = torch.tensor([1, 0, 3, -100, 2, 5, 4, 1, 0, 2])
    cases = [(base.T, targets), (base[:, ::2], targets[:6] % 5), (base[1].expand(4, 10), targets[::3] % 10)]
    results = sub.smoothed_cross_entropy.map([((z, t), {}) for z, t in cases])
    for result, (z, t) in zip(results, cases, strict=True):
        _expect_loss(result, ref, z, t)


# ---------------------------------------------------------------------------------------------- gradients


def _reference_grad(ref, logits, target, *args):
    leaf = logits.detach().double().requires_grad_()
    ref.smoothed_cross_entropy(leaf, target, *args).backward()
    return leaf.grad.to(logits.dtype)


def _expect_grad(result, ref, logits, target, *args, rtol=None, atol=None):
    result.unwrap()
    if result.grads.get("logits") is None:
        fail(f"after backward() on {result.call}, logits.grad is None: keep the loss a tensor computed from "
             "logits (no .item(), .detach() or torch.no_grad())")
    expect_grad_close(result, "logits", _reference_grad(ref, logits, target, *args), rtol=rtol, atol=atol)


@check("gradients.reference", "Gradients into logits match the reference; ignored rows get exactly 0 (float64)",
       clauses=["gradients", "ignore"])
def gradients_reference(sub, ref):
    cases = [_batch(70, 6, 4, ignored=0.4), _batch(71, 3, 9)]
    calls = [((z.clone().requires_grad_(), t, 0.2), {}) for z, t in cases]
    results = sub.smoothed_cross_entropy.map(calls, grads=("logits",))
    for result, (z, t) in zip(results, cases, strict=True):
        _expect_grad(result, ref, z, t, 0.2)


@check("gradients.finite_differences", "Autograd agrees with central differences of your own function",
       clauses=["gradients"])
def gradients_finite_differences(sub, ref):
    # Step 1e-6 in float64: truncation ~1e-12 f''', rounding ~1e-16 / 1e-6.
    logits, target = _batch(72, 3, 4, ignored=0.3)
    numeric = central_differences(sub.smoothed_cross_entropy, (logits, target, 0.3), 0)
    result = sub.smoothed_cross_entropy.call(logits.clone().requires_grad_(), target, 0.3, grads=("logits",))
    result.unwrap()
    if result.grads.get("logits") is None:
        fail(f"after backward() on {result.call}, logits.grad is None, but the loss changes with the logits")
    expect_grad_close(result, "logits", numeric, rtol=1e-5, atol=1e-8, source="central finite differences")


@check("gradients.float32", "Gradients in float32 match the exact ones to float32 precision", clauses=["gradients"])
def gradients_float32(sub, ref):
    logits, target = _batch(73, 8, 6, torch.float32, ignored=0.25)
    result = sub.smoothed_cross_entropy.call(logits.clone().requires_grad_(), target, 0.1, grads=("logits",))
    _expect_grad(result, ref, logits, target, 0.1, rtol=1e-5, atol=1e-6)


@check("gradients.all_ignored", "With every row ignored the gradient is zero (or absent), never NaN",
       clauses=["all_ignored"])
def gradients_all_ignored(sub, ref):
    logits, _ = _batch(74, 3, 4)
    result = sub.smoothed_cross_entropy.call(logits.clone().requires_grad_(), torch.full((3,), -100), 0.1,
                                             grads=("logits",))
    result.unwrap()
    grad = result.grads.get("logits")
    if grad is not None:
        expect(bool(torch.isfinite(grad).all()), f"after backward() on {result.call}, logits.grad contains NaN: "
               "0 / 0 in the mean sends NaN backwards; divide by max(count, 1)")
        expect_close(grad, torch.zeros_like(grad), what="logits.grad", call=result,
                     hint="(no row counts, so no gradient reaches the logits)")


# ----------------------------------------------------------------------------------------------- contract


@check("contract.result", "The result is a 0-d tensor of the logits' dtype, attached to the graph",
       clauses=["result"])
def result_type(sub, ref):
    for dtype in (torch.float32, torch.float64):
        logits, target = _batch(80, 4, 3, dtype)
        result = sub.smoothed_cross_entropy.call(logits.requires_grad_(), target)
        expect_tensor(result.unwrap(), shape=(), dtype=dtype, requires_grad=True, call=result)


@check("contract.inputs_unchanged", "logits and target are left unchanged; the result has its own storage",
       clauses=["unchanged", "result"])
def inputs_unchanged(sub, ref):
    logits, target = _batch(81, 5, 4, torch.float32, ignored=0.3)
    result = sub.smoothed_cross_entropy.call(logits * 1, target.clone(), 0.1)
    expect_unchanged(result)
    expect_no_alias(result)


@check("contract.type_errors", "Wrong kinds of logits, target, epsilon and ignore_index raise TypeError",
       clauses=["type_errors"])
def type_errors(sub, ref):
    logits, target = _batch(90, 3, 4)
    calls = [
        ((logits.tolist(), target), {}, "logits is a list"),
        ((logits.long(), target), {}, "integer logits are outside the contract"),
        ((logits.half(), target), {}, "float16 is outside the contract"),
        ((logits, target.tolist()), {}, "target is a list"),
        ((logits, target.float()), {}, "target holds floats, not int64 class indices"),
        ((logits, target.int()), {}, "target is int32, not int64"),
        ((logits, target, True), {}, "epsilon is a bool"),
        ((logits, target, torch.tensor(0.1)), {}, "epsilon is a tensor"),
        ((logits, target, "0.1"), {}, "epsilon is a string"),
        ((logits, target, 0.1, -100.0), {}, "ignore_index is a float"),
        ((logits, target, 0.1, False), {}, "ignore_index is a bool"),
    ]
    expect_rejected("TypeError", sub.smoothed_cross_entropy, calls)


@check("contract.value_errors", "Bad shapes, out-of-range targets, non-finite logits and epsilon outside [0, 1] "
       "raise ValueError", clauses=["value_errors"])
def value_errors(sub, ref):
    logits, target = _batch(91, 3, 4)
    calls = [
        ((logits[0], target), {}, "1-D logits are not [N, C]"),
        ((logits[None], target), {}, "3-D logits are not [N, C]"),
        ((logits[:, :0], target), {}, "C = 0 leaves no class to predict"),
        ((logits, target[:2]), {}, "target has 2 entries for N = 3"),
        ((logits, torch.tensor([0, 4, 1])), {}, "target 4 is not a class of C = 4"),
        ((logits, torch.tensor([0, -1, 1])), {}, "target -1 is neither a class nor ignore_index"),
        ((logits.masked_fill(logits > 1, float("nan")), target), {}, "logits contain nan"),
        ((logits.masked_fill(logits > 1, float("inf")), target), {}, "logits contain inf"),
        ((logits, target, -0.1), {}, "epsilon is negative"),
        ((logits, target, 1.5), {}, "epsilon is above 1"),
        ((logits, target, float("nan")), {}, "epsilon is nan"),
    ]
    expect_rejected("ValueError", sub.smoothed_cross_entropy, calls)


# --------------------------------------------------------------------------------------------- experiment


@check("experiment.confidence", "Experiment: the loss against the margin of the true logit, with and without "
       "smoothing", clauses=["formula"])
def confidence(sub, ref, ctx):
    # Ten classes, logits [m, 0, ..., 0] with target 0. Without smoothing the loss log(1 + 9 e^-m) falls for
    # ever as m grows; with epsilon = 0.1 it has a minimum where p_y equals its target share 0.91, at
    # m = ln(0.91 / 0.01) = ln 91 = 4.51, and rises after it: over-confidence is penalised.
    margins = [float(m) for m in range(0, 13)]
    target = torch.tensor([0])
    rows = [torch.tensor([[m] + [0.0] * 9], dtype=torch.float64) for m in margins]
    calls = [((z, target, 0.0), {}) for z in rows] + [((z, target, 0.1), {}) for z in rows]
    values = [float(r.unwrap()) for r in sub.smoothed_cross_entropy.map(calls)]
    ctx.record_experiment(x_label="margin", steps=margins, series={"loss_without_smoothing": values[: len(margins)],
                                                 "loss_with_smoothing": values[len(margins):]})
