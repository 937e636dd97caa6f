"""This is what you get when a 0/1 integer padding mask (a tokenizer's attention_mask) is accepted instead of raising TypeError.

Overrides: combine_with_padding
"""

import torch


def combine_with_padding(mask, key_padding):
    if isinstance(key_padding, torch.Tensor) and key_padding.dtype != torch.bool:
        key_padding = key_padding != 0  # read 1 as a real token, 0 as padding
    check_mask_and_padding(mask, key_padding)
    return mask.unsqueeze(0) & key_padding.unsqueeze(1)
