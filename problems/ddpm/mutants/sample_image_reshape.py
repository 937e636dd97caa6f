"""This is what you get when the coefficients are always reshaped to [N, 1, 1, 1] (images only): data of any other rank broadcasts to the wrong shape.

Overrides: _per_example
"""


def _per_example(values, t, like):
    return values[t].reshape(-1, 1, 1, 1)
