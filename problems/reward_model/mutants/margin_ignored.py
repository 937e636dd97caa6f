"""This is what you get when the margin argument is accepted but never used.

Overrides: _logit
"""


def _logit(r_chosen, r_rejected, margin):
    return r_chosen - r_rejected
