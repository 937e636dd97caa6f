"""Check battery for cross-entropy with label smoothing.

The contract in problem.toml gives the generic battery (`contract.*`: values, edges, dtypes, layouts, autograd,
refusals, the property search); these hand checks add what it cannot state: the hand example, the epsilon / C
convention, negative ignore_index values, batches with no row that counts, logits of 1e4 and the defaults.
Groups: `loss`, `gradients` and `contract` are required; `experiment` is advisory (it records the confidence
chart for the notes). Every random input comes from a seeded generator.
"""

import math

import torch

from grader.checks import check, expect, expect_close, expect_tensor, fail, legal_inputs

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


@legal_inputs("smoothed_cross_entropy")
def _some_rows_ignored(args, sizes):
    """The contract draws ignore_index among the classes: every third row is set to it and the others are moved
    off it where another class exists, so a drawn batch has rows that must not count and (for C > 1 and N > 1)
    rows that do, rather than whatever the draw happens to give (a batch where every row is ignored)."""
    target, ignore = args["target"], args["ignore_index"]
    target[target == ignore] = (ignore + 1) % sizes["C"]
    target[::3] = ignore
    return args


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


# ---------------------------------------------------------------------------------------------- gradients


@check("gradients.all_ignored", "With every row ignored the loss stays on the graph and its gradient is zero, "
       "never NaN", clauses=["all_ignored"])
def gradients_all_ignored(sub, ref):
    logits, _ = _batch(74, 3, 4)
    result = sub.smoothed_cross_entropy.call(logits.clone().requires_grad_(), torch.full((3,), -100), 0.1,
                                             grads=("logits",))
    result.unwrap()
    grad = result.grads.get("logits")
    if grad is None:
        fail(f"backward() on the result of {result.call} gave logits no gradient "
             f"({result.backward_error or 'the loss does not reach the logits'}): a batch of pure padding would "
             "stop a training loop; compute the 0.0 from the logits (the masked sum over max(count, 1)) instead of "
             "returning a new zero")
    expect(bool(torch.isfinite(grad).all()), f"after backward() on {result.call}, logits.grad contains NaN: "
           "0 / 0 in the mean sends NaN backwards; divide by max(count, 1)")
    expect_close(grad, torch.zeros_like(grad), what="logits.grad", call=result,
                 hint="(no row counts, so no gradient reaches the logits)")


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
