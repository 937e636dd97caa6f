"""This is what you get when the batch is flattened into one long sequence before discounting: the return of an episode's last steps picks up the next episode's rewards.

Source: pytorch/examples pull request #1422 (distributed/rpc/rl/main.py merged every observer's rewards into one
list and ran a single reverse discounted sum over it)
Overrides: _reward_to_go
"""

import torch


def _reward_to_go(rewards, gamma):
    steps = rewards.shape[-1]
    if steps == 0:
        return rewards.clone()
    flat = rewards.reshape(-1)
    running = torch.zeros((), dtype=rewards.dtype)
    returns = []
    for t in reversed(range(flat.shape[0])):
        running = flat[t] + gamma * running
        returns.append(running)
    return torch.stack(returns[::-1]).reshape(rewards.shape)
