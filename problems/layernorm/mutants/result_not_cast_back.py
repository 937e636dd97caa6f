"""The result stays in the float32 compute dtype instead of returning to x's dtype (float16, bfloat16).

Overrides: _affine
"""


def _affine(normalised, weight, bias, dtype):
    if weight is not None:
        normalised = normalised * weight.to(normalised.dtype)
    if bias is not None:
        normalised = normalised + bias.to(normalised.dtype)
    return normalised
