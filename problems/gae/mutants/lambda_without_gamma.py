"""This is what you get when the recursion decays by lam alone instead of gamma * lam: later TD errors are weighted lam^l instead of (gamma lam)^l.

Overrides: gae
"""

import torch


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    check_rollout(rewards, values, dones, last_value)
    gamma, lam = check_factor("gamma", gamma), check_factor("lam", lam)
    rewards, values, last_value = rewards.detach(), values.detach(), last_value.detach()
    alive = _alive(dones, rewards.dtype)
    deltas = rewards + gamma * alive * _next_values(values, last_value) - values
    advantages = _discounted_sum(deltas, lam * alive, torch.zeros_like(last_value))
    return advantages, advantages + values
