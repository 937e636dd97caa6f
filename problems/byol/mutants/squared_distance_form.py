"""This is what you get when the loss is computed as the squared distance of the normalised rows: it equals 2 - 2 cos only for unit rows, so a zero row costs 1 instead of 2.

Overrides: _per_example
"""


def _per_example(p, z):
    return ((p - z) ** 2).sum(dim=1)
