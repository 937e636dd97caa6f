"""This is what you get when time is taken to be the first axis ([T, B], as some rollout buffers store it) instead of the last: a batch of episodes is discounted across episodes.

Overrides: _reward_to_go
"""

import torch


def _reward_to_go(rewards, gamma):
    steps = rewards.shape[0]
    if rewards.shape[-1] == 0 or steps == 0:
        return rewards.clone()
    running = torch.zeros_like(rewards[0])
    returns = []
    for t in reversed(range(steps)):
        running = rewards[t] + gamma * running
        returns.append(running)
    return torch.stack(returns[::-1], dim=0)
