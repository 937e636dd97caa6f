"""Check battery for the DDIM + classifier-free guidance problem (Song, Meng & Ermon, 2021; Ho & Salimans, 2022).

Groups `timesteps`, `step`, `guidance` and `contract` are required; `experiment` is advisory (it records the
charts of the notes). The declared contract of problem.toml covers shapes, dtypes, layouts, inputs left
unchanged, new storage, requires_grad, gradients of x_t, eps, noise, eps_cond and eps_uncond against the
reference and against central differences, the same tensor passed twice, the declared refusals and a property
search. The checks here hold what a declaration cannot say: the hand examples, which steps the schedule visits
and where each jumps to, the sigma of Eq. 16 at eta strictly between 0 and 1, the deterministic eta = 0, DDPM's
posterior at eta = 1, the last step to alpha-bar 1, no clipping, the landing on the forward process, the extreme
alpha-bars, the refusals no range can state, and the paper's guidance weight.

Expected values come from closed forms written out in this file (an oracle independent of the reference,
arranged differently from it), in float64. float64 results are compared at 1e-9 relative, 1e-10 absolute (every
coefficient is O(1) except 1 / sqrt(alpha_bar_t), at most 1e5 here, whose terms stay far inside that); float32
ones with the contract's float32 tolerance against the exact float64 answer.
"""

import math

import torch

from grader.checks import CheckFailed, check, expect, expect_close, expect_rejected, expect_tensor, fail, legal_inputs

F64 = torch.float64
I64 = torch.int64
F64_TOL = (1e-9, 1e-10)
F32_TOL = (1e-5, 1e-4)  # as problem.toml's ddim_step tolerance


def _t(values, dtype=F64):
    return torch.tensor(values, dtype=dtype)


def _randn(generator, shape, dtype=F64, scale=1.0):
    return (scale * torch.randn(shape, generator=generator, dtype=F64)).to(dtype)


# ----------------------------------------------------------------------------- inputs the contract draws


@legal_inputs("ddim_timesteps")
def _no_more_sampling_steps_than_training_steps(args, sizes):
    """num_sampling_steps <= num_train_steps (a relation between two sizes that ranges cannot state)."""
    args["num_train_steps"] = max(args["num_train_steps"], args["num_sampling_steps"])
    return args


@legal_inputs("ddim_step")
def _a_step_towards_less_noise(args, sizes):
    """alpha_bar_prev >= alpha_bar_t: the drawn alpha_bar_prev is moved into [alpha_bar_t, 1] (1 - (1 - p)(1 - a)
    keeps p = 1 at 1 and p near 0 near a). eta > 0 needs a noise tensor: with noise None, eta is 0."""
    a, p = args["alpha_bar_t"], args["alpha_bar_prev"]
    if isinstance(a, float | int) and isinstance(p, float | int) and p < a:
        # max: for p near 0 the formula rounds to just below a (0.08 became 0.07999999999999996)
        args["alpha_bar_prev"] = max(a, 1 - (1 - p) * (1 - a))
    if args.get("noise") is None and isinstance(args.get("eta"), float | int) and args["eta"] > 0:
        args["eta"] = 0.0
    return args


# ----------------------------------------------------------------------------------- independent oracles


def _schedule(num_train_steps, num_sampling_steps):
    """Python lists: the multiples of the integer stride, descending, and each one's successor (-1 last)."""
    stride = num_train_steps // num_sampling_steps
    steps = [stride * i for i in reversed(range(num_sampling_steps))]
    return steps, steps[1:] + [-1]


def _step(x_t, eps, a, p, eta, noise=None):
    """Eq. 12 rearranged as a combination of x_t, eps and noise (float64):
    sqrt(p / a) x_t + (sqrt(1 - p - sigma^2) - sqrt(p (1 - a) / a)) eps + sigma z."""
    sigma2 = eta * eta * (1 - p) * (p - a) / ((1 - a) * p)
    direction = math.sqrt(max(1 - p - sigma2, 0.0))
    out = math.sqrt(p / a) * x_t.double() + (direction - math.sqrt(p * (1 - a) / a)) * eps.double()
    if sigma2 > 0:
        out = out + math.sqrt(sigma2) * noise.double()
    return out


