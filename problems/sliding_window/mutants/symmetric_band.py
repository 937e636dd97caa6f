"""This is what you get when the band looks both ways (|i - j| < W) with no causal cut: queries read future keys.

Overrides: sliding_window_mask
Source: keras-team/keras PR #22814 (sliding_window alone builds a symmetric band |i - j| < sliding_window; causality only comes with use_causal_mask)
"""

import torch


def sliding_window_mask(T, window):
    check_length_and_window(T, window)
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    return (i - j).abs() < window
