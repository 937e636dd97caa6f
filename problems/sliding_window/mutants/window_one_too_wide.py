"""This is what you get when the window reaches back W positions (i - W <= j <= i): W + 1 keys, one too many.

Overrides: sliding_window_mask
Source: huggingface/transformers issue #39408 (flash-attention window_size=(sliding_window, sliding_window) under a causal mask attends sliding_window + 1 keys)
"""

import torch


def sliding_window_mask(T, window):
    check_length_and_window(T, window)
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    return (j <= i) & (j >= i - window)
