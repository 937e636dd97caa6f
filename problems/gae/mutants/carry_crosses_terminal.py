"""This is what you get when the done flag masks the bootstrap but not the recursion: the advantage of the next episode's first step is carried back into the last step of the episode before it.

Source: vietnh1009/Super-mario-bros-PPO-pytorch issue #21 (`gae = gae * opt.gamma * opt.tau` without (1 - done))
Overrides: gae
"""

import torch


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    check_rollout(rewards, values, dones, last_value)
    gamma, lam = check_factor("gamma", gamma), check_factor("lam", lam)
    rewards, values, last_value = rewards.detach(), values.detach(), last_value.detach()
    alive = _alive(dones, rewards.dtype)
    deltas = rewards + gamma * alive * _next_values(values, last_value) - values
    advantages = _discounted_sum(deltas, torch.full_like(deltas, gamma * lam), torch.zeros_like(last_value))
    return advantages, advantages + values
