"""This is what you get when the backward loop starts at T - 2 (`reversed(range(T - 1))`): the last step's advantage stays 0 and last_value never enters.

Source: Farama-Foundation/Gymnasium issue #1494 (the A2C GAE loop `for t in reversed(range(T - 1))`); rgilman33/simple-A2C-PPO issue #5 (the last advantage set to zero)
Overrides: _discounted_sum
"""

import torch


def _discounted_sum(x, decay, tail):
    out = torch.zeros_like(x)
    running = tail
    for t in reversed(range(x.shape[0] - 1)):
        running = x[t] + decay[t] * running
        out[t] = running
    return out
