"""Check battery for adamw_step (one AdamW update as a pure function).

Groups: `update` (the equations, defaults, edge cases, a trajectory against torch.optim.AdamW), `result`
(types, precision, autograd, no mutation, no aliasing) and `contract` (errors) are required; `experiment` is
advisory (the learner's optimiser against plain gradient descent, for the notes). Every random input comes from
a seeded generator, so two runs give identical verdicts.
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
)

NAMES = ("new_param", "new_exp_avg", "new_exp_avg_sq")


# ------------------------------------------------------------------------------------------------ inputs


def _state(seed, shape, dtype=torch.float64, *, scale=1.0, fresh=False):
    """param, grad, exp_avg, exp_avg_sq: a state in the middle of training (zero moments when fresh)."""
    generator = torch.Generator().manual_seed(seed)
    param = torch.randn(shape, generator=generator, dtype=torch.float64)
    grad = scale * torch.randn(shape, generator=generator, dtype=torch.float64)
    exp_avg = 0.3 * scale * torch.randn(shape, generator=generator, dtype=torch.float64)
    exp_avg_sq = (scale * torch.randn(shape, generator=generator, dtype=torch.float64)) ** 2 * 0.2
    if fresh:
        exp_avg, exp_avg_sq = torch.zeros(shape, dtype=torch.float64), torch.zeros(shape, dtype=torch.float64)
    return tuple(t.to(dtype) for t in (param, grad, exp_avg, exp_avg_sq))


def _exact(ref, state, step, lr, **kwargs):
    """The reference step in float64 from the same inputs, rounded to the inputs' dtype."""
    dtype = state[0].dtype
    out = ref.adamw_step(*(t.detach().double() for t in state), step, lr, **kwargs)
    return tuple(t.to(dtype) for t in out)


# ------------------------------------------------------------------------------------------- comparisons


def _unpack(result, state):
    got = result.unwrap()
    if not isinstance(got, tuple | list) or len(got) != 3:
        fail(f"{result.call} returned {type(got).__name__}; return a tuple of three tensors "
             "(new_param, new_exp_avg, new_exp_avg_sq)")
    for name, value in zip(NAMES, got, strict=True):
        expect_tensor(value, shape=tuple(state[0].shape), dtype=state[0].dtype, what=name, call=result)
    return got


