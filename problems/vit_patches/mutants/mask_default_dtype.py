"""This is what you get when the mask is made with torch.ones(B, N) and no dtype: it is float32 even for float64 tokens, where the contract says tokens' dtype.

Overrides: random_masking
"""

_reference_random_masking = random_masking


def random_masking(tokens, mask_ratio, noise):
    kept, mask, ids_restore = _reference_random_masking(tokens, mask_ratio, noise)
    return kept, mask.to(torch.float32), ids_restore
