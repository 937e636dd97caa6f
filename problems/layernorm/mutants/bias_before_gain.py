"""The bias is added before the gain multiplies: (x_hat + bias) * weight instead of x_hat * weight + bias.

Overrides: _affine
"""


def _affine(normalised, weight, bias, dtype):
    if bias is not None:
        normalised = normalised + bias.to(normalised.dtype)
    if weight is not None:
        normalised = normalised * weight.to(normalised.dtype)
    return normalised.to(dtype)
