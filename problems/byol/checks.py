"""Check battery for BYOL's loss and target update.

Groups: `loss` (hand examples, the normalisation), `update` (the moving average, exact at its ends) and
`contract` are required; `experiment` is advisory (it records the toy run for the notes). The contracts declared
in problem.toml make the rest: values against the reference, float32, layouts, gradients into the online branch
and none into the target, results in new storage without gradient, refusals. Every random input comes from a
seeded generator, so two runs agree.
"""

import math
from collections.abc import Callable
from typing import Any

import torch

from grader.checks import (
    Call,
    CheckFailed,
    WorkerLost,
    check,
    expect,
    expect_close,
    expect_equal,
    expect_tensor,
    fail,
    replay_agrees,
    tolerance,
)
from helpers import toy_calls, toy_start, toy_step

F32, F64 = torch.float32, torch.float64
# float32 losses are compared with the exact loss (float64 on the same inputs, rounded). Each cosine carries a
# rounding error of a few eps32 and the loss is 2 - 2 mean(cos), so any correct order of operations stays within
# ~1e-6 of the exact value; 1e-5 admits all of them while every mutant is off by more than 1e-2.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 1e-5


# ------------------------------------------------------------------------------------------------ inputs


def _randn(seed, *shape, dtype=F64):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=generator, dtype=F64).to(dtype)


def _pair(seed, n, d, dtype=F64, *, noise=0.7):
    """A prediction and a target that agree partly (cosines spread between about 0.3 and 0.95), rows of
    different lengths, so normalisation, the batch mean and the scale all show in the value."""
    generator = torch.Generator().manual_seed(seed)
    z = torch.randn(n, d, generator=generator, dtype=F64)
    p = (z + noise * torch.randn(n, d, generator=generator, dtype=F64)) * torch.exp(
        torch.randn(n, 1, generator=generator, dtype=F64))
    return p.to(dtype), (3 * z).to(dtype)


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == F32 else tolerance(F64)


def _exact(ref, p, z):
    return ref.byol_loss(p.detach().double(), z.detach().double()).to(p.dtype)


def _expect_loss(result, ref, p, z, *, hint=""):
    got = result.unwrap()
    expected = _exact(ref, p, z)
    expect_tensor(got, shape=(), dtype=p.dtype, call=result)
    rtol, atol = _tolerances(p.dtype)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------- loss

HAND_P = torch.tensor([[3.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0], [2.0, 0.0, 0.0]])
HAND_Z = torch.tensor([[5.0, 0.0, 0.0], [4.0, 0.0, 0.0], [-2.0, -2.0, 0.0], [0.5, 0.5 * math.sqrt(3.0), 0.0]])


@check("loss.hand_example", "Hand example: aligned, orthogonal, opposite and 60-degree rows give 0, 2, 4, 1: mean 1.75",
       clauses=["loss.formula", "loss.normalise", "loss.batch_mean"])
def hand_example(sub, ref):
    # After normalisation the four pairs are aligned (cos 1, loss 0), orthogonal (cos 0, loss 2), opposite
    # (cos -1, loss 4) and 60 degrees apart (cos 1/2, loss 1); the mean is 7/4. The rows have lengths 2 to 5, so
    # skipping normalisation shows, and the mutants' mistakes all give different values (1 - cos: 0.875, -2 cos:
    # -0.25, -cos: -0.125, the sum: 7, the mean over the D = 3 features too: 7/12).
    result = sub.byol_loss.call(HAND_P, HAND_Z)
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=F32, call=result)
    hint_text = "(the four rows have cosines 1, 0, -1 and 1/2, so the per-row losses 2 - 2 cos are 0, 2, 4 and " \
        "1, and their mean is 1.75)"
    expect_close(got, torch.tensor(1.75), call=result, rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL, hint=hint_text)


@check("loss.scale", "One pair at 60 degrees: 2 - 2 cos = 1, whatever the lengths",
       clauses=["loss.formula", "loss.normalise"])
def scale(sub, ref):
    # cos 60 = 1/2, so 2 - 2 cos = 1; 1 - cos would give 0.5 and the squared error of the raw rows 3.
    p = torch.tensor([[2.0, 0.0]], dtype=F64)
    z = torch.tensor([[0.5, 0.5 * math.sqrt(3.0)]], dtype=F64)
    result = sub.byol_loss.call(p, z)
    got = result.unwrap()
    hint_text = "(the rows are 60 degrees apart: 2 - 2 cos 60 = 1)"
    expect_close(got, torch.tensor(1.0, dtype=F64), call=result, hint=hint_text)


