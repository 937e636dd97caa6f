"""This is what you get when a step's own reward is discounted too (G_t = sum gamma^(k+1) r_{t+k}).

Overrides: _reward_to_go
"""

import torch


def _reward_to_go(rewards, gamma):
    steps = rewards.shape[-1]
    if steps == 0:
        return rewards.clone()
    running = torch.zeros_like(rewards[..., 0])
    returns = []
    for t in reversed(range(steps)):
        running = gamma * (rewards[..., t] + running)
        returns.append(running)
    return torch.stack(returns[::-1], dim=-1)
