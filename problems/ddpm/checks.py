"""Check battery for the DDPM problem: linear_beta_schedule, q_sample and posterior_mean_variance (Ho et al., 2020).

Groups: `schedule`, `sample`, `posterior`, `gradients` and `contract` are required; `experiment` is advisory (the
schedule and a toy 1-D denoising for the notes). Every check names the contract clauses of problem.toml it
tests; every random input comes from a seeded generator, so two runs give identical verdicts.

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
    expect_grad_close,
    expect_no_alias,
    expect_rejected,
    expect_tensor,
    expect_unchanged,
    fail,
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
       clauses=["schedule.values", "schedule.result"])
def schedule_hand_example(sub, ref):
    result = sub.linear_beta_schedule.call(3, 0.1, 0.3)
    _expect_tensor_close(result, result.unwrap(), torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64),
                         hint="(three evenly spaced values with both ends included, as float64)")


@check("schedule.ends_and_defaults", "Defaults 1e-4 and 0.02; index 0 is beta_start, index T - 1 is beta_end; "
       "T = 1 gives [beta_start]; no rescaling by T", clauses=["schedule.values"])
def schedule_ends_and_defaults(sub, ref):
    calls = [((1000,), {}), ((10,), {}), ((1,), {}), ((2, 0.25, 0.5), {}), ((7,), {"beta_start": 0.003,
                                                                                    "beta_end": 0.003}),
             ((50,), {"beta_end": 0.5})]
    results = sub.linear_beta_schedule.map(calls)
    for result, (args, kwargs) in zip(results, calls, strict=True):
        _expect_tensor_close(result, result.unwrap(), ref.linear_beta_schedule(*args, **kwargs),
                             hint="(torch.linspace(beta_start, beta_end, T): index 0 is beta_start and index T - 1 "
                             "is beta_end, whatever T is)")


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


@check("sample.random", "Random batches in float64 and float32, with float64 and float32 tables, match Eq. 4",
       clauses=["sample.formula"])
def sample_random(sub, ref):
    specs = [((6, 5), torch.float64, torch.float64), ((4, 3), torch.float32, torch.float64),
             ((5, 2), torch.float32, torch.float32), ((3, 7), torch.float64, torch.float32)]
    cases = [_sample_case(10 + i, *spec) for i, spec in enumerate(specs)]
    results = sub.q_sample.map([(case, {}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        _expect_tensor_close(result, result.unwrap(), _exact_sample(ref, *case))


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
       "at t = 0", clauses=["posterior.formula", "posterior.first_step", "posterior.shapes"])
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


def _posterior_case(seed, shape, dtype, betas):
    generator = torch.Generator().manual_seed(seed)
    x0, xt = _randn(generator, shape, dtype), _randn(generator, shape, dtype)
    return x0, xt, _steps(generator, shape[0], betas.shape[0]), betas


@check("posterior.random", "Random steps and shapes in float64 and float32 match Eqs. 6-7",
       clauses=["posterior.formula", "posterior.shapes"])
def posterior_random(sub, ref):
    short = torch.linspace(0.05, 0.4, 12, dtype=torch.float64)
    specs = [((6, 3), torch.float64, DEFAULT_BETAS), ((5,), torch.float64, short), ((4, 4), torch.float64, short),
             ((2, 3, 2, 2), torch.float32, short), ((7, 2), torch.float32, DEFAULT_BETAS)]
    cases = [_posterior_case(40 + i, *spec) for i, spec in enumerate(specs)]
    results = sub.posterior_mean_variance.map([(case, {}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        _expect_pair(result, _exact_posterior(ref, *case))


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


# ---------------------------------------------------------------------------------------------- gradients


def _reference_grads(function, args, wanted, cotangent):
    """d sum(cotangent * result) / d args for the named positions, with the reference in float64."""
    leaves = [a.detach().double().requires_grad_(i in wanted) if isinstance(a, torch.Tensor) and a.is_floating_point()
              else a for i, a in enumerate(args)]
    value = function(*leaves)
    value = value[0] if isinstance(value, tuple) else value  # only the mean depends on the data
    # backward of one scalar: backward(gradient=...) of a non-scalar first costs a process ~1.5 s of lazy imports
    (value * cotangent.double()).sum().backward()
    return {i: leaves[i].grad.to(args[i].dtype) for i in wanted}


def _central_differences(function, args, positions, grad_output=None, eps=1e-6):
    """{position: d sum(grad_output * result) / d args[position]} by central differences of the learner's own
    function, for every position in ONE round trip (grader.checks.central_differences makes one per argument,
    and on a busy grader each round trip costs more than the arithmetic). Step 1e-6 in float64: truncation
    ~1e-12 times the third derivative, rounding ~1e-16 / 1e-6."""
    calls, layout = [], []
    for position in positions:
        base = args[position]
        layout.append((position, base.shape, base.numel()))
        for flat in range(base.numel()):
            for sign in (1.0, -1.0):
                shifted = base.detach().clone()
                shifted.view(-1)[flat] += sign * eps
                calls.append((args[:position] + (shifted,) + args[position + 1:], {}))
    cotangents = None if grad_output is None else (
        list(grad_output) if isinstance(grad_output, tuple | list) else [grad_output])
    values = []
    for result in function.map(calls):
        value = result.unwrap()
        if cotangents is None:
            values.append(float(expect_tensor(value, shape=(), call=result)))
            continue
        parts = list(value) if isinstance(value, tuple | list) else [value]
        if len(parts) != len(cotangents):
            fail(f"{result.call}: expected {len(cotangents)} result tensor(s), got {len(parts)}")
        values.append(sum(float((expect_tensor(part, shape=tuple(c.shape), call=result).detach().double()
                                 * c.double()).sum()) for part, c in zip(parts, cotangents, strict=True)))
    gradients, offset = {}, 0
    for position, shape, count in layout:
        pairs = values[offset:offset + 2 * count]
        gradients[position] = torch.tensor([(pairs[2 * i] - pairs[2 * i + 1]) / (2 * eps) for i in range(count)],
                                           dtype=torch.float64).reshape(shape)
        offset += 2 * count
    return gradients


@check("gradients.q_sample", "Gradients of the sample into x0 and noise are sqrt(abar) and sqrt(1 - abar) per "
       "example", clauses=["gradients.data"])
def gradients_q_sample(sub, ref):
    x0, t, noise, alphas_cumprod = _sample_case(60, (3, 2), torch.float64, torch.float64, num_steps=10)
    result = sub.q_sample.call(x0.clone().requires_grad_(), t, noise.clone().requires_grad_(), alphas_cumprod,
                               grads=("x0", "noise"))
    result.unwrap()
    expected = _reference_grads(ref.q_sample, (x0, t, noise, alphas_cumprod), {0, 2}, result.grad_output)
    numeric = _central_differences(sub.q_sample, (x0, t, noise, alphas_cumprod), (0, 2), result.grad_output)
    for name, position in (("x0", 0), ("noise", 2)):
        if result.grads.get(name) is None:
            fail(f"after backward() on {result.call}, {name}.grad is None: x_t depends linearly on {name}, so keep "
                 f"it in the graph (no .detach(), no torch.no_grad(), no .item() or .tolist())")
        expect_grad_close(result, name, expected[position], hint="(d x_t / d x0 = sqrt(abar_t) and d x_t / d noise "
                          "= sqrt(1 - abar_t), per example)")
        expect_grad_close(result, name, numeric[position], rtol=1e-5, atol=1e-8, source="central finite differences")


@check("gradients.posterior", "Gradients of the posterior mean into x0 and xt are its two weights per example",
       clauses=["gradients.data"])
def gradients_posterior(sub, ref):
    x0, xt, t, betas = _posterior_case(70, (3, 2), torch.float64, torch.linspace(0.05, 0.4, 6, dtype=torch.float64))
    result = sub.posterior_mean_variance.call(x0.clone().requires_grad_(), xt.clone().requires_grad_(), t, betas,
                                              grads=("x0", "xt"))
    result.unwrap()
    cotangent = result.grad_output[0] if isinstance(result.grad_output, tuple | list) else result.grad_output
    expected = _reference_grads(ref.posterior_mean_variance, (x0, xt, t, betas), {0, 1}, cotangent)
    numeric = _central_differences(sub.posterior_mean_variance, (x0, xt, t, betas), (0, 1), result.grad_output)
    for name, position in (("x0", 0), ("xt", 1)):
        if result.grads.get(name) is None:
            fail(f"after backward() on {result.call}, {name}.grad is None: the mean depends linearly on {name} (a "
                 f"model that predicts x0 is trained through it), so keep it in the graph")
        expect_grad_close(result, name, expected[position], hint="(d mean / d x0 and d mean / d xt are the two "
                          "weights of Eq. 7 for each example's step)")
        expect_grad_close(result, name, numeric[position], rtol=1e-5, atol=1e-8, source="central finite differences")


# ----------------------------------------------------------------------------------------------- contract


@check("contract.result", "Results have the contract's shapes and dtypes (schedule float64, the rest x0's dtype)",
       clauses=["schedule.result", "posterior.shapes", "contract.result"])
def contract_result(sub, ref):
    schedule = sub.linear_beta_schedule.call(5)
    expect_tensor(schedule.unwrap(), shape=(5,), dtype=torch.float64, requires_grad=False, call=schedule)
    x0, t, noise, alphas_cumprod = _sample_case(80, (3, 2, 2), torch.float32, torch.float64)
    sample = sub.q_sample.call(x0.clone().requires_grad_(), t, noise, alphas_cumprod)
    expect_tensor(sample.unwrap(), shape=(3, 2, 2), dtype=torch.float32, requires_grad=True, call=sample)
    posterior = sub.posterior_mean_variance.call(x0.clone().requires_grad_(), noise, t, DEFAULT_BETAS[:100])
    mean, variance = posterior.unwrap()
    expect_tensor(mean, shape=(3, 2, 2), dtype=torch.float32, requires_grad=True, what="the mean", call=posterior)
    expect_tensor(variance, shape=(3,), dtype=torch.float32, what="the variance", call=posterior)


@check("contract.inputs_unchanged", "No input is modified and no result shares an input's storage",
       clauses=["contract.result"])
def contract_inputs_unchanged(sub, ref):
    x0, t, noise, alphas_cumprod = _sample_case(81, (3, 2), torch.float64, torch.float64)
    results = [sub.q_sample.call(x0 * 1, t.clone(), noise * 1, alphas_cumprod * 1),
               sub.q_sample.call(x0 * 1, torch.zeros(3, dtype=torch.int64), noise * 1, torch.ones(4).double()),
               sub.posterior_mean_variance.call(x0 * 1, noise * 1, t.clone(), DEFAULT_BETAS[:100] * 1)]
    for result in results:
        expect_unchanged(result)
        expect_no_alias(result)


@check("contract.type_errors", "Wrong kinds of argument raise TypeError", clauses=["contract.types"])
def contract_type_errors(sub, ref):
    x0, t, noise, alphas_cumprod = _sample_case(82, (3, 2), torch.float64, torch.float64)
    betas = DEFAULT_BETAS[:100]
    expect_rejected("TypeError", sub.linear_beta_schedule, [
        ((10.0,), {}, "T is a float, not an int"),
        ((True,), {}, "T is a bool"),
        ((torch.tensor(10),), {}, "T is a tensor, not a Python int"),
        ((10, "1e-4", 0.02), {}, "beta_start is a string"),
        ((10, 1e-4, torch.tensor(0.02)), {}, "beta_end is a tensor"),
        ((10, True, 0.02), {}, "beta_start is a bool"),
    ])
    expect_rejected("TypeError", sub.q_sample, [
        ((x0.tolist(), t, noise, alphas_cumprod), {}, "x0 is a list, not a tensor"),
        ((x0, t.tolist(), noise, alphas_cumprod), {}, "t is a list, not a tensor"),
        ((x0, t.int(), noise, alphas_cumprod), {}, "t is int32, not int64"),
        ((x0, t.double(), noise, alphas_cumprod), {}, "t holds floats, not int64 step indices"),
        ((x0, t, noise.float(), alphas_cumprod), {}, "noise is float32 while x0 is float64"),
        ((x0.long(), t, noise.long(), alphas_cumprod), {}, "integer data is outside the contract"),
        ((x0, t, noise, alphas_cumprod.half()), {}, "a float16 table is outside the contract"),
    ])
    expect_rejected("TypeError", sub.posterior_mean_variance, [
        ((x0, noise.float(), t, betas), {}, "xt is float32 while x0 is float64"),
        ((x0, noise, 3, betas), {}, "t is a Python int, not a tensor [N]"),
        ((x0, noise, t, betas.tolist()), {}, "betas is a list, not a tensor"),
    ])


@check("contract.value_errors", "Out-of-range and mismatched arguments raise ValueError", clauses=["contract.values"])
def contract_value_errors(sub, ref):
    x0, t, noise, alphas_cumprod = _sample_case(83, (3, 2), torch.float64, torch.float64, num_steps=100)
    betas = DEFAULT_BETAS[:100]
    expect_rejected("ValueError", sub.linear_beta_schedule, [
        ((0,), {}, "T = 0 has no steps"),
        ((10, 0.0, 0.02), {}, "beta_start = 0 adds no noise"),
        ((10, 0.03, 0.02), {}, "beta_start > beta_end"),
        ((10, 1e-4, 1.0), {}, "beta_end = 1 destroys the data in one step"),
        ((10, math.nan, 0.02), {}, "beta_start is nan"),
    ])
    expect_rejected("ValueError", sub.q_sample, [
        ((x0, t, noise[:, :1], alphas_cumprod), {}, "noise has another shape than x0"),
        ((x0[0, 0], t[:0], noise[0, 0], alphas_cumprod), {}, "0-d data has no batch axis"),
        ((x0, t[:2], noise, alphas_cumprod), {}, "t has 2 steps for 3 examples"),
        ((x0, t.reshape(3, 1), noise, alphas_cumprod), {}, "t must have shape [N], not [N, 1]"),
        ((x0, torch.tensor([0, 1, 100]), noise, alphas_cumprod), {}, "t = 100 is outside [0, T) for T = 100"),
        ((x0, torch.tensor([0, -1, 2]), noise, alphas_cumprod), {}, "t = -1 is not a step (no wrap-around)"),
        ((x0, t, noise, alphas_cumprod.reshape(10, 10)), {}, "alphas_cumprod is 2-D"),
        ((x0, t, noise, alphas_cumprod * 2), {}, "alphas_cumprod has values above 1"),
        ((x0, t, noise, alphas_cumprod - alphas_cumprod), {}, "alphas_cumprod has zeros"),
        ((x0.masked_fill(x0 > 0, math.inf), t, noise, alphas_cumprod), {}, "x0 contains inf"),
    ])
    expect_rejected("ValueError", sub.posterior_mean_variance, [
        ((x0, noise[:2], t, betas), {}, "xt has 2 examples while x0 has 3"),
        ((x0, noise, torch.tensor([0, 5, 100]), betas), {}, "t = 100 is outside [0, T) for T = 100"),
        ((x0, noise, t, betas[:0]), {}, "an empty schedule"),
        ((x0, noise, t, torch.ones(100, dtype=torch.float64)), {}, "betas of 1 are outside (0, 1)"),
        ((x0, noise, t, -betas), {}, "negative betas"),
        ((x0, noise.masked_fill(noise > 0, math.nan), t, betas), {}, "xt contains nan"),
    ])


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
