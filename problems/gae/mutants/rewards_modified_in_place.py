"""This is what you get when the TD errors are computed in place in rewards (rewards.add_(...)): the answer is right, but the caller's rewards are overwritten.

Overrides: gae
"""

import torch


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    check_rollout(rewards, values, dones, last_value)
    gamma, lam = check_factor("gamma", gamma), check_factor("lam", lam)
    rewards, values, last_value = rewards.detach(), values.detach(), last_value.detach()
    alive = _alive(dones, rewards.dtype)
    deltas = rewards.add_(gamma * alive * _next_values(values, last_value)).sub_(values)
    advantages = _discounted_sum(deltas, gamma * lam * alive, torch.zeros_like(last_value))
    return advantages, advantages + values
