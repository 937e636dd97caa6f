"""This is what you get when the done flag cuts the carried advantage but not the bootstrap: the TD error of the step that ended an episode still adds gamma * V of the next state, which belongs to the next episode.

Source: thu-ml/tianshou issue #869 (the TD error `rew + v_s_ * gamma - v_s` with the (1 - end_flag) mask only on the recursion)
Overrides: gae
"""

import torch


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    check_rollout(rewards, values, dones, last_value)
    gamma, lam = check_factor("gamma", gamma), check_factor("lam", lam)
    rewards, values, last_value = rewards.detach(), values.detach(), last_value.detach()
    alive = _alive(dones, rewards.dtype)
    deltas = rewards + gamma * _next_values(values, last_value) - values
    advantages = _discounted_sum(deltas, gamma * lam * alive, torch.zeros_like(last_value))
    return advantages, advantages + values
