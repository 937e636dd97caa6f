"""This is what you get when the cosines are computed in float32 whatever the inputs' dtype (a habit from
mixed-precision training) and the loss cast back: float64 inputs get a loss accurate to only 7 digits.

Overrides: _negative_cosine
"""


def _negative_cosine(p, z):
    cosines = (_unit_rows(p).float() * _unit_rows(z.detach()).float()).sum(dim=1)
    return -cosines.mean().to(p.dtype)
