"""This is what you get when the discount is accumulated forwards in time (G_t = r_t + gamma G_{t-1}): each step sums the rewards before it instead of after it.

Overrides: _reward_to_go
"""

import torch


def _reward_to_go(rewards, gamma):
    steps = rewards.shape[-1]
    if steps == 0:
        return rewards.clone()
    running = torch.zeros_like(rewards[..., 0])
    returns = []
    for t in range(steps):
        running = rewards[..., t] + gamma * running
        returns.append(running)
    return torch.stack(returns, dim=-1)
