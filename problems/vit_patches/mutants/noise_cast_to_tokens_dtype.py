"""This is what you get when the noise is cast to the tokens' dtype before sorting: float64 noise values that differ by less than float32 can resolve become ties for float32 tokens, and the kept patches change.

Overrides: random_masking
"""

_reference_random_masking = random_masking


def random_masking(tokens, mask_ratio, noise):
    if isinstance(tokens, torch.Tensor) and isinstance(noise, torch.Tensor) and tokens.is_floating_point():
        noise = noise.to(tokens.dtype)
    return _reference_random_masking(tokens, mask_ratio, noise)