def _ddpm_posterior(x0, x_t, a, p):
    """DDPM's q(x_prev | x_t, x0) (Ho et al. Eqs. 6-7) for a jump with alpha = a / p and beta = 1 - a / p:
    (mean, variance)."""
    beta = 1 - a / p
    mean = (math.sqrt(p) * beta / (1 - a)) * x0 + (math.sqrt(a / p) * (1 - p) / (1 - a)) * x_t
    return mean, (1 - p) / (1 - a) * beta


def _tolerance(dtype):
    return F32_TOL if dtype == torch.float32 else F64_TOL


def _expect_values(result, expected, *, what="the result", hint=""):
    """The learner's tensor against the exact float64 answer, at the tolerance of the call's dtype."""
    got = result.unwrap()
    dtype = expected.dtype
    got = expect_tensor(got, shape=tuple(expected.shape), dtype=dtype, what=what, call=result)
    if expected.numel() and not bool(torch.isfinite(got.detach()).all()):
        fail(
            f"{what} of {result.call} has non-finite values (nan or inf) where every value is finite"
            f"{' ' + hint if hint else ''}"
        )
    rtol, atol = _tolerance(dtype)
    expect_close(got, expected, what=what, call=result, rtol=rtol, atol=atol, hint=hint)


# -------------------------------------------------------------------------------------------- timesteps


def _wrong(result, message, hint):
    """Fail naming the call, so that a known mistake that gives the same answer can replace the hint."""
    raise CheckFailed(f"{message} {hint}", call=result, bare=message)


def _expect_schedule(result, num_train_steps, num_sampling_steps, *, hint=""):
    got = result.unwrap()
    if not isinstance(got, tuple) or len(got) != 2:
        fail(
            f"{result.call} must return a tuple (timesteps, prev_timesteps), got {type(got).__name__}"
            f"{f' of {len(got)} items' if isinstance(got, tuple | list) else ''}"
        )
    steps, prev = _schedule(num_train_steps, num_sampling_steps)
    stride = num_train_steps // num_sampling_steps
    timesteps = expect_tensor(got[0], dtype=I64, what="timesteps", call=result)
    if timesteps.dim() != 1 or timesteps.shape[0] != num_sampling_steps:
        _wrong(
            result,
            f"timesteps of {result.call}: expected exactly S = {num_sampling_steps} steps, got shape "
            f"{tuple(timesteps.shape)} {timesteps.tolist()}.",
            f"(with stride T // S = {stride}, take the first S multiples of it: range(0, T, T // S) has more "
            "entries when S does not divide T)",
        )
    if timesteps.tolist() != steps:
        _wrong(
            result,
            f"timesteps of {result.call}: expected {steps}, got {timesteps.tolist()}.",
            f"(the multiples i * (T // S) = i * {stride} for i = S - 1 down to 0: a constant integer stride, "
            f"descending, ending at step 0{'; ' + hint if hint else ''})",
        )
    prev_timesteps = expect_tensor(got[1], shape=(num_sampling_steps,), dtype=I64, what="prev_timesteps", call=result)
    if prev_timesteps.tolist() != prev:
        _wrong(
            result,
            f"prev_timesteps of {result.call}: expected {prev}, got {prev_timesteps.tolist()}.",
            "(each step jumps to the next entry of timesteps, prev_timesteps[i] = timesteps[i + 1], and after step "
            "0 to -1, which stands for alpha-bar 1: the clean data)",
        )


@check(
    "timesteps.hand_example",
    "Hand example: ddim_timesteps(10, 3) is ([6, 3, 0], [3, 0, -1])",
    clauses=["timesteps.uniform", "timesteps.prev"],
)
def timesteps_hand_example(sub, ref):
    # stride 10 // 3 = 3: the multiples 0, 3, 6, descending; each jumps to the next, step 0 to -1.
    result = sub.ddim_timesteps.call(10, 3)
    _expect_schedule(result, 10, 3)


SCHEDULE_CASES = [(1000, 10), (1000, 3), (10, 4), (7, 2), (1000, 1), (1, 1), (5, 5), (999, 500), (50, 7), (12, 12)]


