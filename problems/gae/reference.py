"""Reference solution for the GAE problem (Schulman et al., 2016): advantages and lambda-returns of a rollout."""

import torch

from helpers import check_factor, check_returns_rollout, check_rollout


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    """(advantages, returns), both [T] or [T, N] in rewards' dtype, detached; returns = advantages + values."""
    check_rollout(rewards, values, dones, last_value)
    gamma, lam = check_factor("gamma", gamma), check_factor("lam", lam)
    rewards, values, last_value = rewards.detach(), values.detach(), last_value.detach()
    alive = _alive(dones, rewards.dtype)  # [T, ...] 1 where the episode goes on after step t, 0 where it ended
    next_values = _next_values(values, last_value)  # [T, ...] V(s_{t+1}); the last row is last_value
    deltas = rewards + gamma * alive * next_values - values  # TD errors; no bootstrap out of a terminal state
    advantages = _discounted_sum(deltas, gamma * lam * alive, torch.zeros_like(last_value))
    return advantages, advantages + values


def discounted_returns(rewards, dones, last_value, gamma=0.99):
    """G_t = r_t + gamma (1 - done_t) G_{t+1}, with G_T = last_value: [T] or [T, N] in rewards' dtype, detached."""
    check_returns_rollout(rewards, dones, last_value)
    gamma = check_factor("gamma", gamma)
    rewards, last_value = rewards.detach(), last_value.detach()
    return _discounted_sum(rewards, gamma * _alive(dones, rewards.dtype), last_value)


def _alive(dones, dtype):
    """1 - done as a float mask (a bool tensor cannot be subtracted from 1)."""
    return (~dones).to(dtype)


def _next_values(values, last_value):
    """V(s_{t+1}) for every step: values shifted one step back in time, last_value appended."""
    return torch.cat([values[1:], last_value.unsqueeze(0)])[: values.shape[0]]  # [:T] keeps T = 0 empty


def _discounted_sum(x, decay, tail):
    """out_t = x_t + decay_t * out_{t+1}, out_T = tail, walking backwards in time."""
    out = torch.empty_like(x)
    running = tail
    for t in reversed(range(x.shape[0])):
        running = x[t] + decay[t] * running
        out[t] = running
    return out
