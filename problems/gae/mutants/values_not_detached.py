"""This is what you get when the values are not detached: the advantages and returns keep a graph into the critic, so a policy loss built on them would also train the value network.

Source: Farama-Foundation/Gymnasium issue #1494 (GAE computed from value_preds with gradients enabled)
Overrides: gae
"""

import torch


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    check_rollout(rewards, values, dones, last_value)
    gamma, lam = check_factor("gamma", gamma), check_factor("lam", lam)
    alive = _alive(dones, rewards.dtype)
    deltas = rewards + gamma * alive * _next_values(values, last_value) - values
    advantages = _discounted_sum(deltas, gamma * lam * alive, torch.zeros_like(last_value))
    return advantages, advantages + values