@check(
    "timesteps.stride",
    "Exactly S steps with the stride T // S, S dividing T or not; S = 1 and S = T",
    clauses=["timesteps.uniform", "timesteps.prev", "timesteps.order"],
)
def timesteps_stride(sub, ref):
    # (10, 4): stride 2 gives [6, 4, 2, 0]; a real stride 2.5 would give [7, 5, 2, 0], range(0, 10, 2) five steps,
    # a rounded linspace [9, 6, 3, 0]. (1000, 3): [666, 333, 0], not [999, 666, 333, 0]. (5, 5): every step.
    results = sub.ddim_timesteps.map([((t, s), {}) for t, s in SCHEDULE_CASES])
    for result, (t, s) in zip(results, SCHEDULE_CASES, strict=True):
        _expect_schedule(result, t, s, hint="not a rounded linspace from T - 1 down, not floor(i * T / S)")


@check("timesteps.order", "More sampling steps than training steps raises ValueError", clauses=["timesteps.order"])
def timesteps_order(sub, ref):
    expect_rejected(
        "ValueError",
        sub.ddim_timesteps,
        [
            ((10, 11), {}, "num_sampling_steps = 11 is more than num_train_steps = 10"),
            ((1, 2), {}, "num_sampling_steps = 2 is more than num_train_steps = 1"),
        ],
    )


# ------------------------------------------------------------------------------------------------- step

HAND_X_T, HAND_EPS, HAND_NOISE = [1.4, -0.2], [1.0, 0.5], [1.0, -1.0]  # x0_hat = [1, -1] at alpha_bar_t = 0.36
SIGMA_ONE = math.sqrt(63 / 256)  # eta = 1 between 0.36 and 0.64: (0.36 / 0.64)(1 - 0.36 / 0.64) = 63/256


@check(
    "step.hand_example",
    "Hand example: alpha-bars 0.36 -> 0.64 at eta = 0 and eta = 1, and the last step",
    clauses=["step.formula", "step.sigma", "step.last"],
)
def step_hand_example(sub, ref):
    x_t, eps, noise = _t(HAND_X_T), _t(HAND_EPS), _t(HAND_NOISE)
    results = sub.ddim_step.map(
        [
            ((x_t, eps, 0.36, 0.64), {}),
            ((x_t, eps, 0.36, 0.64, 1.0, noise), {}),
            ((x_t, eps, 0.36, 1.0, 1.0, noise), {}),
        ]
    )
    _expect_values(
        results[0],
        _t([1.4, -0.5]),
        hint="(x0_hat = (x_t - 0.8 eps) / 0.6 = [1, -1]; eta = 0: 0.8 x0_hat + 0.6 eps = [1.4, -0.5])",
    )
    _expect_values(
        results[1],
        _t([0.8 + 0.3375 + SIGMA_ONE, -0.8 + 0.16875 - SIGMA_ONE]),
        hint="(eta = 1: sigma^2 = (0.36 / 0.64)(1 - 0.36 / 0.64) = 63/256, sigma = 0.496078; the "
        "direction's coefficient is sqrt(1 - 0.64 - 63/256) = 0.3375: 0.8 [1, -1] + 0.3375 [1, 0.5] "
        "+ 0.496078 [1, -1] = [1.633578, -1.127328])",
    )
    _expect_values(
        results[2],
        _t([1.0, -1.0]),
        hint="(alpha_bar_prev = 1 is the jump to clean data: sigma = 0 and the direction's coefficient "
        "sqrt(1 - 1 - 0) = 0, so the result is x0_hat = [1, -1] whatever eta)",
    )


ETAS = (0.25, 0.5, 0.8)


