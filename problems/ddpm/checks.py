"""Check battery for the DDPM problem: linear_beta_schedule, q_sample and posterior_mean_variance (Ho et al., 2020).

The contract of problem.toml (shapes, dtypes, layouts, storage, gradients, refusals, random values against the
reference) is checked by the generic battery (`contract.*`); the checks here are the hand examples, the order of
the schedule's ends, per-example broadcasting, the first step and float32 betas, and the experiment. Groups:
`schedule`, `sample`, `posterior` and `contract` are required; `experiment` is advisory (the schedule and a toy
1-D denoising for the notes). Every check names the contract clauses of problem.toml it tests; every random
input comes from a seeded generator, so two runs give identical verdicts.

float32 results are compared with the exact answer: the reference evaluated in float64 on the same inputs
(tables included, as given), rounded to float32.
"""

import math

import torch

from grader.checks import (
    check,
    expect,
    expect_close,
    expect_equal,
    expect_rejected,
    expect_tensor,
    fail,
    legal_inputs,
)

# float32: data of magnitude <= ~4 times coefficients <= 1 carry a rounding error of a few eps32 * 4 ~ 1e-6, and
# casting a float64 table to float32 before the square root moves sqrt(1 - abar) by up to 3e-8 / (2 * 0.01) per
# unit of noise; 2e-5 admits both. Every mutant is off by > 1e-4 (the float32 cumulative product by 1.7e-4 * |x0|).
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 2e-5
DEFAULT_BETAS = torch.linspace(1e-4, 0.02, 1000, dtype=torch.float64)

# ------------------------------------------------------------------------------------------------ inputs


def _randn(generator, shape, dtype=torch.float64):
    return torch.randn(shape, generator=generator, dtype=torch.float64).to(dtype)


def _steps(generator, n, num_steps, *, include_ends=True):
    """n zero-based steps in [0, T), the first two being 0 and T - 1 when there is room (the edge cases)."""
    t = torch.randint(0, num_steps, (n,), generator=generator)
    if include_ends and n >= 2:
        t[0], t[1] = 0, num_steps - 1
    return t


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == torch.float32 else (1e-7, 1e-9)


def _exact_sample(ref, x0, t, noise, alphas_cumprod):
    return ref.q_sample(x0.detach().double(), t, noise.detach().double(), alphas_cumprod.double()).to(x0.dtype)


def _exact_posterior(ref, x0, xt, t, betas):
    mean, variance = ref.posterior_mean_variance(x0.detach().double(), xt.detach().double(), t, betas.double())
    return mean.to(x0.dtype), variance.to(x0.dtype)


def _expect_tensor_close(result, got, expected, *, what="the result", hint=""):
    expect_tensor(got, shape=tuple(expected.shape), dtype=expected.dtype, what=what, call=result)
    if expected.numel() and not torch.isfinite(got.detach()).all():
        fail(f"{what} of {result.call} has non-finite values (nan or inf) where every value is finite"
             f"{' ' + hint if hint else ''}")
    rtol, atol = _tolerances(expected.dtype)
    expect_close(got, expected, what=what, call=result, rtol=rtol, atol=atol, hint=hint)


def _expect_pair(result, expected, *, hint=""):
    """The learner's (mean, variance) against the expected pair, part by part."""
    got = result.unwrap()
    if not isinstance(got, tuple | list) or len(got) != 2:
        fail(f"{result.call} must return a tuple (mean, variance), got {type(got).__name__}")
    _expect_tensor_close(result, got[0], expected[0], what="the mean", hint=hint)
    _expect_tensor_close(result, got[1], expected[1], what="the variance", hint=hint)


# ---------------------------------------------------------------------------------------------- schedule


@check("schedule.hand_example", "Hand example: linear_beta_schedule(3, 0.1, 0.3) is [0.1, 0.2, 0.3] in float64",
       clauses=["schedule.values"])
def schedule_hand_example(sub, ref):
    result = sub.linear_beta_schedule.call(3, 0.1, 0.3)
    _expect_tensor_close(result, result.unwrap(), torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64),
                         hint="(three evenly spaced values with both ends included, as float64)")


@legal_inputs("linear_beta_schedule")
def _end_not_below_start(args, sizes):
    """beta_end is at least beta_start (a relation ranges cannot state)."""
    args["beta_end"] = max(args["beta_end"], args["beta_start"])
    return args


@check("schedule.order", "beta_start above beta_end raises ValueError", clauses=["schedule.order"])
def schedule_order(sub, ref):
    expect_rejected("ValueError", sub.linear_beta_schedule, [
        ((10, 0.03, 0.02), {}, "beta_start = 0.03 is above beta_end = 0.02"),
        ((10, 0.5), {}, "beta_start = 0.5 is above the default beta_end = 0.02"),
    ])


