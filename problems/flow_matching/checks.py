"""Check battery for the flow matching problem (Lipman et al., 2023; Liu, Gong & Liu, 2023).

Groups `path`, `loss` and `sampler` are required, with the generic battery `contract`; `experiment` is advisory
(it records the charts of the notes). The declared contract in problem.toml covers shapes, dtypes, layouts,
inputs left unchanged, new storage, requires_grad, gradients against the reference and central differences, no
gradient into the loss's x0 and x1, the same tensor passed twice, the refusals and a property search. The checks
here hold what a declaration cannot say: the hand examples, which end of the path is noise, the per-sample time
over data of any rank, the target as the path's own derivative, the loss's reduction and its constant target, the
Euler grid (left ends, n equal steps, the current state) and the trajectory's layout.

Every expectation is computed here in float64 from formulas written out in this file (an oracle independent of
the reference; the sampler's oracle shares only the supplied field helpers.mixture_velocity), compared at the
float64 defaults (1e-7 relative, 1e-9 absolute): the quantities are O(1) and well conditioned.
"""

import math

import torch

from grader.checks import check, expect, expect_close, expect_grad_close, expect_grad_none, expect_tensor, fail
from helpers import mixture_velocity

F64 = torch.float64


def _t(values, dtype=F64):
    return torch.tensor(values, dtype=dtype)


def _randn(seed, *shape):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator, dtype=F64)


def _leaf(t):
    return t.clone().requires_grad_(True)


# ------------------------------------------------------------------------------------- independent oracles


def _path(x0, x1, t, sigma_min=0.0):
    """Sample by sample, in Python: ((1 - (1 - sigma_min) t_i) x0_i + t_i x1_i, x1_i - (1 - sigma_min) x0_i)."""
    x0, x1 = x0.detach().to(F64), x1.detach().to(F64)
    points = [(1 - (1 - sigma_min) * float(t[i])) * x0[i] + float(t[i]) * x1[i] for i in range(x0.shape[0])]
    x_t = torch.stack(points) if points else torch.empty_like(x0)
    return x_t, x1 - (1 - sigma_min) * x0


def _loss(v_pred, x0, x1, sigma_min=0.0):
    """(1/N) sum_i of the sum of squares of sample i's error, with a Python sum over samples."""
    v, u = v_pred.detach().to(F64), x1.detach().to(F64) - (1 - sigma_min) * x0.detach().to(F64)
    total = sum(float(((v[i] - u[i]) ** 2).sum()) for i in range(v.shape[0]))
    return _t(total / v.shape[0]), 2 * (v - u) / v.shape[0]


def _euler(x0, means, sigma, n_steps):
    """x_{k+1} = x_k + v(x_k, k / n) / n with a per-sample time tensor; the states stacked, x0 first."""
    x, means = x0.detach().to(F64), means.detach().to(F64)
    states = [x]
    for k in range(n_steps):
        t = torch.full((x.shape[0],), k / n_steps, dtype=F64)
        x = x + mixture_velocity(x, t, means, sigma) / n_steps
        states.append(x)
    return torch.stack(states)


def _expect_pair(result, expected, *, hint="", u_hint=""):
    got = result.unwrap()
    if not isinstance(got, tuple) or len(got) != 2:
        fail(f"{result.call} must return a tuple (x_t, u), got {type(got).__name__}")
    for value, want, what, extra in ((got[0], expected[0], "x_t", hint), (got[1], expected[1], "u", u_hint or hint)):
        expect_tensor(value, shape=tuple(want.shape), dtype=want.dtype, what=what, call=result)
        expect_close(value, want.to(value.dtype), what=what, call=result, hint=extra)


def _expect_trajectory(result, expected, *, hint=""):
    got = result.unwrap()
    expect_tensor(got, shape=tuple(expected.shape), dtype=expected.dtype, what="the trajectory", call=result)
    if not bool(torch.isfinite(got.detach()).all()):
        fail(f"the trajectory of {result.call} has non-finite values {hint}")
    expect_close(got, expected, what="the trajectory", call=result, hint=hint)