@check(
    "step.sigma",
    "eta between 0 and 1: sigma = eta * sqrt(...), and sigma^2 taken from the direction",
    clauses=["step.sigma", "step.formula"],
)
def step_sigma(sub, ref):
    # At alpha-bars 0.36 -> 0.64: sigma = eta * 0.496078, direction sqrt(0.36 - eta^2 63/256). eta = 0 and eta = 1
    # hide eta applied twice (eta^2 = eta there) and eta * variance in place of sigma^2; these do not.
    x_t, eps, noise = _t(HAND_X_T), _t(HAND_EPS), _t(HAND_NOISE)
    results = sub.ddim_step.map([((x_t, eps, 0.36, 0.64, eta, noise), {}) for eta in ETAS])
    for result, eta in zip(results, ETAS, strict=True):
        sigma = eta * SIGMA_ONE
        direction = math.sqrt(0.36 - sigma**2)
        _expect_values(
            result,
            _step(x_t, eps, 0.36, 0.64, eta, noise),
            hint=f"(eta = {eta}: sigma = eta * 0.496078 = {sigma:.6f}, applied once, to the noise; the "
            f"direction's coefficient is sqrt(1 - 0.64 - sigma^2) = {direction:.6f}: "
            f"0.8 [1, -1] + {direction:.6f} [1, 0.5] + {sigma:.6f} [1, -1])",
        )


def _random_steps(seed):
    """(x_t, eps, a, p, eta, noise) over shapes, alpha-bars and etas; x0 of size ~3 (beyond [-1, 1])."""
    generator = torch.Generator().manual_seed(seed)
    cases = []
    pairs = [(0.02, 0.1), (0.3, 0.7), (0.5, 0.5), (0.9, 0.99), (0.001, 1.0), (0.6, 0.61)]
    shapes = [(5,), (3, 4), (2, 3, 2), (), (0, 3)]
    for index, (a, p) in enumerate(pairs):
        for eta in (0.0, 0.4, 1.0):
            shape = shapes[(index + int(10 * eta)) % len(shapes)]
            x0, eps = _randn(generator, shape, scale=3.0), _randn(generator, shape)
            x_t = math.sqrt(a) * x0 + math.sqrt(1 - a) * eps + 0.3 * _randn(generator, shape)  # eps off the truth
            noise = _randn(generator, shape)
            cases.append((x_t, eps, a, p, eta, noise))
    return cases


@check(
    "step.random",
    "Random steps against Eq. 12 over shapes, alpha-bars and eta, in float64 and float32",
    clauses=["step.formula", "step.sigma"],
)
def step_random(sub, ref):
    cases = _random_steps(11)
    calls = [((x_t, eps, a, p, eta, noise), {}) for x_t, eps, a, p, eta, noise in cases]
    calls += [((x_t.float(), eps.float(), a, p, eta, noise.float()), {}) for x_t, eps, a, p, eta, noise in cases]
    results = sub.ddim_step.map(calls)
    for result, (args, _) in zip(results, calls, strict=True):
        x_t, eps, a, p, eta, noise = args
        _expect_values(
            result,
            _step(x_t, eps, a, p, eta, noise).to(x_t.dtype),
            hint=f"(alpha_bar_t = {a}, alpha_bar_prev = {p}, eta = {eta}: x0_hat = (x_t - sqrt(1 - a) eps)"
            " / sqrt(a), unclipped; sigma = eta sqrt((1 - p) / (1 - a)) sqrt(1 - a / p); result "
            "sqrt(p) x0_hat + sqrt(1 - p - sigma^2) eps + sigma noise)",
        )


@check(
    "step.deterministic",
    "eta = 0: noise None, a random noise and a huge noise all give the same result",
    clauses=["step.deterministic"],
)
def step_deterministic(sub, ref):
    generator = torch.Generator().manual_seed(21)
    x_t, eps = _randn(generator, (4, 3)), _randn(generator, (4, 3))
    noise = _randn(generator, (4, 3))
    calls = [
        ((x_t, eps, 0.2, 0.5), {}),
        ((x_t, eps, 0.2, 0.5, 0.0, noise), {}),
        ((x_t, eps, 0.2, 0.5, 0, noise * 1e6), {}),
        ((x_t, eps, 0.2, 0.5), {"eta": 0.0, "noise": None}),
    ]
    results = sub.ddim_step.map(calls)
    expected = _step(x_t, eps, 0.2, 0.5, 0.0)
    for result in results:
        _expect_values(
            result,
            expected,
            hint="(eta = 0 makes sigma = 0: the step is deterministic, and a noise tensor, if given, "
            "must not change the result; with noise None it must not fail)",
        )