@check("loss.batch_mean", "The per-row losses are averaged over the batch, not summed",
       clauses=["loss.batch_mean"])
def batch_mean(sub, ref):
    # Repeating a batch four times leaves its mean unchanged and multiplies a sum by four.
    p, z = _pair(1, 3, 4)
    once, four_times = sub.byol_loss.map([((p, z), {}), ((p.repeat(4, 1), z.repeat(4, 1)), {})])
    _expect_loss(once, ref, p, z)
    expect_close(four_times.unwrap(), once.unwrap(), call=four_times,
                 hint=f"(differs from {once.call}: the loss is a mean over the rows, so repeating the batch "
                      "changes nothing)")


@check("loss.normalisation_invariance", "Rescaling any row of either input by a positive factor changes nothing",
       clauses=["loss.normalise"])
def normalisation_invariance(sub, ref):
    p, z = _pair(30, 5, 4)
    scale_p = torch.exp(3 * _randn(31, 5, 1))  # factors ~ e^{+-3}
    scale_z = torch.exp(3 * _randn(32, 5, 1))
    plain, scaled = sub.byol_loss.map([((p, z), {}), ((p * scale_p, z * scale_z), {})])
    _expect_loss(plain, ref, p, z)
    expect_close(scaled.unwrap(), plain.unwrap(), call=scaled,
                 hint="(the loss depends only on the directions: normalise every row before comparing)")


@check("loss.zero_and_tiny_rows", "Rows are divided by max(norm, 1e-12): a zero row costs 2, a tiny row shrinks",
       clauses=["loss.normalise"])
def zero_and_tiny_rows(sub, ref):
    # A zero row has cosine 0 with anything, so its loss is 2. A row of norm 1e-13 is divided by 1e-12 and
    # becomes a row of length 0.1: its cosine with a unit row is 0.1 cos, not cos (and not 1 / 1.1 cos).
    # The floor is on each row's norm, not on the product of the two: two aligned rows of norm 1e-7 are above
    # the floor, unit after normalisation, and cost 0 (flooring the product 1e-14 gives 2 - 2 * 0.01 = 1.98),
    # and a row of norm 1e-13 against a row of norm 5 has cosine 0.1 and costs 1.8 (the product 5e-13, floored
    # to 1e-12, gives cosine 0.5 and 1.0).
    p, z = _pair(33, 4, 3)
    p[0] = 0.0
    z[1] = 0.0
    p[2] = torch.tensor([1e-13, 0.0, 0.0], dtype=F64)
    z[2] = torch.tensor([1.0, 0.0, 0.0], dtype=F64)
    single = [(torch.tensor([[1e-7, 0.0]], dtype=F64), torch.tensor([[1e-7, 0.0]], dtype=F64), 0.0),
              (torch.tensor([[1e-13, 0.0]], dtype=F64), torch.tensor([[5.0, 0.0]], dtype=F64), 1.8)]
    results = sub.byol_loss.map([((p, z), {})] + [((sp, sz), {}) for sp, sz, _ in single])
    result = results[0]
    got = result.unwrap()
    expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got).all()),
           f"{result.call} returned {got}: a zero row must give cosine 0 (divide by max(norm, 1e-12)), not 0 / 0")
    _expect_loss(result, ref, p, z, hint="(divide each row by max(norm, 1e-12): clamp the norm, do not add "
                 "1e-12 to it; a zero row then costs exactly 2)")
    for result, (_, _, wanted) in zip(results[1:], single, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=F64, call=result)
        expect_close(got, torch.tensor(wanted, dtype=F64), call=result,
                     hint=f"(each row is divided by max(its own norm, 1e-12): here 2 - 2 * {1 - wanted / 2:g} = "
                          f"{wanted:g}; flooring the product of the two norms, <p, z> / max(||p|| ||z||, 1e-12), "
                          "instead changes the cosine of tiny rows)")


# ------------------------------------------------------------------------------------------------ update


def _expected_update(online, target, tau):
    """tau * target + (1 - tau) * online in float64, rounded to the inputs' dtype (independent of the reference)."""
    return (tau * target.detach().double() + (1 - tau) * online.detach().double()).to(online.dtype)


