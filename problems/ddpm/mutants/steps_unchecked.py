"""This is what you get when t is not checked to lie in [0, T): t = -1 silently reads the last step and t = T fails deep inside indexing.

Overrides: check_steps
"""

import torch


def check_steps(t, n, num_steps, device):
    if not isinstance(t, torch.Tensor):
        raise TypeError("t must be a tensor")
    if t.dtype != torch.int64:
        raise TypeError("t must be int64")
    if t.shape != (n,):
        raise ValueError("t must have shape [N]")
