"""This is what you get when BYOL's 2 - 2 cos is used as D instead of SimSiam's negative cosine.

Overrides: _negative_cosine
"""


def _negative_cosine(p, z):
    return (2 - 2 * (_unit_rows(p) * _unit_rows(z.detach())).sum(dim=1)).mean()