@check(
    "step.ddpm",
    "eta = 1 is DDPM's step: the posterior mean at x0_hat plus the posterior std times noise",
    clauses=["step.ddpm", "step.sigma"],
)
def step_ddpm(sub, ref):
    # Consecutive steps of the linear schedule (a single DDPM step) and a strided jump: x_prev must be
    # mean(x0_hat, x_t) + sqrt(variance) z of DDPM's posterior with beta = 1 - a / p.
    betas = torch.linspace(1e-4, 0.02, 1000, dtype=F64)
    abar = torch.cumprod(1 - betas, 0)
    jumps = [
        (float(abar[500]), float(abar[499])),
        (float(abar[1]), float(abar[0])),
        (float(abar[999]), float(abar[899])),
        (float(abar[0]), 1.0),
    ]
    generator = torch.Generator().manual_seed(31)
    calls, expected = [], []
    for a, p in jumps:
        x_t, eps, noise = _randn(generator, (6,)), _randn(generator, (6,)), _randn(generator, (6,))
        x0_hat = (x_t - math.sqrt(1 - a) * eps) / math.sqrt(a)
        mean, variance = _ddpm_posterior(x0_hat, x_t, a, p)
        calls.append(((x_t, eps, a, p, 1.0, noise), {}))
        expected.append(mean + math.sqrt(variance) * noise)
    results = sub.ddim_step.map(calls)
    for result, want, (a, p) in zip(results, expected, jumps, strict=True):
        _expect_values(
            result,
            want,
            hint=f"(eta = 1 from alpha-bar {a:.6g} to {p:.6g}: the result must be DDPM's posterior "
            "sample, mean sqrt(p) beta / (1 - a) x0_hat + sqrt(a / p) (1 - p) / (1 - a) x_t plus "
            "sqrt((1 - p) / (1 - a) beta) noise with beta = 1 - a / p; sigma^2 is exactly that "
            "variance when eta = 1)",
        )


@check(
    "step.last_no_clipping",
    "The last step (alpha_bar_prev = 1) returns x0_hat exactly, never clipped",
    clauses=["step.last", "step.formula"],
)
def step_last_no_clipping(sub, ref):
    # x0 of size ~5: clipping x0_hat to [-1, 1] (image code does) is not Eq. 12.
    generator = torch.Generator().manual_seed(41)
    x0 = _randn(generator, (3, 4), scale=5.0)
    eps, noise = _randn(generator, (3, 4)), _randn(generator, (3, 4))
    a = 0.9
    x_t = math.sqrt(a) * x0 + math.sqrt(1 - a) * eps
    calls = [((x_t, eps, a, 1.0, eta, noise), {}) for eta in (0.0, 0.5, 1.0)]
    calls.append(((x_t, eps, a, 1), {}))  # an int 1
    results = sub.ddim_step.map(calls)
    for result in results:
        _expect_values(
            result,
            x0,
            hint="(with alpha_bar_prev = 1 sigma and the direction vanish whatever eta, so the result is "
            "x0_hat = (x_t - sqrt(1 - a) eps) / sqrt(a), here values up to about 15, not clipped to "
            "[-1, 1]; nor may noise reach it)",
        )


@check(
    "step.forward",
    "With the true noise as eps, eta = 0 lands on the forward sample at the earlier step",
    clauses=["step.formula"],
)
def step_forward(sub, ref):
    # x_t = sqrt(a) x0 + sqrt(1 - a) e; the DDIM step with eps = e gives sqrt(p) x0 + sqrt(1 - p) e: the same x0
    # and the same noise at the earlier noise level (Eq. 7 of the paper's non-Markovian forward process).
    generator = torch.Generator().manual_seed(51)
    x0, e = _randn(generator, (8,), scale=3.0), _randn(generator, (8,))
    pairs = [(0.05, 0.3), (0.3, 0.9), (0.7, 0.7001)]
    calls = [((math.sqrt(a) * x0 + math.sqrt(1 - a) * e, e, a, p), {}) for a, p in pairs]
    results = sub.ddim_step.map(calls)
    for result, (a, p) in zip(results, pairs, strict=True):
        _expect_values(
            result,
            math.sqrt(p) * x0 + math.sqrt(1 - p) * e,
            hint=f"(x_t = sqrt({a}) x0 + sqrt(1 - {a}) e and eps = e, so x0_hat = x0 and the step must "
            f"give sqrt({p}) x0 + sqrt(1 - {p}) e: the coefficients are square roots of alpha-bars)",
        )


