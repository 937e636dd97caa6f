"""This is what you get when key_padding is read as True = padding (nn.MultiheadAttention's key_padding_mask), not True = real token.

Overrides: combine_with_padding
Source: pytorch/pytorch PR #39321 (in nn.MultiheadAttention's key_padding_mask, True means the key is ignored)
"""


def combine_with_padding(mask, key_padding):
    check_mask_and_padding(mask, key_padding)
    return mask.unsqueeze(0) & ~key_padding.unsqueeze(1)
