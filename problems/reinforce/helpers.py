"""Validation for the REINFORCE problem, supplied to every solution (`from helpers import ...`). Each function
raises exactly the errors the contract promises (TypeError for the wrong kind of value or dtype, ValueError for
a wrong shape or an out-of-range value); call it first, then compute."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_float_tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def _check_finite(name, t):
    if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} has non-finite entries (nan or inf)")


def _check_unit_interval(name, value):
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python float, got {type(value).__name__}")
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value}")


def check_rewards(rewards, gamma):
    """rewards: a float32/float64 tensor [..., T] with at least one dimension (T may be 0), finite; gamma: a
    Python float (or int) in [0, 1]."""
    _check_float_tensor("rewards", rewards)
    if rewards.dim() < 1:
        raise ValueError("rewards must have at least one dimension: [..., T], time on the last axis")
    _check_finite("rewards", rewards)
    _check_unit_interval("gamma", gamma)


def check_loss_inputs(log_probs, returns, baseline):
    """log_probs, returns and baseline (None or a tensor): float32/float64 tensors of one dtype, one shape and one
    device, with finite values."""
    tensors = [("log_probs", log_probs), ("returns", returns)]
    if baseline is not None:
        tensors.append(("baseline", baseline))
    for name, t in tensors:
        _check_float_tensor(name, t)
    for name, t in tensors[1:]:
        if t.dtype != log_probs.dtype:
            raise TypeError(f"{name} must have log_probs' dtype {log_probs.dtype}, got {t.dtype}")
    for name, t in tensors[1:]:
        if t.shape != log_probs.shape:
            raise ValueError(f"{name} must have log_probs' shape {tuple(log_probs.shape)}, got {tuple(t.shape)} "
                             "(expand a scalar baseline with baseline.expand_as(returns))")
        if t.device != log_probs.device:
            raise ValueError(f"{name} must be on log_probs' device {log_probs.device}, got {t.device}")
    for name, t in tensors:
        _check_finite(name, t)


def check_baseline_inputs(baseline, returns, momentum):
    """baseline: a 0-d float32/float64 tensor; returns: a tensor of baseline's dtype and device, any shape (empty
    included); both finite. momentum: a Python float (or int) in [0, 1]."""
    _check_float_tensor("baseline", baseline)
    _check_float_tensor("returns", returns)
    if returns.dtype != baseline.dtype:
        raise TypeError(f"returns must have baseline's dtype {baseline.dtype}, got {returns.dtype}")
    if baseline.dim() != 0:
        raise ValueError(f"baseline must be a 0-d tensor (one number), got shape {tuple(baseline.shape)}")
    if returns.device != baseline.device:
        raise ValueError(f"returns must be on baseline's device {baseline.device}, got {returns.device}")
    _check_finite("baseline", baseline)
    _check_finite("returns", returns)
    _check_unit_interval("momentum", momentum)


# ---------------------------------------------------------------------------------------------- the experiment
# The bandit runs of the notes' chart, shared by the grader and the worker: the grader rebuilds every step of a run
# with these same functions, so both sides compute the same bits.


def bandit_pulls(theta, n, generator, means):
    """n pulls from each policy softmax(theta) [..., arms] by inverse CDF, with reward arm mean + N(0, 1) noise:
    (actions, rewards) [..., n]. Draws n uniforms, then the noise, from `generator`."""
    arms = theta.shape[-1]
    cdf = torch.softmax(theta, dim=-1).cumsum(-1)[..., None, :].expand(*theta.shape[:-1], n, arms)
    uniform = torch.rand(*theta.shape[:-1], n, 1, generator=generator, dtype=torch.float64)
    actions = torch.searchsorted(cdf.contiguous(), uniform)[..., 0].clamp_max(arms - 1)
    return actions, means[actions] + torch.randn(actions.shape, generator=generator, dtype=torch.float64)


def bandit_scores(theta, actions):
    """grad_theta log pi(a) = onehot(a) - pi for a softmax policy; theta [..., arms], actions [..., n]."""
    pi = torch.softmax(theta, dim=-1)
    return torch.nn.functional.one_hot(actions, theta.shape[-1]).to(torch.float64) - pi[..., None, :]


def bandit_step(theta, actions, gradient, runs, lr):
    """theta [runs, arms] after one SGD step, from the loss's gradient in log_probs [runs, batch] (a mean over
    every pull; times `runs`, each run's own mean)."""
    theta_gradient = (gradient.to(torch.float64)[..., None] * bandit_scores(theta, actions)).sum(1) * runs
    return theta - lr * theta_gradient


def bandit_calls(thetas, baseline, generator, means, batch, probe_pulls):
    """One step's draws and calls of reinforce_loss: each policy's batch (the second with the running baseline),
    then a probe of fresh pulls at the second set's first policy, without and with the baseline. Returns the calls'
    arguments (each baseline a copy of its own) and each set's (actions, rewards), then the probe's actions."""
    runs = thetas[0].shape[0]
    calls, batches = [], []
    for index, theta in enumerate(thetas):
        actions, rewards = bandit_pulls(theta, batch, generator, means)
        log_probs = torch.log_softmax(theta, dim=-1).gather(1, actions)
        b = baseline.detach().to(torch.float64).clone().expand(runs, batch) if index == 1 else None
        batches.append((actions, rewards))
        calls.append((log_probs.clone().requires_grad_(True), rewards, b))
    probe_actions, probe_rewards = bandit_pulls(thetas[1][0], probe_pulls, generator, means)
    probe_log_probs = torch.log_softmax(thetas[1][0], dim=-1)[probe_actions]
    probe_b = baseline.detach().to(torch.float64).clone().expand(probe_pulls)
    calls.append((probe_log_probs.clone().requires_grad_(True), probe_rewards, None))
    calls.append((probe_log_probs.clone().requires_grad_(True), probe_rewards, probe_b))
    return calls, batches, probe_actions


def bandit_run(functions, means, runs, batch, probe_pulls, steps, lr, momentum, seed):
    """The chart's two training runs (without and with the moving-average baseline) with your reinforce_loss and
    update_baseline, every step as the grader makes it. Returns, for each step, each reinforce_loss call's (loss,
    its gradient in log_probs) and update_baseline's result. Each call gets its own copy of its inputs, so a
    function that writes to one changes nothing the run goes on from."""
    reinforce_loss, update_baseline = functions["reinforce_loss"], functions["update_baseline"]
    generator = torch.Generator().manual_seed(seed)
    thetas = [torch.zeros(runs, means.shape[0], dtype=torch.float64) for _ in range(2)]
    baseline = torch.zeros((), dtype=torch.float64)
    records = []
    for _ in range(steps):
        calls, batches, _ = bandit_calls(thetas, baseline, generator, means, batch, probe_pulls)
        answers = []
        for log_probs, returns, b in calls:
            loss = reinforce_loss(log_probs, returns.clone(), b)
            (gradient,) = torch.autograd.grad(loss, log_probs)
            answers.append((loss.detach(), gradient))
        for index, ((actions, _), (_, gradient)) in enumerate(zip(batches, answers, strict=False)):
            thetas[index] = bandit_step(thetas[index], actions, gradient, runs, lr)
        baseline = update_baseline(baseline.clone(), batches[1][1].clone(), momentum)
        records.append((answers, baseline))
    return records
