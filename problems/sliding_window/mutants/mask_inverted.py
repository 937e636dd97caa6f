"""This is what you get when the mask marks the forbidden keys (True = masked out) instead of the allowed ones.

Overrides: sliding_window_mask
"""

import torch


def sliding_window_mask(T, window):
    check_length_and_window(T, window)
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    return ~((j <= i) & (j > i - window))
