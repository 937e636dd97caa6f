"""This is what you get when the mask and padding shapes are not validated: a mismatched key_padding fails inside torch (RuntimeError) or broadcasts silently, instead of raising ValueError.

Overrides: check_mask_and_padding
"""

import torch


def check_mask_and_padding(mask, key_padding):
    for name, t in (("mask", mask), ("key_padding", key_padding)):
        if not isinstance(t, torch.Tensor) or t.dtype != torch.bool:
            raise TypeError(f"{name} must be a bool tensor")
