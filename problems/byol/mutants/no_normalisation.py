"""This is what you get when the rows are not normalised: a squared error of the raw vectors instead of the unit ones.

Overrides: _unit_rows
"""


def _unit_rows(x):
    return x
