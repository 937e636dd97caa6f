"""This is what you get when the class token is counted in the ratio: int((N + 1) * (1 - mask_ratio)) tokens kept with the class token among them, one patch too few.

Source: lightly-ai/lightly issue #1583 ("random_token_mask ... masks a patch too much"), fixed in PR #1585: the class token was included in the sequence length the number of masked tokens was computed from.

Overrides: _len_keep
"""


def _len_keep(length, mask_ratio):
    return max(int((length + 1) * (1 - mask_ratio)) - 1, 0)
