"""This is what you get when 1e-12 is added to the norm instead of clamping it: tiny rows come out near unit length.

Overrides: _unit_rows
"""


def _unit_rows(x):
    return x / (x.norm(dim=1, keepdim=True) + NORM_FLOOR)
