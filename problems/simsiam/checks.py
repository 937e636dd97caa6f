"""Check battery for the SimSiam loss.

The declared contract (problem.toml) makes the generic battery: values against the reference at every size,
dtypes, layouts, inputs left unchanged, gradients into p1 and p2 and none into z1 and z2 (the stop-gradient),
refusals. The hand checks here are what it cannot state: the hand example, the cross-view pairing, the values
at -1 and +1, invariances and the zero-row floor. Groups: `loss` and `contract` are required; `experiment` is
advisory (it records the stop-gradient experiment for the notes). Every random input comes from a seeded
generator, so two runs agree.
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
    expect_tensor,
    fail,
    replay_agrees,
    tolerance,
)
from helpers import toy_calls, toy_start, toy_step

F32, F64 = torch.float32, torch.float64
# float32 losses are compared with the exact loss (float64 on the same inputs, rounded). Each cosine carries a
# rounding error of a few eps32 and the loss is a mean of them, so any correct order of operations stays within
# ~1e-6 of the exact value; 1e-5 admits all of them while every mutant is off by more than 1e-2.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 1e-5


# ------------------------------------------------------------------------------------------------ inputs


def _randn(seed, *shape, dtype=F64):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=generator, dtype=F64).to(dtype)


def _views(seed, n, d, dtype=F64, *, noise=0.8):
    """p1, p2, z1, z2 as after some training: the two projections share a component, each prediction is its
    own view's projection plus noise, rows of different lengths. Same-view and cross-view pairings then differ,
    and so do normalised and raw dot products."""
    generator = torch.Generator().manual_seed(seed)

    def draw(*shape):
        return torch.randn(*shape, generator=generator, dtype=F64)

    shared = draw(n, d)
    z1, z2 = shared + 0.7 * draw(n, d), shared + 0.7 * draw(n, d)
    p1 = (z1 + noise * draw(n, d)) * torch.exp(draw(n, 1))
    p2 = (z2 + noise * draw(n, d)) * torch.exp(draw(n, 1))
    return tuple(t.to(dtype) for t in (p1, p2, 2 * z1, 0.5 * z2))


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == F32 else tolerance(F64)


def _exact(ref, views):
    return ref.simsiam_loss(*(t.detach().double() for t in views)).to(views[0].dtype)


def _expect_loss(result, ref, views, *, hint=""):
    got = result.unwrap()
    expected = _exact(ref, views)
    expect_tensor(got, shape=(), dtype=views[0].dtype, call=result)
    rtol, atol = _tolerances(views[0].dtype)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------- loss

HAND = (
    torch.tensor([[2.0, 0.0], [0.0, 3.0], [1.0, 1.0]]),  # p1
    torch.tensor([[1.0, 1.0], [0.0, -1.0], [3.0, 4.0]]),  # p2
    torch.tensor([[4.0, 0.0], [0.0, 0.5], [4.0, 3.0]]),  # z1
    torch.tensor([[5.0, 0.0], [2.0, 0.0], [-1.0, 0.0]]),  # z2
)
HAND_D12 = -(1 + 0 - 1 / math.sqrt(2)) / 3  # D(p1, z2): cosines 1, 0, -1/sqrt 2
HAND_D21 = -(1 / math.sqrt(2) - 1 + 24 / 25) / 3  # D(p2, z1): cosines 1/sqrt 2, -1, 24/25


@check("loss.hand_example", "Hand example: D(p1, z2) = -0.0976 and D(p2, z1) = -0.2224, so the loss is -0.16",
       clauses=["loss.formula", "loss.cross_pairing", "loss.normalise", "loss.batch_mean"])
def hand_example(sub, ref):
    # p1 against z2, row by row: [2, 0] / [5, 0] (cos 1), [0, 3] / [2, 0] (cos 0), [1, 1] / [-1, 0] (cos -1/sqrt 2).
    # p2 against z1: [1, 1] / [4, 0] (cos 1/sqrt 2), [0, -1] / [0, 0.5] (cos -1), [3, 4] / [4, 3] (cos 24/25).
    # Each D is minus the mean of its three cosines; the loss is their average, (-0.0976 - 0.2224) / 2 = -0.16.
    # N = 3 keeps the mutants' mistakes apart (a sum over the batch is 3x, unhalved terms 2x).
    result = sub.simsiam_loss.call(*HAND)
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=F32, call=result)
    hint_text = f"(D(p1, z2) = {HAND_D12:.4f} and D(p2, z1) = {HAND_D21:.4f}: minus the mean cosine " \
        "of each cross-view pair; the loss is their average, -0.16)"
    expect_close(got, torch.tensor((HAND_D12 + HAND_D21) / 2), call=result, rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL,
                 hint=hint_text)


@check("loss.cross_pairing", "p1 is compared with z2 and p2 with z1, never with their own view",
       clauses=["loss.cross_pairing"])
def cross_pairing(sub, ref):
    # Each prediction equals its own view's projection, and the two views are orthogonal: the same-view cosines
    # are 1 (a loss of -1) but the cross-view ones are 0, so the correct loss is exactly 0.
    z1 = torch.tensor([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]], dtype=F64)
    z2 = torch.tensor([[0.0, 3.0, 0.0], [0.0, 0.0, 1.0]], dtype=F64)
    views = (z1.clone(), z2.clone(), z1, z2)
    result = sub.simsiam_loss.call(*views)
    got = result.unwrap()
    hint_text = "(p1 is compared with z2, the other view; here every cross-view pair is orthogonal, so the loss " \
        "is 0)"
    expect_close(got, torch.tensor(0.0, dtype=F64), call=result, hint=hint_text)


@check("loss.symmetric", "Swapping the two views, (p2, p1, z2, z1), leaves the loss unchanged",
       clauses=["loss.formula"])
def symmetric(sub, ref):
    p1, p2, z1, z2 = _views(1, 4, 3)
    forward, swapped = sub.simsiam_loss.map([((p1, p2, z1, z2), {}), ((p2, p1, z2, z1), {})])
    _expect_loss(forward, ref, (p1, p2, z1, z2))
    expect_close(swapped.unwrap(), forward.unwrap(), call=swapped,
                 hint=f"(differs from {forward.call}: both terms, D(p1, z2) and D(p2, z1), belong in the loss)")


@check("loss.aligned_and_opposite", "Aligned cross-view pairs give exactly -1, opposite ones +1",
       clauses=["loss.formula", "loss.batch_mean"])
def aligned_and_opposite(sub, ref):
    base = _randn(2, 5, 4)
    aligned = (3 * base, 0.5 * base, 2 * base, base)
    opposite = (base, -base, base, -2 * base)
    for views, value, why in ((aligned, -1.0, "every cross-view pair points the same way, so every cosine is 1"),
                              (opposite, 1.0, "every cross-view pair points in opposite directions")):
        result = sub.simsiam_loss.call(*views)
        got = result.unwrap()
        hint_text = f"({why}: the loss is {value:g}, a mean of negative cosines, halved)"
        expect_close(got, torch.tensor(value, dtype=F64), call=result, hint=hint_text)


@check("loss.batch_mean", "Each D is a mean over the batch, not a sum", clauses=["loss.batch_mean"])
def batch_mean(sub, ref):
    views = _views(3, 3, 4)
    once, four = sub.simsiam_loss.map([(views, {}), (tuple(t.repeat(4, 1) for t in views), {})])
    _expect_loss(once, ref, views)
    expect_close(four.unwrap(), once.unwrap(), call=four,
                 hint=f"(differs from {once.call}: D is a mean over the rows, so repeating the batch changes nothing)")


@check("loss.normalisation_invariance", "Rescaling any row of any input by a positive factor changes nothing",
       clauses=["loss.normalise"])
def normalisation_invariance(sub, ref):
    views = _views(30, 5, 4)
    scaled = tuple(t * torch.exp(3 * _randn(31 + i, 5, 1)) for i, t in enumerate(views))  # factors ~ e^{+-3}
    plain, rescaled = sub.simsiam_loss.map([(views, {}), (scaled, {})])
    _expect_loss(plain, ref, views)
    expect_close(rescaled.unwrap(), plain.unwrap(), call=rescaled,
                 hint="(a cosine ignores length: normalise every row before the dot products)")


@check("loss.zero_and_tiny_rows", "Rows are divided by max(norm, 1e-12): zero rows give cosine 0, tiny rows shrink",
       clauses=["loss.normalise"])
def zero_and_tiny_rows(sub, ref):
    # A zero row has cosine 0 with anything. A row of norm 1e-13 is divided by 1e-12 and becomes a row of length
    # 0.1, so its cosine with a unit row is 0.1 (not 1, and not 1e-5 as with a floor of 1e-8).
    # The floor is on each row's norm, not on the product of the two: two aligned rows of norm 1e-7 are above
    # the floor and have cosine 1 (flooring the product 1e-14 gives 0.01), and a row of norm 1e-13 against a row
    # of norm 5 has cosine 0.1 (the product 5e-13, floored to 1e-12, gives 0.5). With p1 = p2 and z1 = z2 the
    # loss is minus that cosine.
    p1, p2, z1, z2 = _views(35, 4, 3)
    p1[0] = 0.0
    z1[1] = 0.0
    p1[2] = torch.tensor([1e-13, 0.0, 0.0], dtype=F64)
    z2[2] = torch.tensor([1.0, 0.0, 0.0], dtype=F64)
    views = (p1, p2, z1, z2)
    single = [(torch.tensor([[1e-7, 0.0]], dtype=F64), torch.tensor([[1e-7, 0.0]], dtype=F64), 1.0),
              (torch.tensor([[1e-13, 0.0]], dtype=F64), torch.tensor([[5.0, 0.0]], dtype=F64), 0.1)]
    results = sub.simsiam_loss.map([(views, {})] + [((p, p.clone(), z, z.clone()), {}) for p, z, _ in single])
    result = results[0]
    got = result.unwrap()
    expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got).all()),
           f"{result.call} returned {got}: a zero row must give cosine 0 (divide by max(norm, 1e-12)), not 0 / 0")
    _expect_loss(result, ref, views, hint="(divide each row by max(norm, 1e-12): clamp the norm at 1e-12, neither "
                 "add a constant to it nor use a larger floor such as F.cosine_similarity's default 1e-8)")
    for result, (_, _, cosine) in zip(results[1:], single, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=F64, call=result)
        expect_close(got, torch.tensor(-cosine, dtype=F64), call=result,
                     hint=f"(each row is divided by max(its own norm, 1e-12), so the cosine here is {cosine:g} and "
                          f"the loss {-cosine:g}; flooring the product of the two norms, <p, z> / max(||p|| ||z||, "
                          "1e-12), instead changes the cosine of tiny rows)")


# --------------------------------------------------------------------------------------------- experiment


STEPS, LEARNING_RATE, NOISE = 24, 3.0, 1.0


def _spread(rows):
    """sqrt(D) times the mean over features of the standard deviation, across the batch, of the unit rows:
    about 1 when the outputs are spread over the sphere, 0 when they are all the same vector (collapse)."""
    unit = rows / rows.norm(dim=1, keepdim=True).clamp_min(1e-12)
    return float(unit.std(dim=0).mean() * math.sqrt(rows.shape[1]))


@check("experiment.stop_gradient", "Experiment: a toy SimSiam with and without the stop-gradient")
def stop_gradient_experiment(sub, ref, ctx):
    # Sixteen points in 6-D, two noisy views each step; encoder z = x W + b (6 -> 4), predictor p = z P.
    # Both runs take their gradients from your simsiam_loss. With the stop-gradient they are the gradients into
    # p1 and p2 it returns. Without it, z1 and z2 would also receive the gradient of D(p, z) with respect to z,
    # which by the symmetry of the cosine is the gradient of D(z, p) with respect to its first argument: your
    # loss with the roles swapped, simsiam_loss(z1, z2, p1, p2)... computes exactly that for z1 and z2.
    series = run_in_one_request(sub)
    if series is None:
        series = toy_series(lambda calls: live_answers(sub, calls))
    if series is not None:  # always, as the live calls fail the check rather than answer None
        ctx.record_experiment(steps=list(range(1, STEPS + 1)), series=series)


NAMES = ("stop_gradient", "no_stop_gradient")  # the two runs of helpers.toy_start, in order
SEED = 150


def toy_series(answer: Callable[[list[Call]], list[Any] | None]) -> dict[str, list[float]] | None:
    """The chart's series, each step's three simsiam_loss calls answered by `answer` with (loss, gradient into p1,
    gradient into p2) (None: no run to chart)."""
    generator, x, runs = toy_start(SEED)
    series: dict[str, list[float]] = {f"{kind}_{name}": [] for kind in ("output_spread", "loss") for name in NAMES}
    for _ in range(STEPS):
        x1, x2, forward, calls = toy_calls(runs, generator, x, NOISE)
        answers = answer([(arguments, {}) for arguments in calls])
        if answers is None:
            return None
        toy_step(runs, x1, x2, forward, [(g1, g2) for _, g1, g2 in answers], LEARNING_RATE)
        for index, (name, run) in enumerate(zip(NAMES, runs, strict=True)):
            series[f"loss_{name}"].append(float(answers[index][0]))
            series[f"output_spread_{name}"].append(_spread(x @ run["w"] + run["b"]))
    return series


def live_answers(sub: Any, calls: list[Call]) -> list[Any]:
    """One step's calls, one request: your simsiam_loss's values and gradients (what it raised, or a gradient or
    value missing, fails the check)."""
    answers = []
    for result in sub.simsiam_loss.map(calls, grads=("p1", "p2")):
        loss = expect_tensor(result.unwrap(), shape=(), dtype=F64, call=result)
        if result.grads.get("p1") is None or result.grads.get("p2") is None:
            fail(f"after backward() on {result.call}, p1.grad or p2.grad is None: the experiment needs them")
        answers.append((loss.detach(), result.grads["p1"], result.grads["p2"]))
    return answers


def run_in_one_request(sub: Any) -> dict[str, list[float]] | None:
    """The series as toy_series with live_answers makes them, in two requests instead of 24, or None.

    The worker runs both toy runs (helpers.toy_run, the same glue as toy_series's) and returns every call's loss
    and gradients. The judge takes them as the answers to its own steps, building each step's calls from its own
    states, then makes all those calls again in one request. Only when every answer is bit for bit the run's are
    these the series the live run gives: by induction from the seeded start, each step's calls get the same inputs
    and the same answers. Anything else (a run that raised or broke a limit, a record of the wrong form, a function
    that answers the same input differently) returns None, and the check runs the toy a step a request, messages
    and chart included."""
    try:
        run = sub.from_helpers("toy_run", uses=("simsiam_loss",)).call(SEED, STEPS, LEARNING_RATE, NOISE)
    except (CheckFailed, WorkerLost):
        return None
    records = run.value if run.raised is None else None
    if not (isinstance(records, list) and len(records) == STEPS):
        return None
    steps = iter(records)
    made: list[tuple[Call, Any]] = []

    def recorded(calls: list[Call]) -> list[Any] | None:
        answers = next(steps)
        if not (isinstance(answers, list) and len(answers) == len(calls)
                and all(isinstance(triple, tuple | list) and len(triple) == 3
                        and all(isinstance(t, torch.Tensor) for t in triple) and triple[0].shape == ()
                        and triple[0].dtype == F64 for triple in answers)):
            return None
        made.extend(zip(calls, answers, strict=True))
        return list(answers)

    try:
        series = toy_series(recorded)
        if series is None:
            return None
        agrees = replay_agrees(sub.simsiam_loss, made, grads=("p1", "p2"))
    except (CheckFailed, WorkerLost):
        return None
    return series if agrees else None
