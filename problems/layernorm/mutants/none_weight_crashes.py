"""weight=None is not handled: the function multiplies by it anyway and fails.

Overrides: _affine
"""


def _affine(normalised, weight, bias, dtype):
    normalised = normalised * weight.to(normalised.dtype)
    if bias is not None:
        normalised = normalised + bias.to(normalised.dtype)
    return normalised.to(dtype)
