"""Check battery for BYOL's loss and target update.

Groups: `loss` (hand examples, the normalisation), `update` (the moving average, exact at its ends) and
`contract` are required; `experiment` is advisory (it records the toy run for the notes). The contracts declared
in problem.toml make the rest: values against the reference, float32, layouts, gradients into the online branch
and none into the target, results in new storage without gradient, refusals. Every random input comes from a
seeded generator, so two runs agree.
"""

import math

import torch

from grader.checks import check, expect, expect_close, expect_equal, expect_tensor, fail, tolerance

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
    p, z = _pair(33, 4, 3)
    p[0] = 0.0
    z[1] = 0.0
    p[2] = torch.tensor([1e-13, 0.0, 0.0], dtype=F64)
    z[2] = torch.tensor([1.0, 0.0, 0.0], dtype=F64)
    result = sub.byol_loss.call(p, z)
    got = result.unwrap()
    expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got).all()),
           f"{result.call} returned {got}: a zero row must give cosine 0 (divide by max(norm, 1e-12)), not 0 / 0")
    _expect_loss(result, ref, p, z, hint="(divide each row by max(norm, 1e-12): clamp the norm, do not add "
                 "1e-12 to it; a zero row then costs exactly 2)")


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
    generator = torch.Generator().manual_seed(150)
    x = torch.randn(16, 6, generator=generator, dtype=F64)
    w0 = 0.5 * torch.randn(6, 4, generator=generator, dtype=F64)
    p0 = torch.eye(4, dtype=F64) + 0.1 * torch.randn(4, 4, generator=generator, dtype=F64)
    runs = {"byol": {"w": w0, "p": p0, "target": w0, "tau": TAU},
            "plain": {"w": w0, "p": None, "target": w0, "tau": 0.0}}
    names = {"byol": "BYOL", "plain": "no_predictor_no_EMA"}
    series = {f"{kind}_{label}": [] for kind in ("effective_rank", "loss") for label in names.values()}
    for _ in range(STEPS):
        x1 = x + 0.3 * torch.randn(16, 6, generator=generator, dtype=F64)
        x2 = x + 0.3 * torch.randn(16, 6, generator=generator, dtype=F64)
        calls = []
        for run in runs.values():
            z1, z2 = x1 @ run["w"], x2 @ run["w"]
            pred1, pred2 = (z1, z2) if run["p"] is None else (z1 @ run["p"], z2 @ run["p"])
            calls += [((pred1.requires_grad_(), x2 @ run["target"]), {}),
                      ((pred2.requires_grad_(), x1 @ run["target"]), {})]
        results = sub.byol_loss.map(calls, grads=("online_prediction",))
        updates = []
        for index, (name, run) in enumerate(runs.items()):
            first, second = results[2 * index], results[2 * index + 1]
            g1, g2 = first.grads.get("online_prediction"), second.grads.get("online_prediction")
            if g1 is None or g2 is None:
                fail(f"after backward() on {first.call}, online_prediction.grad is None: the toy run needs it")
            losses = [expect_tensor(r.unwrap(), shape=(), call=r).detach() for r in (first, second)]
            series[f"loss_{names[name]}"].append(float(losses[0]) + float(losses[1]))
            if run["p"] is None:
                grad_w = x1.T @ g1 + x2.T @ g2
            else:
                z1, z2 = x1 @ run["w"], x2 @ run["w"]  # chain rule through pred = x W P, with the old W and P
                grad_w = x1.T @ (g1 @ run["p"].T) + x2.T @ (g2 @ run["p"].T)
                run["p"] = run["p"] - LEARNING_RATE * (z1.T @ g1 + z2.T @ g2)
            run["w"] = run["w"] - LEARNING_RATE * grad_w
            updates.append(((run["w"], run["target"], run["tau"]), {}))
        for (name, run), result in zip(runs.items(), sub.target_update.map(updates), strict=True):
            run["target"] = expect_tensor(result.unwrap(), shape=(6, 4), dtype=F64, call=result)
            series[f"effective_rank_{names[name]}"].append(_effective_rank(x @ run["w"]))
    ctx.record_experiment(steps=list(range(1, STEPS + 1)), series=series)