# ----------------------------------------------------------------------------------------------------- path

HAND_X0 = _t([[1.0, 0.0], [2.0, 2.0]])
HAND_X1 = _t([[3.0, 4.0], [0.0, -2.0]])
HAND_T = _t([0.25, 0.5])


@check(
    "path.hand_example",
    "Hand example: two samples at t = 0.25 and t = 0.5, sigma_min = 0 and 0.1",
    clauses=["path.formula", "path.broadcast", "path.convention"],
)
def path_hand_example(sub, ref):
    # Sample 0: 0.75 [1, 0] + 0.25 [3, 4] = [1.5, 1]; sample 1: 0.5 [2, 2] + 0.5 [0, -2] = [1, 0]; u = x1 - x0.
    # With sigma_min = 0.1: (1 - 0.9 t) x0 + t x1 = [1.525, 1] and [1.1, 0.1]; u = x1 - 0.9 x0.
    plain, lipman = sub.conditional_path.map([((HAND_X0, HAND_X1, HAND_T), {}), ((HAND_X0, HAND_X1, HAND_T, 0.1), {})])
    _expect_pair(
        plain,
        (_t([[1.5, 1.0], [1.0, 0.0]]), _t([[2.0, 4.0], [-2.0, -4.0]])),
        hint="(x_t = (1 - t) x0 + t x1 with sample i's own t: 0.75 [1, 0] + 0.25 [3, 4] = [1.5, 1] and "
        "0.5 [2, 2] + 0.5 [0, -2] = [1, 0]; t = 0 is the noise x0, t = 1 the data x1)",
        u_hint="(u = x1 - x0 points from the noise to the data: [2, 4] and [-2, -4])",
    )
    _expect_pair(
        lipman,
        (_t([[1.525, 1.0], [1.1, 0.1]]), _t([[2.1, 4.0], [-1.8, -3.8]])),
        hint="(with sigma_min = 0.1, x_t = (1 - 0.9 t) x0 + t x1 = [1.525, 1] and [1.1, 0.1])",
        u_hint="(with sigma_min = 0.1, u = x1 - 0.9 x0 = [2.1, 4] and [-1.8, -3.8]: the derivative of x_t in t)",
    )


@check(
    "path.ends",
    "t = 0 gives the noise x0 exactly, t = 1 the data x1 (or x1 + sigma_min x0), in one batch",
    clauses=["path.convention", "path.formula"],
)
def path_ends(sub, ref):
    x0, x1 = _randn(1, 4, 3), _randn(2, 4, 3)
    t = _t([0.0, 1.0, 1.0, 0.0])
    plain, lipman = sub.conditional_path.map([((x0, x1, t), {}), ((x0, x1, t, 0.25), {})])
    ends = torch.stack([x0[0], x1[1], x1[2], x0[3]])
    _expect_pair(
        plain,
        (ends, x1 - x0),
        hint="(samples 0 and 3 have t = 0 and must come back as their x0, the noise; samples 1 and 2 have "
        "t = 1 and must come back as their x1, the data: time runs from noise at 0 to data at 1)",
    )
    lipman_ends = torch.stack([x0[0], x1[1] + 0.25 * x0[1], x1[2] + 0.25 * x0[2], x0[3]])
    _expect_pair(
        lipman,
        (lipman_ends, x1 - 0.75 * x0),
        hint="(with sigma_min = 0.25 the path still starts at x0 and ends at x1 + 0.25 x0: "
        "x_t = (1 - 0.75 t) x0 + t x1)",
    )