def _expect_step(result, ref, state, step, lr, *, rtol=None, atol=None, hint="", **kwargs):
    """Moments first (they are simpler and new_param depends on them), then new_param. A result one of the
    mutants also gives is named by the engine's diagnosis, so no hand-written list of mistakes is needed here."""
    got = _unpack(result, state)
    expected = _exact(ref, state, step, lr, **kwargs)
    for index in (1, 2):
        expect_close(got[index], expected[index], what=NAMES[index], call=result, rtol=rtol, atol=atol, hint=hint)
    expect_close(got[0], expected[0], what="new_param", call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------ update


@check("update.hand_example", "Hand example, first step: every coordinate moves by about lr",
       clauses=["update.decay", "update.moments", "update.bias_correction", "update.eps", "update.param"])
def hand_example(sub, ref):
    # Decay [1, -2] * 0.999; m = 0.1 g, v = 0.001 g^2; at step 1 the corrections give m_hat = g, v_hat = g^2,
    # so the step is lr * g / (|g| + eps): [0.999 - 0.1 * 0.5 / (0.5 + 1e-8), -1.998 + 0.1 * 0.1 / (0.1 + 1e-8)].
    param = torch.tensor([1.0, -2.0], dtype=torch.float64)
    grad = torch.tensor([0.5, -0.1], dtype=torch.float64)
    zeros = torch.zeros(2, dtype=torch.float64)
    state = (param, grad, zeros, zeros.clone())
    result = sub.adamw_step.call(*state, 1, 0.1)
    got = _unpack(result, state)
    expect_close(got[1], torch.tensor([0.05, -0.01], dtype=torch.float64), what="new_exp_avg", call=result,
                 hint="(0.1 * grad: from zero, the average is (1 - beta1) * grad)")
    expect_close(got[2], torch.tensor([0.00025, 0.00001], dtype=torch.float64), what="new_exp_avg_sq",
                 call=result, hint="(0.001 * grad^2: from zero, (1 - beta2) * grad^2)")
    expected = torch.tensor([0.999 - 0.1 * 0.5 / (0.5 + 1e-8), -1.998 + 0.1 * 0.1 / (0.1 + 1e-8)],
                            dtype=torch.float64)
    hint = "(about [0.899, -1.898]: decay by 1 - lr * " \
        "weight_decay, then at step 1 the bias-corrected step is lr * grad / (|grad| + eps))"
    expect_close(got[0], expected, what="new_param", call=result, hint=hint)


@check("update.second_step", "Hand example, second step: a gradient that changed sign moves its coordinate less",
       clauses=["update.bias_correction", "update.param"])
def second_step(sub, ref):
    # From the hand example's state, grad [0.5, 0.1] at step 2: m = [0.095, 0.001], m_hat = m / 0.19,
    # v = [0.00049975, 0.00001999], v_hat = v / 0.001999 = [0.25, 0.01].
    param = torch.tensor([0.999 - 0.1 * 0.5 / (0.5 + 1e-8), -1.998 + 0.1 * 0.1 / (0.1 + 1e-8)],
                         dtype=torch.float64)
    state = (param, torch.tensor([0.5, 0.1], dtype=torch.float64), torch.tensor([0.05, -0.01], dtype=torch.float64),
             torch.tensor([0.00025, 0.00001], dtype=torch.float64))
    result = sub.adamw_step.call(*state, 2, 0.1)
    got = _unpack(result, state)
    m_hat = torch.tensor([0.095, 0.001], dtype=torch.float64) / 0.19
    expected = param * 0.999 - 0.1 * m_hat / (torch.tensor([0.5, 0.1], dtype=torch.float64) + 1e-8)
    hint = "(at step 2 divide m by 1 - 0.9^2 = 0.19 and v by " \
        "1 - 0.999^2 = 0.001999)"
    expect_close(got[0], expected, what="new_param", call=result, hint=hint)


@check("update.first_step_scale_free", "From zero moments, step 1 moves each coordinate by lr |g| / (|g| + eps)",
       clauses=["update.bias_correction", "update.eps"])
def first_step_scale_free(sub, ref):
    # Gradients from 1e-6 to 1e3: the first step is about lr for each, and exactly lr |g| / (|g| + eps).
    grad = torch.tensor([1e-6, -3e-3, 0.2, -7.0, 1e3], dtype=torch.float64)
    param = torch.linspace(-1, 1, 5, dtype=torch.float64)
    zeros = torch.zeros(5, dtype=torch.float64)
    state = (param, grad, zeros, zeros.clone())
    result = sub.adamw_step.call(*state, 1, 0.01, weight_decay=0.0)
    _expect_step(result, ref, state, 1, 0.01, weight_decay=0.0,
                 hint="(with zero moments the bias-corrected step 1 is lr * g / (|g| + eps), about lr for every "
                 "coordinate)")


@check("update.moments", "The returned moments are the plain moving averages, not bias-corrected",
       clauses=["update.moments", "update.bias_correction"])
def moments(sub, ref):
    cases = [((4, 3), 3, 0.01, {"betas": (0.8, 0.99)}), ((6,), 1, 0.1, {}), ((2, 2), 50, 1e-3, {"betas": (0.0, 0.5)})]
    calls, states = [], []
    for seed, (shape, step, lr, kwargs) in enumerate(cases):
        states.append(_state(30 + seed, shape))
        calls.append(((*states[-1], step, lr), kwargs))
    for result, state, (_, step, lr, kwargs) in zip(sub.adamw_step.map(calls), states, cases, strict=True):
        _expect_step(result, ref, state, step, lr, hint="(m = beta1 m + (1 - beta1) g, v = beta2 v + (1 - beta2) "
                     "g^2; return them before bias correction)", **kwargs)


@check("update.decoupled_decay", "Weight decay shrinks the weights and never enters the moments",
       clauses=["update.decay", "update.moments"])
def decoupled_decay(sub, ref):
    # Zero gradient and zero moments: the step is 0 / (0 + eps) = 0, so only the decay moves the weights.
    param = torch.tensor([[2.0, -1.0], [0.5, 4.0]], dtype=torch.float64)
    zeros = torch.zeros(2, 2, dtype=torch.float64)
    result = sub.adamw_step.call(param, zeros, zeros.clone(), zeros.clone(), 5, 0.1, weight_decay=0.5)
    got = _unpack(result, (param,))
    expect_close(got[0], param * (1 - 0.1 * 0.5), what="new_param", call=result,
                 hint="(with a zero gradient only the decay acts: param * (1 - lr * weight_decay) = param * 0.95)")
    expect_close(got[1], zeros, what="new_exp_avg", call=result,
                 hint="(the decay must not be added to the gradient: that is Adam with L2, not AdamW)")
    state = _state(31, (5,))
    light, heavy = sub.adamw_step.map([((*state, 4, 0.05), {"weight_decay": 0.0}),
                                       ((*state, 4, 0.05), {"weight_decay": 0.3})])
    _expect_step(light, ref, state, 4, 0.05, weight_decay=0.0)
    _expect_step(heavy, ref, state, 4, 0.05, weight_decay=0.3)


@check("update.eps_after_sqrt", "eps is added after the square root of the bias-corrected second moment",
       clauses=["update.eps"])
def eps_after_sqrt(sub, ref):
    # Gradients of the size of eps make its placement visible: at step 1 with g = 1e-8 the step is
    # lr * 1e-8 / (1e-8 + 1e-8) = lr / 2; inside the root it would be lr * 1e-8 / sqrt(1e-16 + 1e-8) ~ lr * 1e-4.
    grad = torch.tensor([1e-8, -2e-8, 5e-9], dtype=torch.float64)
    param = torch.ones(3, dtype=torch.float64)
    zeros = torch.zeros(3, dtype=torch.float64)
    state = (param, grad, zeros, zeros.clone())
    for step, prior in ((1, None), (3, _state(32, (3,), scale=1e-8))):
        current = state if prior is None else prior
        result = sub.adamw_step.call(*current, step, 0.1, weight_decay=0.0)
        _expect_step(result, ref, current, step, 0.1, weight_decay=0.0,
                     hint="(divide by sqrt(v_hat) + eps, with v_hat already bias-corrected)")



def _plain_adamw(weights, moments, step, grads, *, lr, betas, eps, weight_decay):
    """AdamW for a list of Python floats, one coordinate at a time: an implementation independent of the
    reference (and of torch), following torch.optim.AdamW's order of operations."""
    beta1, beta2 = betas
    out_weights, out_moments = [], []
    for w, (m, v), g in zip(weights, moments, grads, strict=True):
        w = w * (1 - lr * weight_decay)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        denominator = math.sqrt(v) / math.sqrt(1 - beta2**step) + eps
        out_weights.append(w - lr / (1 - beta1**step) * m / denominator)
        out_moments.append((m, v))
    return out_weights, out_moments


@check("update.trajectory", "Twelve steps along an independent AdamW trajectory, one step at a time",
       clauses=["update.param", "update.bias_correction"])
def trajectory(sub, ref):
    # A plain-Python AdamW (torch.optim.AdamW's order of operations) runs 12 steps on a quadratic with curvatures
    # 10, 1 and 0.1. The learner's function is called once per step from that trajectory's state (all in one
    # round trip) and must land on the trajectory's next state, moments included.
    settings = {"betas": (0.8, 0.99), "eps": 1e-8, "weight_decay": 0.2}
    curvature = [10.0, 10.0, 1.0, 1.0, 0.1, 0.1]
    weights, moments = [1.0, -1.0, 2.0, 0.5, -3.0, 1.5], [(0.0, 0.0)] * 6
    calls, following = [], []
    for step in range(1, 13):
        grads = [c * w for c, w in zip(curvature, weights, strict=True)]
        state = tuple(torch.tensor(values, dtype=torch.float64) for values in
                      (weights, grads, [m for m, _ in moments], [v for _, v in moments]))
        calls.append(((*state, step, 0.05), settings))
        weights, moments = _plain_adamw(weights, moments, step, grads, lr=0.05, **settings)
        following.append(tuple(torch.tensor(values, dtype=torch.float64) for values in
                               (weights, [m for m, _ in moments], [v for _, v in moments])))
    for step, (result, expected) in enumerate(zip(sub.adamw_step.map(calls), following, strict=True), start=1):
        got = _unpack(result, (expected[0],))
        for name, value, wanted in zip(NAMES, got, expected, strict=True):
            expect_close(value, wanted, what=f"{name} at step {step}", call=result,
                         hint="(an independent AdamW, run on the same problem, takes a different step here)")


@check("update.lr_zero", "lr = 0 leaves the parameter's values unchanged and still updates the moments",
       clauses=["edge.lr_zero"])
def lr_zero(sub, ref):
    state = _state(60, (3, 3))
    result = sub.adamw_step.call(*state, 4, 0.0)
    got = _unpack(result, state)
    expect_close(got[0], state[0], what="new_param", call=result,
                 hint="(lr = 0: no step and no decay, since the decay is param * (1 - lr * weight_decay))")
    _expect_step(result, ref, state, 4, 0.0)


@check("update.zero_grad", "A zero gradient with zero moments gives finite results, not 0 / 0",
       clauses=["edge.zero_grad"])
def zero_grad(sub, ref):
    for dtype in (torch.float32, torch.float64):
        zeros = torch.zeros(4, dtype=dtype)
        state = (torch.tensor([1.0, -1.0, 0.0, 3.0], dtype=dtype), zeros, zeros.clone(), zeros.clone())
        result = sub.adamw_step.call(*state, 1, 0.1)
        got = _unpack(result, state)
        expect(bool(torch.isfinite(got[0]).all()), f"{result.call} returned new_param {got[0].tolist()}: with a "
               "zero gradient the step is 0 / (sqrt(0) + eps) = 0; keep eps outside the square root, never 0 / 0")
        _expect_step(result, ref, state, 1, 0.1)


# ------------------------------------------------------------------------------------------------ result



@check("result.gradient_scales", "Gradients from 1e-100 to 1e100 (float64) and 1e-15 to 1e15 (float32)",
       clauses=["result.precision"])
def gradient_scales(sub, ref):
    # Adam's step does not depend on the gradient's scale while |g| >> eps; below eps it fades out smoothly.
    # Moments of order 1e-100 must be compared relatively: the default atol would accept anything.
    cases = [(torch.float64, 1e100), (torch.float64, 1e-100), (torch.float32, 1e15), (torch.float32, 1e-15)]
    states = [_state(80 + i, (3, 4), dtype, scale=scale) for i, (dtype, scale) in enumerate(cases)]
    results = sub.adamw_step.map([((*state, 5, 0.01), {}) for state in states])
    for result, state, (dtype, scale) in zip(results, states, cases, strict=True):
        got = _unpack(result, state)
        expected = _exact(ref, state, 5, 0.01)
        rtol = 1e-7 if dtype == torch.float64 else 1e-5
        hint = f"(gradients of order {scale:g}: square them in the input dtype, and keep eps after the root)"
        for index in (1, 2):
            expect_close(got[index], expected[index], what=NAMES[index], call=result, rtol=rtol, atol=0.0,
                         hint=hint)
        expect_close(got[0], expected[0], what="new_param", call=result, hint=hint)


@check("result.step_counts", "Large step counts: the bias corrections tend to 1 without overflow",
       clauses=["result.precision", "update.bias_correction"])
def step_counts(sub, ref):
    state = _state(85, (5,))
    steps = [10**4, 10**9, 10**12]
    results = sub.adamw_step.map([((*state, step, 0.01), {}) for step in steps])
    for result, step in zip(results, steps, strict=True):
        _expect_step(result, ref, state, step, 0.01, hint="(beta ** step underflows to 0 for large steps, so the "
                     "corrections are 1: compute them with Python floats)")



# ---------------------------------------------------------------------------------------------- contract



# -------------------------------------------------------------------------------------------- experiment

EXPERIMENT_CURVATURE = (1000.0, 1.0)  # condition number 1000: one steep direction, one flat
EXPERIMENT_STEPS = 20


@check("experiment.ill_conditioned", "Experiment: your AdamW against gradient descent, curvatures 1000 and 1",
       clauses=["update.param"])
def ill_conditioned(sub, ref, ctx):
    # f(x) = 0.5 * (1000 x1^2 + x2^2) from x = (1, 1), Adam at lr = 0.08. Gradient descent is stable only for
    # lr < 2 / 1000; at lr = 1 / 1000 it solves the steep coordinate in one step and then crawls along the flat
    # one (x2 shrinks by 0.999 per step). Adam divides each coordinate's step by that coordinate's own gradient
    # size, so both coordinates move at about lr per step, whatever their curvature.
    adam_path = run_in_one_request(sub)
    if adam_path is None:
        adam_path = _adam_path(lambda call: _unpack(sub.adamw_step.call(*call[0], **call[1]), (call[0][0],)))
    curvature, x_sgd = _curvature(), torch.ones(2, dtype=torch.float64)
    sgd_path = [x_sgd.tolist()]
    for _ in range(EXPERIMENT_STEPS):
        x_sgd = x_sgd - 1e-3 * curvature * x_sgd
        sgd_path.append(x_sgd.tolist())
    ctx.record_experiment(
        steps=list(range(EXPERIMENT_STEPS + 1)),
        series={
            "adamw_flat": [x[1] for x in adam_path],  # the coordinate with curvature 1
            "sgd_flat": [x[1] for x in sgd_path],
            "adamw_steep": [x[0] for x in adam_path],  # the coordinate with curvature 1000
            "sgd_steep": [x[0] for x in sgd_path],
        },
    )


LEARNING_RATE = 0.08


def _curvature() -> torch.Tensor:
    return torch.tensor(EXPERIMENT_CURVATURE, dtype=torch.float64)


def _adam_path(answer: Callable[[Call], Any]) -> list[list[float]]:
    """x at every step of the run, each step's adamw_step call answered by `answer` with the new state."""
    curvature = _curvature()
    x_adam = torch.ones(2, dtype=torch.float64)
    exp_avg, exp_avg_sq = torch.zeros(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64)
    path = [x_adam.tolist()]
    for step in range(1, EXPERIMENT_STEPS + 1):
        x_adam, exp_avg, exp_avg_sq = answer(
            ((x_adam, curvature * x_adam, exp_avg, exp_avg_sq, step, LEARNING_RATE), {"weight_decay": 0.0}))
        path.append(x_adam.tolist())
    return path


class _NotTheRun(Exception):
    """A record of the worker's run that is not the form the judge's steps need."""


def run_in_one_request(sub: Any) -> list[list[float]] | None:
    """The path _adam_path gives with live calls, in two requests instead of 20, or None.

    The worker runs the descent (helpers.descent_run) and returns every step's state. The judge takes them as the
    answers to its own steps, building each call from its own state, then makes all those calls again in one
    request. Only when every answer is bit for bit the run's is this the path the live calls give: by induction
    from x = 1, each step's call gets the same input and the same answer. Anything else (a run that raised or broke
    a limit, a record of the wrong form, a function that answers the same input differently) returns None, and the
    descent runs a step a request, messages included."""
    try:
        run = sub.from_helpers("descent_run", uses=("adamw_step",)).call(_curvature(), EXPERIMENT_STEPS,
                                                                         LEARNING_RATE)
    except (CheckFailed, WorkerLost):
        return None
    records = run.value if run.raised is None else None
    if not (isinstance(records, list) and len(records) == EXPERIMENT_STEPS):
        return None
    steps = iter(records)
    made: list[tuple[Call, Any]] = []

    def recorded(call: Call) -> Any:
        state = next(steps)
        if not (isinstance(state, tuple | list) and len(state) == 3
                and all(isinstance(t, torch.Tensor) and t.shape == (2,) and t.dtype == torch.float64
                        for t in state)):
            raise _NotTheRun
        made.append((call, state))
        return state

    try:
        path = _adam_path(recorded)
        agrees = replay_agrees(sub.adamw_step, made)
    except (_NotTheRun, CheckFailed, WorkerLost):
        return None
    return path if agrees else None
