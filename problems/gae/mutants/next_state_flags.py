"""This is what you get when step t reads dones[t + 1] (the other convention, where a flag marks the first state of a new episode) while dones[t] here marks the step that ended it: every episode boundary is cut one step late.

Source: hill-a/stable-baselines issue #385 (`nonterminal = 1 - new[step + 1]` fed with flags that mark the last step of an episode); DLR-RM/stable-baselines3 issue #105
Overrides: gae
"""

import torch


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    check_rollout(rewards, values, dones, last_value)
    gamma, lam = check_factor("gamma", gamma), check_factor("lam", lam)
    rewards, values, last_value = rewards.detach(), values.detach(), last_value.detach()
    next_dones = torch.cat([dones[1:], dones[-1:]])  # the flag of the next state; the last step keeps its own
    alive = _alive(next_dones, rewards.dtype)
    deltas = rewards + gamma * alive * _next_values(values, last_value) - values
    advantages = _discounted_sum(deltas, gamma * lam * alive, torch.zeros_like(last_value))
    return advantages, advantages + values
