"""This is what you get when the loss is 1 - cos: half of BYOL's squared distance of unit vectors, 2 - 2 cos.

Overrides: _per_example
"""


def _per_example(p, z):
    return 1 - (p * z).sum(dim=1)
