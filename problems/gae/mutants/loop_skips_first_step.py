"""This is what you get when the backward loop stops before step 0 (`range(T - 1, 0, -1)`): the first step's advantage is never computed and stays 0.

Overrides: _discounted_sum
"""

import torch


def _discounted_sum(x, decay, tail):
    out = torch.zeros_like(x)
    running = tail
    for t in range(x.shape[0] - 1, 0, -1):
        running = x[t] + decay[t] * running
        out[t] = running
    return out
