"""This is what you get when x is validated with (x == inf).any() alone: nan compares unequal to everything, so a nan entry slips through instead of being refused with ValueError.

Overrides: check_logits
"""

import torch

_reference_check_logits = check_logits


def check_logits(x, block_size):
    if isinstance(x, torch.Tensor) and x.dtype in (torch.float32, torch.float64):
        x = torch.nan_to_num(x.detach(), nan=0.0, posinf=float("inf"), neginf=float("-inf"))
    _reference_check_logits(x, block_size)
