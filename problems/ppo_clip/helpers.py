"""Validation for the PPO problem, supplied to every solution (`from helpers import ...`). Each function raises
exactly the errors the contract promises; call it first, then compute."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_float_tensors(named):
    """named: [(name, tensor)], the first one sets the dtype, the shape and the device the others must share."""
    first_name, first = named[0]
    for name, t in named:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    for name, t in named[1:]:
        if t.dtype != first.dtype:
            raise TypeError(f"{name} must have {first_name}'s dtype {first.dtype}, got {t.dtype}")
    for name, t in named[1:]:
        if t.shape != first.shape:
            raise ValueError(f"{name} must have {first_name}'s shape {tuple(first.shape)}, got {tuple(t.shape)}")
        if t.device != first.device:
            raise ValueError(f"{name} must be on {first_name}'s device {first.device}, got {t.device}")
    for name, t in named:
        if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
            raise ValueError(f"{name} has non-finite entries (nan or inf)")


def _check_mask(mask, like, like_name):
    if mask is None:
        return
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be None or a torch.Tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise TypeError(f"mask must be a bool tensor (True = counted), got {mask.dtype}")
    if mask.shape != like.shape:
        raise ValueError(f"mask must have {like_name}'s shape {tuple(like.shape)}, got {tuple(mask.shape)}")
    if mask.device != like.device:
        raise ValueError(f"mask must be on {like_name}'s device {like.device}, got {mask.device}")


def _check_number(name, value, *, low, low_closed, optional=False):
    """A finite Python int or float (a bool is not one) above `low`; None allowed when optional."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        kind = "None or a Python float" if optional else "a Python float"
        raise TypeError(f"{name} must be {kind}, got {type(value).__name__}")
    if not math.isfinite(value) or value < low or (value == low and not low_closed):
        bound = f">= {low}" if low_closed else f"> {low}"
        raise ValueError(f"{name} must be a finite number {bound}, got {value}")


def check_surrogate_inputs(logp_new, logp_old, advantages, clip_eps, mask):
    """logp_new, logp_old, advantages: float32/float64 tensors of one shape (any, empty included), one dtype,
    one device, finite; clip_eps: a finite number > 0; mask: None or a bool tensor of the same shape."""
    _check_float_tensors([("logp_new", logp_new), ("logp_old", logp_old), ("advantages", advantages)])
    _check_number("clip_eps", clip_eps, low=0.0, low_closed=False)
    _check_mask(mask, logp_new, "logp_new")


def check_value_inputs(values, old_values, returns, clip_eps, mask):
    """values, old_values, returns: float32/float64 tensors of one shape, one dtype, one device, finite;
    clip_eps: None (no clipping) or a finite number > 0; mask: None or a bool tensor of the same shape."""
    _check_float_tensors([("values", values), ("old_values", old_values), ("returns", returns)])
    _check_number("clip_eps", clip_eps, low=0.0, low_closed=False, optional=True)
    _check_mask(mask, values, "values")


def check_ppo_inputs(logits, actions, logp_old, advantages, values, old_values, returns, mask, clip_eps,
                     vf_clip_eps, vf_coef, ent_coef):
    """logits [..., A] with A >= 1; actions int64 [...] with entries in [0, A); logp_old, advantages, values,
    old_values, returns float [...] of logits' dtype; mask None or bool [...]; clip_eps > 0; vf_clip_eps None or
    > 0; vf_coef, ent_coef >= 0."""
    if not isinstance(logits, torch.Tensor):
        raise TypeError(f"logits must be a torch.Tensor, got {type(logits).__name__}")
    if logits.dtype not in FLOAT_DTYPES:
        raise TypeError(f"logits must be float32 or float64, got {logits.dtype}")
    if not isinstance(actions, torch.Tensor):
        raise TypeError(f"actions must be a torch.Tensor, got {type(actions).__name__}")
    if actions.dtype != torch.int64:
        raise TypeError(f"actions must be an int64 tensor of action indices, got {actions.dtype}")
    per_step = [("logp_old", logp_old), ("advantages", advantages), ("values", values),
                ("old_values", old_values), ("returns", returns)]
    for name, t in per_step:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
        if t.dtype != logits.dtype:
            raise TypeError(f"{name} must have logits' dtype {logits.dtype}, got {t.dtype}")
    if logits.dim() < 1 or logits.shape[-1] < 1:
        raise ValueError(f"logits must be [..., A] with A >= 1 actions, got shape {tuple(logits.shape)}")
    steps = logits.shape[:-1]
    if actions.shape != steps:
        raise ValueError(f"actions must have logits' leading shape {tuple(steps)}, got {tuple(actions.shape)}")
    for name, t in per_step:
        if t.shape != steps:
            raise ValueError(f"{name} must have logits' leading shape {tuple(steps)}, got {tuple(t.shape)}")
    for name, t in [("actions", actions), *per_step]:
        if t.device != logits.device:
            raise ValueError(f"{name} must be on logits' device {logits.device}, got {t.device}")
    for name, t in [("logits", logits), *per_step]:
        if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
            raise ValueError(f"{name} has non-finite entries (nan or inf)")
    if actions.device.type != "meta" and actions.numel() and (
            int(actions.min()) < 0 or int(actions.max()) >= logits.shape[-1]):
        raise ValueError(f"actions must lie in [0, {logits.shape[-1]}), got values from {int(actions.min())} to "
                         f"{int(actions.max())}")
    _check_mask(mask, actions, "actions")
    _check_number("clip_eps", clip_eps, low=0.0, low_closed=False)
    _check_number("vf_clip_eps", vf_clip_eps, low=0.0, low_closed=False, optional=True)
    _check_number("vf_coef", vf_coef, low=0.0, low_closed=True)
    _check_number("ent_coef", ent_coef, low=0.0, low_closed=True)