@check(
    "step.extremes",
    "Alpha-bars at their extremes: near 0, within an ulp of 1, equal; no nan",
    clauses=["step.formula", "step.sigma", "step.last"],
)
def step_extremes(sub, ref):
    # 1 - p - sigma^2 is a difference of nearly equal numbers when p is within an ulp or two of 1 and eta = 1: it
    # rounds to about -1e-32 for some a, and its square root must then be 0, not nan. Tiny alpha_bar_t divide by
    # sqrt(a) = 1e-5; equal alpha-bars make the step the identity.
    one_ulp, two_ulp = 1 - 2.0**-53, 1 - 2.0**-52
    cases = [
        (0.47214271545271336, one_ulp, 1.0),
        (0.008897082049078797, 1 - 4 * 2.0**-53, 1.0),
        (0.3, one_ulp, 1.0),
        (0.9, two_ulp, 1.0),
        (1e-10, 1e-9, 1.0),
        (1e-10, 1.0, 0.5),
        (0.5, 0.5, 1.0),
        (1 - 1e-12, 1.0, 1.0),
        (1 - 2e-12, 1 - 1e-12, 1.0),
    ]
    generator = torch.Generator().manual_seed(61)
    calls, expected = [], []
    for a, p, eta in cases:
        x_t, eps, noise = _randn(generator, (5,)), _randn(generator, (5,)), _randn(generator, (5,))
        calls.append(((x_t, eps, a, p, eta, noise), {}))
        expected.append(_step(x_t, eps, a, p, eta, noise))
    results = sub.ddim_step.map(calls)
    for result, want, (a, p, eta) in zip(results, expected, cases, strict=True):
        _expect_values(
            result,
            want,
            hint=f"(alpha_bar_t = {a!r}, alpha_bar_prev = {p!r}, eta = {eta}: when 1 - alpha_bar_prev - "
            "sigma^2 rounds below 0 take it as 0; compute the coefficients in float64 Python "
            "numbers)",
        )


@check(
    "step.refusals",
    "alpha_bar_prev below alpha_bar_t, and eta > 0 without noise, raise ValueError",
    clauses=["step.refusals"],
)
def step_refusals(sub, ref):
    x = _t([0.5, -0.5])
    expect_rejected(
        "ValueError",
        sub.ddim_step,
        [
            (
                (x, x.clone(), 0.6, 0.4),
                {},
                "alpha_bar_prev = 0.4 is below alpha_bar_t = 0.6 (a step goes to less noise)",
            ),
            ((x, x.clone(), 0.6, 0.4, 1.0, x.clone()), {}, "alpha_bar_prev = 0.4 is below alpha_bar_t = 0.6"),
            ((x, x.clone(), 0.3, 0.6, 0.5), {}, "eta = 0.5 > 0 needs a noise tensor, and noise is None"),
            ((x, x.clone(), 0.3, 0.6, 1e-3, None), {}, "eta = 0.001 > 0 needs a noise tensor, and noise is None"),
        ],
    )


# --------------------------------------------------------------------------------------------- guidance


@check(
    "guidance.hand_example",
    "Hand example: w = 2 gives 3 eps_cond - 2 eps_uncond = [2, -4]; w = 0 gives eps_cond",
    clauses=["guidance.formula"],
)
def guidance_hand_example(sub, ref):
    cond, uncond = _t([1.0, 0.0]), _t([0.5, 2.0])
    results = sub.classifier_free_guidance.map(
        [((cond, uncond, 2), {}), ((cond, uncond, 0.0), {}), ((cond, uncond, 0.5), {})]
    )
    _expect_values(
        results[0],
        _t([2.0, -4.0]),
        hint="(the paper's weight: (1 + w) eps_cond - w eps_uncond = 3 [1, 0] - 2 [0.5, 2] = [2, -4]; "
        "eps_uncond + w (eps_cond - eps_uncond) is the other convention, with w = 1 unguided)",
    )
    _expect_values(
        results[1], _t([1.0, 0.0]), hint="(w = 0 is the conditional model unguided: eps_cond itself, as a new tensor)"
    )
    _expect_values(results[2], _t([1.25, -1.0]), hint="(1.5 [1, 0] - 0.5 [0.5, 2] = [1.25, -1])")


