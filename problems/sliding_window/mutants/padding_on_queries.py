"""This is what you get when the padding removes query rows instead of key columns.

Overrides: combine_with_padding
Source: hyunwoongko/transformer PR #40 (the pad mask built with .unsqueeze(1).unsqueeze(3) lands on the query axis)
"""


def combine_with_padding(mask, key_padding):
    check_mask_and_padding(mask, key_padding)
    if mask.shape[0] != mask.shape[1]:
        return mask.unsqueeze(0) & key_padding.unsqueeze(1)  # shapes only line up on the query axis when square
    return mask.unsqueeze(0) & key_padding.unsqueeze(2)
