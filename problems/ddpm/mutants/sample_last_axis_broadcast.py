"""This is what you get when the per-example coefficients [N] are multiplied with x0 directly: they line up with x0's last axis, not with its examples.

Overrides: _per_example
"""


def _per_example(values, t, like):
    return values[t]
