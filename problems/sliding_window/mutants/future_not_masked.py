"""This is what you get when only the lower edge of the window is applied (j > i - W) and the future is not cut.

Overrides: sliding_window_mask
"""

import torch


def sliding_window_mask(T, window):
    check_length_and_window(T, window)
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    return j > i - window