@check(
    "guidance.random",
    "Random predictions of several shapes, w from 0 to 7.5, float64 and float32; the weights add up to 1",
    clauses=["guidance.formula"],
)
def guidance_random(sub, ref):
    generator = torch.Generator().manual_seed(71)
    shapes = [(6,), (2, 4, 3, 3), (3, 5), ()]
    weights = (0.0, 0.3, 3.0, 7.5)
    calls, expected = [], []
    for dtype in (F64, torch.float32):
        for shape, w in zip(shapes, weights, strict=True):
            cond, uncond = _randn(generator, shape, dtype), _randn(generator, shape, dtype)
            calls.append(((cond, uncond, w), {}))
            expected.append(((1 + w) * cond.double() - w * uncond.double()).to(dtype))
    same = _randn(generator, (2, 4, 3, 3))
    calls.append(((same, same.clone(), 4.0), {}))  # equal predictions: the guided one is the same
    expected.append(same.clone())
    results = sub.classifier_free_guidance.map(calls)
    for result, want, (args, _) in zip(results, expected, calls, strict=True):
        _expect_values(
            result,
            want,
            hint=f"(w = {args[2]}: (1 + w) eps_cond - w eps_uncond on every element, of every channel; "
            "the weights 1 + w and -w add up to 1, so equal predictions come back unchanged)",
        )


# -------------------------------------------------------------------------------------------- experiment

MODES, RADIUS, SPREAD = 8, 2.0, 0.15  # eight Gaussians of std 0.15 on a circle of radius 2
TRAIN_STEPS, PARTICLES, REFERENCE_SAMPLES = 1000, 256, 512
SAMPLING_STEPS = [1, 2, 5, 10, 20]
GUIDANCE = {"w0": 0.0, "w3": 3.0}


def _centres():
    angles = torch.arange(MODES, dtype=F64) * (2 * math.pi / MODES)
    return RADIUS * torch.stack([angles.cos(), angles.sin()], dim=1)  # (K, 2)


def _exact_eps(x, alpha_bar, centres, cls=None):
    """The exact noise predictor E[eps | x_t] of the mixture (or of its component `cls`): the noisy marginal is a
    mixture of N(sqrt(a) mu_k, v I) with v = a s^2 + 1 - a, so eps = sqrt(1 - a) (x - sqrt(a) E[mu | x]) / v."""
    v = alpha_bar * SPREAD**2 + 1 - alpha_bar
    means = math.sqrt(alpha_bar) * centres  # (K, 2)
    if cls is None:
        weights = torch.softmax(-((x[:, None, :] - means[None]) ** 2).sum(-1) / (2 * v), dim=1)  # (N, K)
        centre = weights @ means
    else:
        centre = means[cls]
    return math.sqrt(1 - alpha_bar) * (x - centre) / v


def _energy_distance(x, y, y_spread):
    """2 E|X - Y| - E|X - X'| - E|Y - Y'|, with E|Y - Y'| (the data's own term) computed once by the caller."""
    return float(2 * torch.cdist(x, y).mean() - torch.cdist(x, x).mean()) - y_spread


