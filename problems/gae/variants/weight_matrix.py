"""No loop over time: A = W delta with W[t, k] = prod_{t <= j < k} gamma lam (1 - done_j) for k >= t, built from an
exclusive cumulative product along a [T, T] matrix (fine for the rollout lengths of the checks)."""

import torch

from helpers import check_factor, check_returns_rollout, check_rollout


def _weights(decay):
    """decay [T, ...] -> W [..., T, T]: W[t, k] = prod_{t <= j < k} decay_j for k >= t, else 0."""
    steps = decay.shape[0]
    d = decay.movedim(0, -1)  # [..., T]
    rows = torch.arange(steps)
    at_or_after = rows[None, :] >= rows[:, None]  # [T, T]: j >= t
    factors = torch.where(at_or_after, d.unsqueeze(-2), torch.ones_like(d).unsqueeze(-2))  # [..., t, j]
    inclusive = torch.cumprod(factors, dim=-1)
    exclusive = torch.cat([torch.ones_like(inclusive[..., :1]), inclusive[..., :-1]], dim=-1)  # prod over j < k
    return torch.where(at_or_after, exclusive, torch.zeros_like(exclusive))


def _apply(weights, x):
    """sum_k W[t, k] x_k, with x [T, ...] -> [T, ...]."""
    return (weights @ x.movedim(0, -1).unsqueeze(-1)).squeeze(-1).movedim(-1, 0)


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    check_rollout(rewards, values, dones, last_value)
    gamma, lam = check_factor("gamma", gamma), check_factor("lam", lam)
    r, v, last = rewards.detach(), values.detach(), last_value.detach()
    alive = torch.logical_not(dones).to(r.dtype)
    following = torch.cat([v[1:], last[None]], dim=0)[: v.shape[0]]
    deltas = r + gamma * alive * following - v
    advantages = _apply(_weights(gamma * lam * alive), deltas)
    return advantages, advantages + v


def discounted_returns(rewards, dones, last_value, gamma=0.99):
    check_returns_rollout(rewards, dones, last_value)
    gamma = check_factor("gamma", gamma)
    r, last = rewards.detach(), last_value.detach()
    alive = torch.logical_not(dones).to(r.dtype)
    tail = torch.zeros_like(r)
    if r.shape[0]:
        tail[-1] = gamma * alive[-1] * last  # the bootstrap enters as an extra reward of the last step
    return _apply(_weights(gamma * alive), r + tail)
