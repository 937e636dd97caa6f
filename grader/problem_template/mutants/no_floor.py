"""This is what you get when each row is divided by its norm itself: a zero row becomes 0 / 0 = nan.

Overrides: normalize_rows
Source: cite here the public code or issue where this bug was seen, e.g. owner/repo issue #123
"""


def normalize_rows(x):
    check_matrix(x)
    return x / x.norm(dim=1, keepdim=True)