@check(
    "experiment.sampling",
    "Your functions sample a 2-D mixture of eight Gaussians at 1 to 20 steps, with eta = 0 "
    "and 1, and guided towards one class",
    group="experiment",
    required=False,
)
def experiment(sub, ref, ctx):
    centres = _centres()
    alphas_cumprod = torch.cumprod(1 - torch.linspace(1e-4, 0.02, TRAIN_STEPS, dtype=F64), 0)
    schedules = sub.ddim_timesteps.map([((TRAIN_STEPS, s), {}) for s in SAMPLING_STEPS])
    generator = torch.Generator().manual_seed(81)
    data = centres[torch.randint(0, MODES, (REFERENCE_SAMPLES,), generator=generator)]
    data = data + SPREAD * torch.randn(REFERENCE_SAMPLES, 2, generator=generator, dtype=F64)
    data_spread = float(torch.cdist(data, data).mean())
    start = torch.randn(PARTICLES, 2, generator=generator, dtype=F64)  # one draw of x_T shared by every chain
    chains = []  # (name, S, steps, eta, guidance weight or None)
    for s, result in zip(SAMPLING_STEPS, schedules, strict=True):
        got = result.unwrap()
        if not isinstance(got, tuple) or len(got) != 2:
            fail(f"the experiment needs {result.call} to return (timesteps, prev_timesteps)")
        pairs = list(zip(got[0].tolist(), got[1].tolist(), strict=True))
        chains += [("eta0", s, pairs, 0.0, None), ("eta1", s, pairs, 1.0, None)]
        chains += [(name, s, pairs, 0.0, w) for name, w in GUIDANCE.items()]
    states = [start.clone() for _ in chains]
    for round_index in range(max(len(c[2]) for c in chains)):
        active = [i for i, c in enumerate(chains) if round_index < len(c[2])]
        levels = {}
        for i in active:
            t, t_prev = chains[i][2][round_index]
            levels[i] = (float(alphas_cumprod[t]), 1.0 if t_prev < 0 else float(alphas_cumprod[t_prev]))
        guided = [i for i in active if chains[i][4] is not None]
        eps = {i: _exact_eps(states[i], levels[i][0], centres) for i in active if chains[i][4] is None}
        if guided:
            results = sub.classifier_free_guidance.map(
                [
                    (
                        (
                            _exact_eps(states[i], levels[i][0], centres, cls=0),
                            _exact_eps(states[i], levels[i][0], centres),
                            chains[i][4],
                        ),
                        {},
                    )
                    for i in guided
                ]
            )
            for i, result in zip(guided, results, strict=True):
                eps[i] = expect_tensor(result.unwrap(), shape=(PARTICLES, 2), call=result).detach().double()
        noise = torch.randn(PARTICLES, 2, generator=generator, dtype=F64)  # one draw per round, shared
        results = sub.ddim_step.map([((states[i], eps[i], *levels[i], chains[i][3], noise), {}) for i in active])
        for i, result in zip(active, results, strict=True):
            states[i] = expect_tensor(result.unwrap(), shape=(PARTICLES, 2), call=result).detach().double()
    series = {
        name: []
        for name in (
            "on_modes_eta0",
            "on_modes_eta1",
            "energy_eta0",
            "energy_eta1",
            "log10_energy_eta0",
            "log10_energy_eta1",
            "class_distance_w0",
            "class_distance_w3",
            "class_radius_w0",
            "class_radius_w3",
            "outward_w0",
            "outward_w3",
        )
    }
    for (name, _, _, _, w), x in zip(chains, states, strict=True):
        expect(bool(torch.isfinite(x).all()), "the sampled particles are not finite")
        if w is None:
            nearest = torch.cdist(x, centres).min(dim=1).values
            series[f"on_modes_{name}"].append(float((nearest < 3 * SPREAD).double().mean()))
            energy = _energy_distance(x, data, data_spread)
            series[f"energy_{name}"].append(energy)
            series[f"log10_energy_{name}"].append(math.log10(max(energy, 1e-12)))  # the chart: 0.6 and 0.004 apart
        else:
            series[f"class_distance_{name}"].append(float((x - centres[0]).norm(dim=1).mean()))
            series[f"class_radius_{name}"].append(float(x.norm(dim=1).mean()))  # the circle of centres: radius 2
            series[f"outward_{name}"].append(float((x.norm(dim=1) > RADIUS).double().mean()))
    ctx.record_experiment(x_label="sampling steps S", steps=SAMPLING_STEPS, series=series)
    landed = series["on_modes_eta0"][-1]
    expect(
        landed > 0.5,
        f"with {SAMPLING_STEPS[-1]} deterministic steps of your sampler only {landed:.0%} of the particles end within "
        "three standard deviations of a mixture centre (a correct one: about 96 %): the steps do not carry the "
        "noise down to the data; check which alpha-bars each step is given (the schedule's prev_timesteps) and the "
        "coefficients of the step",
    )
