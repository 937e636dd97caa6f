"""The normalised value is converted back to x's dtype (float16, bfloat16) before the gain and bias, so it is rounded twice.

Overrides: _affine
"""


def _affine(normalised, weight, bias, dtype):
    normalised = normalised.to(dtype)
    if weight is not None:
        normalised = normalised * weight.to(dtype)
    if bias is not None:
        normalised = normalised + bias.to(dtype)
    return normalised
