"""This is what you get when the rows are not normalised: raw dot products take the place of cosines.

Overrides: _unit_rows
"""


def _unit_rows(z):
    return z