# ---------------------------------------------------------------------------------------------- the experiment
# The bandit run of the notes' chart, shared by the grader and the worker: the grader rebuilds every step of a run
# with these same functions, so both sides compute the same bits.


def bandit_pulls(theta, uniforms, noise, means):
    """One iteration's pulls of every run from its policy softmax(theta) [runs, arms], by inverse CDF of `uniforms`
    [runs, batch], with reward arm mean + `noise`: (actions, advantages normalised within each run, logp_old)."""
    cdf = torch.softmax(theta, dim=-1).cumsum(dim=-1)
    actions = (uniforms.unsqueeze(-1) > cdf.unsqueeze(1)).sum(dim=-1).clamp(max=means.shape[0] - 1)
    rewards = means[actions] + noise
    advantages = (rewards - rewards.mean(dim=1, keepdim=True)) / (rewards.std(dim=1, keepdim=True) + 1e-8)
    return actions, advantages, bandit_logp(theta, actions)


def bandit_logp(theta, actions):
    """log pi_theta(action) of each pull [runs, batch]."""
    return torch.log_softmax(theta, dim=-1).gather(1, actions)


def bandit_sgd_step(theta, actions, gradient, runs, lr):
    """theta after one SGD step on the surrogate. `gradient` is d(surrogate)/d(logp) [runs, batch], the gradient of a
    mean over every pull; times `runs`, each run's own mean. Through log_softmax by hand: the gradient of
    log softmax(theta)[a] in theta is onehot(a) - softmax(theta)."""
    scaled = gradient.to(theta.dtype) * runs
    onehot_part = torch.zeros_like(theta).scatter_add_(1, actions, scaled)
    theta_gradient = onehot_part - torch.softmax(theta, dim=-1) * scaled.sum(dim=1, keepdim=True)
    return theta - lr * theta_gradient


def bandit_run(functions, means, thetas, clip_eps, runs, batch, iterations, epochs, lr, seed):
    """Train one policy per entry of `thetas` [runs, arms] with your clipped_surrogate, each with its own clip_eps,
    on the same draws: every iteration samples `batch` pulls per run, then takes `epochs` SGD steps. Returns, for
    each step, one (surrogate, its gradient in logp_new) per policy. Each call gets its own copy of its inputs, so
    a function that writes to one changes nothing the run goes on from."""
    clipped_surrogate = functions["clipped_surrogate"]
    generator = torch.Generator().manual_seed(seed)
    thetas = list(thetas)
    records = []
    for _ in range(iterations):
        uniforms = torch.rand(runs, batch, generator=generator, dtype=torch.float64)
        noise = torch.randn(runs, batch, generator=generator, dtype=torch.float64)
        pulls = [bandit_pulls(theta, uniforms, noise, means) for theta in thetas]
        for _ in range(epochs):
            step = []
            for index, ((actions, advantages, logp_old), eps) in enumerate(zip(pulls, clip_eps, strict=True)):
                logp_new = bandit_logp(thetas[index], actions).detach().requires_grad_(True)
                surrogate = clipped_surrogate(logp_new, logp_old.clone(), advantages.clone(), eps)
                (gradient,) = torch.autograd.grad(surrogate, logp_new)
                step.append((surrogate.detach(), gradient))
                thetas[index] = bandit_sgd_step(thetas[index], actions, gradient, runs, lr)
            records.append(step)
    return records
