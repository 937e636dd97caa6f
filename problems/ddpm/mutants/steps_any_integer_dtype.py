"""This is what you get when t of any dtype is accepted (int32, even floats) instead of raising TypeError for anything but int64.

Overrides: check_steps
"""

import torch


def check_steps(t, n, num_steps, device):
    if not isinstance(t, torch.Tensor):
        raise TypeError("t must be a tensor")
    t = t.long()
    if t.shape != (n,):
        raise ValueError(f"t must have shape [N] = ({n},)")
    if n and (int(t.min()) < 0 or int(t.max()) >= num_steps):
        raise ValueError(f"t must be in [0, {num_steps})")
