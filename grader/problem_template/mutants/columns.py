"""This is what you get when each column (dim=0) is divided by its length instead of each row.

Overrides: normalize_rows
"""


def normalize_rows(x):
    # A patch: this file is graded as the reference followed by these lines, so check_matrix is the
    # one the reference imports from helpers.py and only normalize_rows is replaced.
    check_matrix(x)
    return x / x.norm(dim=0, keepdim=True).clamp_min(1e-12)
