"""This is what you get when only the kept patches are returned and the class token is left out of kept (MAE's own code prepends it afterwards; here it stays in front).

Overrides: random_masking
"""

_reference_random_masking = random_masking


def random_masking(tokens, mask_ratio, noise):
    kept, mask, ids_restore = _reference_random_masking(tokens, mask_ratio, noise)
    return kept[:, 1:].clone(), mask, ids_restore