# ------------------------------------------------------------------------------------------------ sample


@check("sample.hand_example", "Hand example: abar = [0.64, 0.36] gives [0.8, 0.6] and [2, 0.2]",
       clauses=["sample.formula"])
def sample_hand_example(sub, ref):
    # example 0 at t = 0: 0.8 * [1, 0] + 0.6 * [0, 1]; example 1 at t = 1: 0.6 * [2, -1] + 0.8 * [1, 1].
    x0 = torch.tensor([[1.0, 0.0], [2.0, -1.0]], dtype=torch.float64)
    noise = torch.tensor([[0.0, 1.0], [1.0, 1.0]], dtype=torch.float64)
    result = sub.q_sample.call(x0, torch.tensor([0, 1]), noise, torch.tensor([0.64, 0.36], dtype=torch.float64))
    _expect_tensor_close(result, result.unwrap(), torch.tensor([[0.8, 0.6], [2.0, 0.2]], dtype=torch.float64),
                         hint="(x_t = sqrt(abar) x0 + sqrt(1 - abar) noise: the coefficients are square roots, and "
                         "t = 0 is alphas_cumprod[0])")


def _sample_case(seed, shape, dtype, table_dtype, num_steps=100):
    generator = torch.Generator().manual_seed(seed)
    x0, noise = _randn(generator, shape, dtype), _randn(generator, shape, dtype)
    t = _steps(generator, shape[0], num_steps)
    alphas_cumprod = torch.cumprod(1 - torch.linspace(1e-4, 0.05, num_steps, dtype=torch.float64), 0)
    return x0, t, noise, alphas_cumprod.to(table_dtype)


@check("sample.broadcast", "Each example's coefficient scales all of it: shapes [N], [N, N], [N, C, H, W], N = 0",
       clauses=["sample.broadcast"])
