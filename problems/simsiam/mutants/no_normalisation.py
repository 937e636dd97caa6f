"""This is what you get when the rows are not normalised: a negative dot product instead of a negative cosine.

Overrides: _unit_rows
"""


def _unit_rows(x):
    return x