UPDATE_HINT = "(the target keeps the share tau of itself: tau * target_params + (1 - tau) * online_params, where " \
    "target_params is the second argument)"


def _update_hint(got, online, target, tau):
    if isinstance(got, torch.Tensor) and got.shape == online.shape and got.numel() and tau not in (0.5,):
        swapped = (tau * online.detach().double() + (1 - tau) * target.detach().double())
        if torch.allclose(got.detach().double(), swapped, rtol=1e-5, atol=1e-6):
            return ("(this is what you get when the weights are swapped: tau belongs to target_params, the second "
                    "argument, and 1 - tau to online_params)")
    return UPDATE_HINT


@check("update.formula", "tau * target + (1 - tau) * online for tau in {0.2, 0.9, 0.996}, int and float",
       clauses=["update.formula"])
def update_formula(sub, ref):
    calls = []
    for dtype in (F32, F64):
        online, target = _randn(60, 3, 4, dtype=dtype), _randn(61, 3, 4, dtype=dtype)
        calls += [((online, target, tau), {}) for tau in (0.2, 0.9, 0.996, 0.0, 1.0, 0, 1)]
    for result, ((online, target, tau), _) in zip(sub.target_update.map(calls), calls, strict=True):
        got = result.unwrap()
        expect_close(got, _expected_update(online, target, tau), call=result,
                     hint=_update_hint(got, online, target, tau))


@check("update.endpoints", "tau = 1 gives target_params and tau = 0 online_params exactly, in every shape",
       clauses=["update.endpoints"])
def update_endpoints(sub, ref):
    calls = []
    for dtype in (F32, F64):
        for shape in ((4, 3), (), (0, 2), (5,)):
            online, target = _randn(62, *shape, dtype=dtype), _randn(63, *shape, dtype=dtype)
            calls += [((online, target, tau), {}) for tau in (0.0, 0, 1.0, 1)]
    for result, ((online, target, tau), _) in zip(sub.target_update.map(calls), calls, strict=True):
        name, wanted = ("target_params", target) if tau == 1 else ("online_params", online)
        expect_equal(result.unwrap(), wanted, call=result,
                     hint=f"(at tau = {tau} the result is {name}, value for value, in new storage; "
                          "tau * target + (1 - tau) * online is exact at both ends, while target + (1 - tau) * "
                          "(online - target) rounds away from online at tau = 0)")


# --------------------------------------------------------------------------------------------- experiment


STEPS, LEARNING_RATE, TAU = 24, 2.0, 0.9


def _effective_rank(rows):
    """The participation ratio (sum s)^2 / sum s^2 of the unit rows' singular values s: D when the rows spread
    evenly over D directions, 1 when they all lie on one line (collapse)."""
    unit = rows / rows.norm(dim=1, keepdim=True).clamp_min(1e-12)
    values = torch.linalg.svdvals(unit)
    return float(values.sum() ** 2 / (values**2).sum())


@check("experiment.toy_run", "Experiment: a toy BYOL run, with and without the predictor and the moving average")
def toy_run(sub, ref, ctx):
    # Sixteen points in 6-D, two noisy views each step; a linear encoder W (6 -> 4) and a linear predictor P.
    # Run A is BYOL: predictor and target = moving average of W (tau = 0.9). Run B has neither: p = z and the
    # target is the online encoder itself (tau = 0), detached. Both use your byol_loss (its gradient into the
    # predictions drives SGD, chained through P and W here) and your target_update.
    series = run_in_one_request(sub)
    if series is None:
        series = toy_series(lambda calls: live_losses(sub, calls), lambda calls: live_targets(sub, calls))
    if series is not None:  # always, as the live calls fail the check rather than answer None
        ctx.record_experiment(steps=list(range(1, STEPS + 1)), series=series)


NAMES = ("BYOL", "no_predictor_no_EMA")  # the two runs of helpers.toy_start, in order
SEED = 150


