"""This is what you get when the loss is SimSiam's negative cosine, -cos, instead of BYOL's 2 - 2 cos.

Overrides: _per_example
"""


def _per_example(p, z):
    return -(p * z).sum(dim=1)