def sample_broadcast(sub, ref):
    # [N, N] is the shape where a coefficient lined up with the last axis goes unnoticed by the shapes alone.
    shapes = [(5,), (4, 4), (3, 3), (2, 3, 4, 4), (3, 1, 2, 2), (2, 3, 5), (0, 3)]
    cases = [_sample_case(20 + i, shape, torch.float64, torch.float64) for i, shape in enumerate(shapes)]
    results = sub.q_sample.map([(case, {}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        _expect_tensor_close(result, result.unwrap(), _exact_sample(ref, *case),
                             hint=f"(example i's coefficient must scale all of x0[i]: pick alphas_cumprod[t] and "
                             f"reshape it to [N{', 1' * (len(case[0].shape) - 1)}])")


# --------------------------------------------------------------------------------------------- posterior

HAND_BETAS = torch.tensor([0.36, 0.75], dtype=torch.float64)


@check("posterior.hand_example", "Hand example: weights 5/7 and 3/14, variance 9/28 at t = 1; mean x0, variance 0 "
       "at t = 0", clauses=["posterior.formula", "posterior.first_step"])
def posterior_hand_example(sub, ref):
    # alphas [0.64, 0.25], abar [0.64, 0.16], abar_prev [1, 0.64]; at t = 1: 0.8 * 0.75 / 0.84 = 5/7,
    # 0.5 * 0.36 / 0.84 = 3/14 and 0.36 * 0.75 / 0.84 = 9/28.
    x0 = torch.tensor([[3.0, -1.0], [7.0, 0.0]], dtype=torch.float64)
    xt = torch.tensor([[10.0, 10.0], [0.0, 14.0]], dtype=torch.float64)
    result = sub.posterior_mean_variance.call(x0, xt, torch.tensor([0, 1]), HAND_BETAS)
    expected = (torch.tensor([[3.0, -1.0], [5.0, 3.0]], dtype=torch.float64),
                torch.tensor([0.0, 9 / 28], dtype=torch.float64))
    _expect_pair(result, expected, hint="(at t = 1 the weights are sqrt(abar_prev) beta / (1 - abar) = 5/7 and "
                 "sqrt(alpha) (1 - abar_prev) / (1 - abar) = 3/14, the variance (1 - abar_prev) / (1 - abar) beta "
                 "= 9/28; at t = 0, abar_prev = 1)")


@check("posterior.first_step", "At t = 0 the mean is x0 and the variance exactly 0 (abar_prev = 1, no wrap-around)",
       clauses=["posterior.first_step"])
def posterior_first_step(sub, ref):
    generator = torch.Generator().manual_seed(30)
    x0, xt = _randn(generator, (3, 4)), _randn(generator, (3, 4))
    t = torch.zeros(3, dtype=torch.int64)
    results = sub.posterior_mean_variance.map([((x0, xt, t, DEFAULT_BETAS), {}),
                                               ((x0, xt, t, torch.tensor([0.3, 0.2, 0.1], dtype=torch.float64)), {})])
    for result in results:
        mean, variance = result.unwrap()
        _expect_tensor_close(result, mean, x0, what="the mean",
                             hint="(at t = 0 the step back lands on the data: abar_prev = 1, the empty product, and "
                             "1 - abar_0 = beta_0, so the weights are 1 for x0 and 0 for xt; indexing with t - 1 "
                             "reads the last step instead)")
        expect_tensor(variance, shape=(3,), dtype=torch.float64, what="the variance", call=result)
        expect_equal(variance, torch.zeros(3, dtype=torch.float64), what="the variance", call=result,
                     hint="(1 - abar_prev = 1 - 1 = 0 at t = 0: the variance is exactly 0)")


@check("posterior.float32_betas", "float32 betas give the float64 answer: the cumulative products are computed in "
       "float64", clauses=["posterior.precision"])
def posterior_float32_betas(sub, ref):
    # 1 - abar_t for the first steps is ~1e-4; computed in float32 it is off by up to 1.7e-4 relative, which moves
    # the mean at t = 0 away from x0 by that fraction of |x0|.
    betas = DEFAULT_BETAS.float()
    generator = torch.Generator().manual_seed(50)
    x0, xt = _randn(generator, (6, 3), torch.float32), _randn(generator, (6, 3), torch.float32)
    t = torch.tensor([0, 1, 2, 3, 500, 999])
    result = sub.posterior_mean_variance.call(x0, xt, t, betas)
    _expect_pair(result, _exact_posterior(ref, x0, xt, t, betas),
                 hint="(compute alphas, their cumulative product and the shifted one in float64, then cast to x0's "
                 "dtype: in float32, 1 - abar for the first steps loses three of its seven digits)")


# --------------------------------------------------------------------------------------------- experiment

TOY_STEPS, TOY_PARTICLES = 12, 256


@check("experiment.toy_denoising", "Experiment: your schedule, and 256 particles denoised onto {-1, +1} through your "
       "posterior")
def experiment_toy_denoising(sub, ref, ctx):
    # Data: x0 = -1 or +1 with equal probability. The best denoiser is then known in closed form,
    # E[x0 | x_t] = tanh(sqrt(abar_t) x_t / (1 - abar_t)), and stands in for a trained network; each reverse step
    # samples x_{t-1} from your posterior N(mean(x0_hat, x_t), variance), from t = T - 1 down to t = 0.
    betas = sub.linear_beta_schedule(TOY_STEPS, 0.02, 0.6)
    if not isinstance(betas, torch.Tensor) or betas.shape != (TOY_STEPS,):
        fail("the experiment needs linear_beta_schedule(12, 0.02, 0.6) to return a tensor [12]")
    alphas_cumprod = torch.cumprod(1 - betas.double(), 0)
    steps, ones, zeros = torch.arange(TOY_STEPS), torch.ones(TOY_STEPS).double(), torch.zeros(TOY_STEPS).double()
    # x0 = 1 with no noise gives sqrt(abar_t) for each t; x0 = 0 with unit noise gives sqrt(1 - abar_t)
    signal, noise_scale = (expect_tensor(result.unwrap(), shape=(TOY_STEPS,), call=result) for result in
                           sub.q_sample.map([((ones, steps, zeros, alphas_cumprod), {}),
                                             ((zeros, steps, ones, alphas_cumprod), {})]))
    generator = torch.Generator().manual_seed(90)
    x = torch.randn(TOY_PARTICLES, generator=generator, dtype=torch.float64)
    distance, variances = [0.0] * TOY_STEPS, [0.0] * TOY_STEPS
    for step in reversed(range(TOY_STEPS)):
        distance[step] = float(torch.minimum((x - 1).abs(), (x + 1).abs()).mean())
        abar = float(alphas_cumprod[step])
        x0_hat = torch.tanh(math.sqrt(abar) * x / (1 - abar))
        t = torch.full((TOY_PARTICLES,), step, dtype=torch.int64)
        result = sub.posterior_mean_variance.call(x0_hat, x, t, betas)
        mean, variance = result.unwrap()
        expect_tensor(mean, shape=(TOY_PARTICLES,), what="the mean", call=result)
        expect_tensor(variance, shape=(TOY_PARTICLES,), what="the variance", call=result)
        variances[step] = float(variance[0])
        z = torch.randn(TOY_PARTICLES, generator=generator, dtype=torch.float64)
        x = mean + variance.clamp_min(0).sqrt() * z
    expect(bool(torch.isfinite(x).all()), "the toy denoising produced non-finite particles")
    ctx.record_experiment(x_label="timestep t", steps=list(range(TOY_STEPS)), series={
        "signal_coefficient": [float(v) for v in signal],
        "noise_coefficient": [float(v) for v in noise_scale],
        "posterior_variance": variances,
        "distance_to_data": distance,
    })