def toy_series(losses: Callable[[list[Call]], list[Any] | None],
               targets: Callable[[list[Call]], list[Any] | None]) -> dict[str, list[float]] | None:
    """The chart's series: each step's four byol_loss calls answered by `losses` with (loss, gradient in the
    prediction), then each run's target_update by `targets` (None from either: no run to chart)."""
    generator, x, runs = toy_start(SEED, TAU)
    series: dict[str, list[float]] = {f"{kind}_{label}": [] for kind in ("effective_rank", "loss") for label in NAMES}
    for _ in range(STEPS):
        x1, x2, calls = toy_calls(runs, generator, x)
        answers = losses([(arguments, {}) for arguments in calls])
        if answers is None:
            return None
        for index, (run, name) in enumerate(zip(runs, NAMES, strict=True)):
            (first, g1), (second, g2) = answers[2 * index], answers[2 * index + 1]
            series[f"loss_{name}"].append(float(first) + float(second))
            toy_step(run, x1, x2, g1, g2, LEARNING_RATE)
        new_targets = targets([((run["w"], run["target"], run["tau"]), {}) for run in runs])
        if new_targets is None:
            return None
        for run, name, target in zip(runs, NAMES, new_targets, strict=True):
            run["target"] = target
            series[f"effective_rank_{name}"].append(_effective_rank(x @ run["w"]))
    return series


def live_losses(sub: Any, calls: list[Call]) -> list[Any]:
    """One step's calls, one request: your byol_loss's values and gradients (what it raised, or a gradient or value
    missing, fails the check)."""
    results = sub.byol_loss.map(calls, grads=("online_prediction",))
    answers = []
    for first, second in zip(results[::2], results[1::2], strict=True):
        g1, g2 = first.grads.get("online_prediction"), second.grads.get("online_prediction")
        if g1 is None or g2 is None:
            fail(f"after backward() on {first.call}, online_prediction.grad is None: the toy run needs it")
        losses = [expect_tensor(r.unwrap(), shape=(), call=r).detach() for r in (first, second)]
        answers += [(losses[0], g1), (losses[1], g2)]
    return answers


def live_targets(sub: Any, calls: list[Call]) -> list[Any]:
    return [expect_tensor(result.unwrap(), shape=(6, 4), dtype=F64, call=result)
            for result in sub.target_update.map(calls)]


def run_in_one_request(sub: Any) -> dict[str, list[float]] | None:
    """The series as toy_series with live_losses and live_targets makes them, in three requests instead of 48, or
    None.

    The worker runs both toy runs (helpers.toy_run, the same glue as toy_series's) and returns every call's loss
    and gradient and every new target. The judge takes them as the answers to its own steps, building each step's
    calls from its own states, then makes all those calls again, one request per function. Only when every answer
    is bit for bit the run's are these the series the live run gives: by induction from the seeded start, each
    step's calls get the same inputs and the same answers. Anything else (a run that raised or broke a limit, a
    record of the wrong form, a function that answers the same input differently) returns None, and the check
    runs the toy a step a request, messages and chart included."""
    try:
        run = sub.from_helpers("toy_run", uses=("byol_loss", "target_update")).call(SEED, STEPS, LEARNING_RATE, TAU)
    except (CheckFailed, WorkerLost):
        return None
    records = run.value if run.raised is None else None
    if not (isinstance(records, list) and len(records) == STEPS
            and all(isinstance(record, tuple | list) and len(record) == 2 for record in records)):
        return None
    steps = iter(records)
    step: list[Any] = []
    losses: list[tuple[Call, Any]] = []  # each call made, and the run's (loss, gradient) for it
    updates: list[tuple[Call, Any]] = []

    def recorded_losses(calls: list[Call]) -> list[Any] | None:
        step[:] = next(steps)
        answers = step[0]
        if not (isinstance(answers, list) and len(answers) == len(calls)
                and all(isinstance(pair, tuple | list) and len(pair) == 2 and isinstance(pair[0], torch.Tensor)
                        and pair[0].shape == () and isinstance(pair[1], torch.Tensor) for pair in answers)):
            return None
        losses.extend(zip(calls, answers, strict=True))
        return list(answers)

    def recorded_targets(calls: list[Call]) -> list[Any] | None:
        targets = step[1]
        if not (isinstance(targets, list) and len(targets) == len(calls)
                and all(isinstance(t, torch.Tensor) and t.shape == (6, 4) and t.dtype == F64 for t in targets)):
            return None
        updates.extend(zip(calls, targets, strict=True))
        return list(targets)

    try:
        series = toy_series(recorded_losses, recorded_targets)
        if series is None:
            return None
        losses_agree = replay_agrees(sub.byol_loss, losses, grads=("online_prediction",))
        targets_agree = replay_agrees(sub.target_update, updates)
    except (CheckFailed, WorkerLost):
        return None
    return series if losses_agree and targets_agree else None
