"""A correct solution that validates on its own (no helpers), estimates x0 and re-noises it with torch.lerp-free
arithmetic, and builds the schedule with torch.flip over a strided arange."""

import math

import torch


def _count(name, value):
    if type(value) is not int:
        raise TypeError(f"{name} must be an int")
    if value < 1:
        raise ValueError(f"{name} must be at least 1")


def _number(name, value, ok):
    if type(value) not in (int, float):
        raise TypeError(f"{name} must be an int or a float")
    if not (math.isfinite(value) and ok(value)):
        raise ValueError(f"{name} = {value} is out of range")


def _tensor(name, t, like=None):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a tensor")
    if t.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"{name} must be float32 or float64")
    if like is not None:
        if t.dtype != like.dtype:
            raise TypeError(f"{name} has another dtype")
        if t.shape != like.shape or t.device != like.device:
            raise ValueError(f"{name} has another shape or device")


def _finite(name, t):
    if not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} is not finite")


def ddim_timesteps(num_train_steps, num_sampling_steps):
    _count("num_train_steps", num_train_steps)
    _count("num_sampling_steps", num_sampling_steps)
    if num_sampling_steps > num_train_steps:
        raise ValueError("more sampling steps than training steps")
    stride = num_train_steps // num_sampling_steps
    timesteps = torch.flip(torch.arange(0, stride * num_sampling_steps, stride, dtype=torch.int64), dims=(0,))
    prev_timesteps = torch.full_like(timesteps, -1)
    prev_timesteps[:-1] = timesteps[1:]
    return timesteps, prev_timesteps


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    _tensor("x_t", x_t)
    _tensor("eps", eps, x_t)
    if noise is not None:
        _tensor("noise", noise, x_t)
    _number("alpha_bar_t", alpha_bar_t, lambda v: 0 < v < 1)
    _number("alpha_bar_prev", alpha_bar_prev, lambda v: 0 < v <= 1)
    _number("eta", eta, lambda v: 0 <= v <= 1)
    if alpha_bar_prev < alpha_bar_t:
        raise ValueError("alpha_bar_prev must not be below alpha_bar_t")
    if eta > 0 and noise is None:
        raise ValueError("eta > 0 needs noise")
    for name, t in (("x_t", x_t), ("eps", eps), ("noise", noise)):
        if t is not None:
            _finite(name, t)
    a, p = alpha_bar_t, alpha_bar_prev
    signal, noise_level = math.sqrt(a), math.sqrt(1 - a)
    x0 = (x_t - noise_level * eps) / signal
    variance = (1 - p) / (1 - a) * (1 - a / p)
    sigma = eta * math.sqrt(variance)
    keep = 1 - p - sigma * sigma
    out = math.sqrt(p) * x0 + (math.sqrt(keep) if keep > 0 else 0.0) * eps
    return out + sigma * noise if sigma > 0 else out


def classifier_free_guidance(eps_cond, eps_uncond, w):
    _tensor("eps_cond", eps_cond)
    _tensor("eps_uncond", eps_uncond, eps_cond)
    _number("w", w, lambda v: v >= 0)
    _finite("eps_cond", eps_cond)
    _finite("eps_uncond", eps_uncond)
    return eps_cond * (1 + w) - eps_uncond * w
