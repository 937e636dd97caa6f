"""Loops over episodes and steps in float64, cast back to the inputs' dtype at the end; own validation."""

import math

import torch


def _tensor(name, t, like=None):
    if not isinstance(t, torch.Tensor) or t.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"{name} must be a float32 or float64 tensor")
    if like is not None and t.dtype != like.dtype:
        raise TypeError(f"{name} must have the dtype of the first tensor")
    if like is not None and t.device != like.device:
        raise ValueError(f"{name} must be on the device of the first tensor")


def _finite(name, t):
    if t.device.type == "meta" or not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} must be finite, on a real device")


def _unit(name, value):
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number")
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise ValueError(f"{name} must be in [0, 1]")


def discounted_returns(rewards, gamma):
    if not isinstance(rewards, torch.Tensor) or rewards.dtype not in (torch.float32, torch.float64):
        raise TypeError("rewards must be a float32 or float64 tensor")
    if rewards.dim() < 1:
        raise ValueError("rewards needs a time axis")
    _finite("rewards", rewards)
    _unit("gamma", gamma)
    steps = rewards.shape[-1]
    if steps == 0:
        return rewards.clone()
    episodes = rewards.to(torch.float64).reshape(-1, steps)
    rows = []
    for e in range(episodes.shape[0]):
        out = [None] * steps
        running = torch.zeros((), dtype=torch.float64)
        for t in range(steps - 1, -1, -1):
            running = episodes[e, t] + gamma * running
            out[t] = running
        rows.append(torch.stack(out))
    result = torch.stack(rows) if rows else episodes.clone()
    return result.reshape(rewards.shape).to(rewards.dtype)


def reinforce_loss(log_probs, returns, baseline=None):
    _tensor("log_probs", log_probs)
    named = [("returns", returns)] + ([] if baseline is None else [("baseline", baseline)])
    for name, t in named:
        _tensor(name, t, like=log_probs)
    for name, t in named:
        if t.shape != log_probs.shape:
            raise ValueError(f"{name} must have log_probs' shape")
    for name, t in [("log_probs", log_probs), *named]:
        _finite(name, t)
    lp = log_probs.to(torch.float64).reshape(-1)
    g = returns.detach().to(torch.float64).reshape(-1)
    b = None if baseline is None else baseline.detach().to(torch.float64).reshape(-1)
    total = torch.zeros((), dtype=torch.float64)
    for i in range(lp.shape[0]):
        advantage = g[i] if b is None else g[i] - b[i]
        total = total + lp[i] * advantage
    if lp.shape[0] == 0:
        total = total + lp.sum()  # keeps log_probs in the graph
    return (-total / max(lp.shape[0], 1)).to(log_probs.dtype)


def update_baseline(baseline, returns, momentum):
    _tensor("baseline", baseline)
    _tensor("returns", returns, like=baseline)
    if baseline.dim() != 0:
        raise ValueError("baseline must be 0-d")
    _finite("baseline", baseline)
    _finite("returns", returns)
    _unit("momentum", momentum)
    values = returns.detach().to(torch.float64).reshape(-1).tolist()
    old = float(baseline.detach())
    if not values:
        return torch.tensor(old, dtype=baseline.dtype)
    return torch.tensor(momentum * old + (1 - momentum) * math.fsum(values) / len(values), dtype=baseline.dtype)
