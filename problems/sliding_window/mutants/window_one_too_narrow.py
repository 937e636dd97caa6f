"""This is what you get when the window keeps only W - 1 keys (i - W + 1 < j <= i): one position too narrow.

Overrides: sliding_window_mask
"""

import torch


def sliding_window_mask(T, window):
    check_length_and_window(T, window)
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    return (j <= i) & (j > i - window + 1)