@check(
    "path.broadcast",
    "Each sample's t scales all of it: data [N], [N, N], [N, D], [N, C, H, W] and N = 0",
    clauses=["path.broadcast"],
)
def path_broadcast(sub, ref):
    # [N, N] is the shape where a time lined up with the last axis goes unnoticed by the shapes alone.
    shapes = [(5,), (4, 4), (3, 3), (3, 5), (2, 3, 4, 4), (3, 1, 2, 2), (2, 3, 5), (0, 3)]
    cases = []
    for i, shape in enumerate(shapes):
        t = torch.rand(shape[0], generator=torch.Generator().manual_seed(30 + i), dtype=F64)
        cases.append((_randn(10 + i, *shape), _randn(20 + i, *shape), t))
    results = sub.conditional_path.map([(case, {}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        singletons = ", 1" * (case[0].dim() - 1)
        _expect_pair(
            result,
            _path(*case),
            hint=f"(t[i] must scale every element of sample i: reshape t [N] to [N{singletons}] for data "
            f"of shape {list(case[0].shape)}, rather than letting it line up with the last axis)",
        )


@check(
    "path.velocity",
    "u is the time derivative of your own path: x_t(t2) - x_t(t1) = (t2 - t1) u",
    clauses=["path.formula", "path.convention"],
)
def path_velocity(sub, ref):
    # The straight path moves at constant speed: between any two times it covers (t2 - t1) u, and u points from the
    # noise x0 to the data x1. A target x0 - x1, or a path run backwards with the target kept, breaks this.
    x0, x1 = _randn(3, 5, 2), _randn(4, 5, 2)
    t1, t2 = _t([0.1, 0.3, 0.0, 0.5, 0.8]), _t([0.6, 0.4, 1.0, 0.9, 0.85])
    for sigma_min in (0.0, 0.2):
        early, late = sub.conditional_path.map([((x0, x1, t1, sigma_min), {}), ((x0, x1, t2, sigma_min), {})])
        (xa, ua), (xb, _) = early.unwrap(), late.unwrap()
        expect_tensor(ua, shape=(5, 2), dtype=F64, what="u", call=early)
        expect_close(
            ua,
            x1 - (1 - sigma_min) * x0,
            what="u",
            call=early,
            hint=f"(u = x1 - (1 - sigma_min) x0 with sigma_min = {sigma_min}: the velocity from the noise x0 "
            "towards the data x1)",
        )
        moved = (xb - xa) / (t2 - t1).unsqueeze(1)
        expect_close(
            moved,
            ua,
            what="(x_t(t2) - x_t(t1)) / (t2 - t1) of your path",
            call=late,
            hint=f"(compared with your u from {early.call}: along the path the point moves by exactly u per "
            "unit of time, from x0 at t = 0 towards the data at t = 1; a path that runs from the data "
            "to the noise moves the other way)",
        )


# ----------------------------------------------------------------------------------------------------- loss


@check(
    "loss.hand_example",
    "Hand example: errors [0, -1] and [2, 4] give (1 + 20) / 2 = 10.5",
    clauses=["loss.reduction", "loss.target"],
)
def loss_hand_example(sub, ref):
    # u = [[2, 4], [-2, -4]]; v_pred - u = [[0, -1], [2, 4]]: squared norms 1 and 20, mean 10.5. The gradient is
    # 2 (v_pred - u) / N = [[0, -1], [2, 4]].
    v_pred = _t([[2.0, 3.0], [0.0, 0.0]])
    result = sub.cfm_loss.call(_leaf(v_pred), _leaf(HAND_X0), _leaf(HAND_X1), grads=("v_pred", "x0", "x1"))
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=F64, call=result)
    expect_close(
        got,
        _t(10.5),
        call=result,
        hint="(u = x1 - x0 = [[2, 4], [-2, -4]]; the errors [0, -1] and [2, 4] have squared lengths 1 and 20; "
        "their mean over the 2 samples is 10.5. A mean over all 4 elements would give 5.25)",
    )
    expect_grad_close(
        result,
        "v_pred",
        _t([[0.0, -1.0], [2.0, 4.0]]),
        source="2 (v_pred - u) / N",
        hint="(the derivative of (1/N) sum |v - u|^2 in v is 2 (v - u) / N)",
    )
    expect_grad_none(
        result,
        "x0",
        "x1",
        hint="(the regression target u is a constant: detach x0 and x1 so that only the model's prediction is trained)",
    )


@check(
    "loss.reduction",
    "Summed over every feature axis, averaged over samples: data [N], [N, D], [N, C, H, W], and no features at all",
    clauses=["loss.reduction"],
)
def loss_reduction(sub, ref):
    shapes = [(4,), (3, 5), (2, 3, 4, 4), (5, 2, 3), (3, 0)]
    cases = [(_randn(40 + i, *shape), _randn(50 + i, *shape), _randn(60 + i, *shape)) for i, shape in enumerate(shapes)]
    results = sub.cfm_loss.map([(case, {}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=F64, call=result)
        features = math.prod(case[0].shape[1:])
        if not bool(torch.isfinite(got.detach())):
            fail(
                f"{result.call} returned {float(got.detach())}: not finite. With {features} features per sample the "
                "sum of squared errors is 0, not 0 / 0: sum over each sample's features, then average over samples"
            )
        expect_close(
            got,
            _loss(*case)[0],
            call=result,
            hint=f"(each sample's squared errors are summed over all {features} of its features, every axis "
            f"after the first, then averaged over the {case[0].shape[0]} samples: the squared norm "
            "|v - u|^2 of the paper, not a mean over every element)",
        )


@check(
    "loss.target",
    "The target is x1 - (1 - sigma_min) x0: the true velocity scores 0, for every sigma_min",
    clauses=["loss.target"],
)
def loss_target(sub, ref):
    x0, x1 = _randn(70, 6, 3), _randn(71, 6, 3)
    calls = []
    for sigma_min in (0.0, 0.3, 0.9):
        calls.append(((x1 - (1 - sigma_min) * x0, x0, x1, sigma_min), {}))  # the exact velocity: loss 0
        calls.append(((x1 - x0, x0, x1, sigma_min), {}))  # rectified flow's target, off by sigma_min x0
    results = sub.cfm_loss.map(calls)
    for (args, _), result in zip(calls, results, strict=True):
        sigma_min = args[3]
        expect_close(
            result.unwrap(),
            _loss(*args)[0],
            call=result,
            hint=f"(with sigma_min = {sigma_min} the target is u = x1 - {1 - sigma_min:g} x0, the derivative "
            "of the path (1 - (1 - sigma_min) t) x0 + t x1; a prediction equal to it has loss 0)",
        )


@check(
    "loss.gradient",
    "Only the prediction is trained: v_pred.grad = 2 (v_pred - u) / N, none into x0 or x1",
    clauses=["loss.target"],
)
def loss_gradient(sub, ref):
    shapes = [(5, 3), (2, 2, 3, 3)]
    calls, expected = [], []
    for i, shape in enumerate(shapes):
        v, x0, x1 = _randn(80 + i, *shape), _randn(90 + i, *shape), _randn(100 + i, *shape)
        calls.append(((_leaf(v), _leaf(x0), _leaf(x1), 0.1 * i), {}))
        expected.append(_loss(v, x0, x1, 0.1 * i)[1])
    results = sub.cfm_loss.map(calls, grads=("v_pred", "x0", "x1"))
    for result, grad in zip(results, expected, strict=True):
        result.unwrap()
        expect_grad_none(
            result,
            "x0",
            "x1",
            hint="(the target u = x1 - (1 - sigma_min) x0 is a constant of the regression: no gradient "
            "may reach x0 or x1; detach them before building u)",
        )
        expect_grad_close(
            result,
            "v_pred",
            grad,
            source="2 (v_pred - u) / N",
            hint="(the derivative of (1/N) sum over samples of |v - u|^2 in v is 2 (v - u) / N)",
        )


# -------------------------------------------------------------------------------------------------- sampler


@check(
    "sampler.hand_example",
    "Hand example: one Gaussian target, two Euler steps from [1, 0] and [0, 2]",
    clauses=["sampler.euler", "sampler.trajectory"],
)
def sampler_hand_example(sub, ref):
    # K = 1, m = [2, -2], sigma = 1: v(x, t) = (1 - c t) m + c x with c = (2t - 1) / ((1 - t)^2 + t^2), so
    # v(x, 0) = m - x and v(x, 1/2) = m. Step 1 (t = 0): [1, 0] + (1/2)([2, -2] - [1, 0]) = [1.5, -1];
    # step 2 (t = 1/2): [1.5, -1] + (1/2)[2, -2] = [2.5, -2]. The second sample: [1, 0], then [2, -1].
    x0, means = _t([[1.0, 0.0], [0.0, 2.0]]), _t([[2.0, -2.0]])
    result = sub.euler_sample.call(x0, means, 1.0, 2)
    expected = _t([[[1.0, 0.0], [0.0, 2.0]], [[1.5, -1.0], [1.0, 0.0]], [[2.5, -2.0], [2.0, -1.0]]])
    _expect_trajectory(
        result,
        expected,
        hint="(2 steps of size 1/2 evaluated at t = 0 and t = 1/2: v(x, 0) = m - x and v(x, 1/2) = m "
        "here, so [1, 0] -> [1.5, -1] -> [2.5, -2]; the trajectory is [n_steps + 1, N, D] with x0 "
        "first)",
    )


@check(
    "sampler.one_step",
    "One Euler step lands every sample on the mean of the means (v(x, 0) = mean - x)",
    clauses=["sampler.euler"],
)
def sampler_one_step(sub, ref):
    # At t = 0 every component is equally likely wherever x is, so v(x, 0) = mean_k(m_k) - x, and one step of size 1
    # gives exactly mean_k(m_k) for every sample, whatever sigma: the blurry average a one-step sampler produces.
    x0, means = _randn(110, 6, 2), _t([[3.0, 0.0], [-1.0, 2.0], [-2.0, -5.0]])
    result = sub.euler_sample.call(x0, means, 0.3, 1)
    expected = torch.stack([x0, means.mean(dim=0).expand(6, 2)])
    _expect_trajectory(
        result,
        expected,
        hint="(with n_steps = 1 the only step starts at t = 0, where v(x, 0) = mean of the means - x: "
        "x0 + 1 * v(x0, 0) is [0, -1] for every sample; read the velocity at the step's start, at "
        "the current x)",
    )


@check(
    "sampler.steps",
    "n equal steps at t = k / n, velocity at the current state: n = 1 to 6 against a loop",
    clauses=["sampler.euler", "sampler.trajectory"],
)
def sampler_steps(sub, ref):
    x0 = _randn(120, 5, 2)
    means = _t([[2.0, 1.0], [-2.0, 1.5], [0.0, -2.5]])
    counts = (1, 2, 3, 4, 6)
    results = sub.euler_sample.map([((x0, means, 0.4, n), {}) for n in counts])
    for n, result in zip(counts, results, strict=True):
        _expect_trajectory(
            result,
            _euler(x0, means, 0.4, n),
            hint=f"(n_steps = {n}: the times are 0, 1/{n}, ..., {n - 1}/{n}, each step adds "
            f"v(y_k, k/{n}) / {n} to the state y_k reached so far; the result stacks the {n + 1} "
            "states, x0 first and the sample at t = 1 last)",
        )


@check(
    "sampler.exact_flow",
    "Many steps follow the exact flow of a Gaussian target: x(t) = t m + sqrt((1-t)^2 + t^2 sigma^2) x0",
    clauses=["sampler.euler", "sampler.trajectory"],
)
def sampler_exact_flow(sub, ref):
    # For one Gaussian N(m, sigma^2 I) the flow of the marginal field is known in closed form; Euler's error is
    # O(1 / n) (at most 0.05 at n = 40 here), far below the distance to a sampler that runs the wrong way in time.
    x0, means, sigma, n = _randn(130, 4, 2), _t([[1.5, -1.0]]), 0.5, 40
    result = sub.euler_sample.call(x0, means, sigma, n)
    got = result.unwrap()
    expect_tensor(got, shape=(n + 1, 4, 2), dtype=F64, what="the trajectory", call=result)
    times = torch.arange(n + 1, dtype=F64) / n
    spread = ((1 - times) ** 2 + (times * sigma) ** 2).sqrt()
    exact = times.reshape(-1, 1, 1) * means + spread.reshape(-1, 1, 1) * x0
    error = float((got.detach() - exact).norm(dim=2).max())
    expect(
        error < 0.1,
        f"the trajectory of {result.call} strays {error:.3g} from the exact flow x(t) = t m + "
        "sqrt((1 - t)^2 + t^2 sigma^2) x0 at some step (40 Euler steps stay within 0.05 of it): integrate from "
        "t = 0 (noise) to t = 1 (data), state k being the point reached at t = k / n_steps",
    )


# ----------------------------------------------------------------------------------------------- experiment

STEP_COUNTS = (1, 2, 4, 8, 16, 32)
RING = 6  # modes on a circle of radius 3
PARTICLES = 200
SIGMA = 0.3
RK4_STEPS = 32  # fourth order: its error here is far below Euler's at 32 steps


def _rk4(x, means, sigma, steps):
    """A fourth-order Runge-Kutta integration of the same field from t = 0 to 1: the accurate answer."""
    h = 1.0 / steps
    for k in range(steps):
        t = k * h
        a = mixture_velocity(x, t, means, sigma)
        b = mixture_velocity(x + h / 2 * a, t + h / 2, means, sigma)
        c = mixture_velocity(x + h / 2 * b, t + h / 2, means, sigma)
        d = mixture_velocity(x + h * c, t + h, means, sigma)
        x = x + h / 6 * (a + 2 * b + 2 * c + d)
    return x


@check(
    "experiment.steps",
    "Your sampler on a 2-D mixture of six Gaussians, from 1 to 32 Euler steps, against an "
    "accurate integration and the exact flow of one Gaussian",
    group="experiment",
    required=False,
)
def experiment_steps(sub, ref, ctx):
    angles = torch.arange(RING, dtype=F64) * (2 * math.pi / RING)
    ring = 3.0 * torch.stack([angles.cos(), angles.sin()], dim=1)
    single, single_sigma = _t([[2.0, -1.0]]), 0.5
    x0 = _randn(140, PARTICLES, 2)
    calls = [((x0, ring, SIGMA, n), {}) for n in STEP_COUNTS]
    calls += [((x0, single, single_sigma, n), {}) for n in STEP_COUNTS]
    results = sub.euler_sample.map(calls)
    finals = []
    for result in results:
        got = result.unwrap()
        expect(
            isinstance(got, torch.Tensor) and got.dim() == 3 and got.shape[1:] == (PARTICLES, 2),
            f"{result.call} returned {type(got).__name__}, not a trajectory [n_steps + 1, {PARTICLES}, 2]",
        )
        finals.append(got[-1].detach().to(F64))
    accurate = _rk4(x0, ring, SIGMA, RK4_STEPS)
    exact_single = single + single_sigma * x0  # x(1) = m + sigma x0 for one Gaussian

    def mode_distance(x):
        return float(torch.cdist(x, ring).min(dim=1).values.mean())

    ring_finals, single_finals = finals[: len(STEP_COUNTS)], finals[len(STEP_COUNTS) :]
    single_errors = [float((x - exact_single).norm(dim=1).mean()) for x in single_finals]
    # n doubles from one point to the next: the axis is log2 n, so each doubling gets the same width
    ctx.record_experiment(
        x_label="log2 n",
        steps=[round(math.log2(n)) for n in STEP_COUNTS],
        series={
            "error_vs_accurate": [float((x - accurate).norm(dim=1).mean()) for x in ring_finals],
            "distance_to_nearest_mode": [mode_distance(x) for x in ring_finals],
            "error_one_gaussian": single_errors,
            "n_times_error_one_gaussian": [n * e for n, e in zip(STEP_COUNTS, single_errors, strict=True)],
        },
    )
