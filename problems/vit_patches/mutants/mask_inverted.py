"""This is what you get when the mask marks the kept patches with 1 and the removed ones with 0; MAE's mask is 1 where a patch was removed (the loss is computed there).

Source: facebookresearch/mae issue #157 ("Question about len_keep at random masking function"), which asks whether mask[:, :len_keep] = 0 should be mask[:, len_keep:] = 0; the answer: 0 is kept, 1 is removed.

Overrides: random_masking
"""

_reference_random_masking = random_masking


def random_masking(tokens, mask_ratio, noise):
    kept, mask, ids_restore = _reference_random_masking(tokens, mask_ratio, noise)
    return kept, 1 - mask, ids_restore
