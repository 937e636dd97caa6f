"""NumPy in float64, columns vectorised across environments, the loop over time written forwards over reversed
arrays; the result converted back to a torch tensor of the input's dtype."""

import numpy as np
import torch

from helpers import check_factor, check_returns_rollout, check_rollout


def _backward_sum(x, decay, tail):
    """out_t = x_t + decay_t out_{t+1}, out_T = tail; arrays [T, M], tail [M]."""
    out = np.zeros_like(x)
    running = tail.copy()
    for i, (x_t, decay_t) in enumerate(zip(x[::-1], decay[::-1])):
        running = x_t + decay_t * running
        out[x.shape[0] - 1 - i] = running
    return out


def _as_2d(t):
    a = t.detach().cpu().double().numpy() if t.dtype != torch.bool else t.detach().cpu().numpy()
    return a.reshape(a.shape[0], int(np.prod(a.shape[1:]))) if a.ndim else a.reshape(1)


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    check_rollout(rewards, values, dones, last_value)
    gamma, lam = check_factor("gamma", gamma), check_factor("lam", lam)
    r, v, d = _as_2d(rewards), _as_2d(values), _as_2d(dones)
    last = last_value.detach().double().reshape(-1).numpy()
    alive = 1.0 - d.astype(np.float64)
    following = np.concatenate([v[1:], last[None]], axis=0)[: v.shape[0]]
    deltas = r + gamma * alive * following - v
    advantages = _backward_sum(deltas, gamma * lam * alive, np.zeros_like(last))
    a = torch.from_numpy(advantages).reshape(rewards.shape).to(rewards.dtype)
    ret = torch.from_numpy(advantages + v).reshape(rewards.shape).to(rewards.dtype)
    return a, ret


def discounted_returns(rewards, dones, last_value, gamma=0.99):
    check_returns_rollout(rewards, dones, last_value)
    gamma = check_factor("gamma", gamma)
    r, d = _as_2d(rewards), _as_2d(dones)
    last = last_value.detach().double().reshape(-1).numpy()
    g = _backward_sum(r, gamma * (1.0 - d.astype(np.float64)), last)
    return torch.from_numpy(g).reshape(rewards.shape).to(rewards.dtype)
