"""The lambda-return first, by its own recursion R_t = r_t + gamma (1 - d_t) ((1 - lam) V_{t+1} + lam R_{t+1}),
then A = R - V; computed in float64 and cast back; own validation (same exception types)."""

import math

import torch


_NO_VALUES = object()


def _validate(rewards, values, dones, last_value, gamma, lam):
    floats = [x for x in (rewards, values, last_value) if x is not _NO_VALUES]
    for x in floats + [dones]:
        if not isinstance(x, torch.Tensor):
            raise TypeError("every rollout argument must be a tensor")
    for x in floats:
        if x.dtype not in (torch.float32, torch.float64) or x.dtype != rewards.dtype:
            raise TypeError("rewards, values and last_value must share one float dtype")
    if dones.dtype != torch.bool:
        raise TypeError("dones must be bool")
    if rewards.dim() not in (1, 2) or dones.shape != rewards.shape:
        raise ValueError("bad shapes")
    if values is not _NO_VALUES and values.shape != rewards.shape:
        raise ValueError("bad shapes")
    if last_value.shape != rewards.shape[1:]:
        raise ValueError("bad shapes")
    if any(x.device != rewards.device for x in floats + [dones]):
        raise ValueError("devices differ")
    for x in floats:
        if not torch.isfinite(x.detach()).all():
            raise ValueError("non-finite input")
    for name, f in (("gamma", gamma), ("lam", lam)):
        if isinstance(f, bool) or not isinstance(f, (int, float)):
            raise TypeError(f"{name} must be a number")
        if not (math.isfinite(f) and 0 <= f <= 1):
            raise ValueError(f"{name} must lie in [0, 1]")


def _lambda_returns(r, v, alive, last, gamma, lam):
    out = torch.empty_like(r)
    following_return, following_value = last, last  # past the rollout: R_T = V_T = last_value
    for t in range(r.shape[0] - 1, -1, -1):
        out[t] = r[t] + gamma * alive[t] * ((1 - lam) * following_value + lam * following_return)
        following_return, following_value = out[t], v[t]
    return out


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    _validate(rewards, values, dones, last_value, gamma, lam)
    r, v, last = rewards.detach().double(), values.detach().double(), last_value.detach().double()
    alive = torch.where(dones, 0.0, 1.0).double()
    returns = _lambda_returns(r, v, alive, last, float(gamma), float(lam))
    return (returns - v).to(rewards.dtype), returns.to(rewards.dtype)


def discounted_returns(rewards, dones, last_value, gamma=0.99):
    _validate(rewards, _NO_VALUES, dones, last_value, gamma, 1.0)
    r, last = rewards.detach().double(), last_value.detach().double()
    alive = torch.where(dones, 0.0, 1.0).double()
    return _lambda_returns(r, torch.zeros_like(r), alive, last, float(gamma), 1.0).to(rewards.dtype)
