"""This is what you get when the advantages are collected in a Python list and stacked: a rollout of T = 0 steps gives an empty list, and torch.stack raises instead of returning empty tensors.

Overrides: _discounted_sum
"""

import torch


def _discounted_sum(x, decay, tail):
    collected = []
    running = tail
    for t in reversed(range(x.shape[0])):
        running = x[t] + decay[t] * running
        collected.append(running)
    return torch.stack(collected[::-1])
