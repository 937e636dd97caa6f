"""This is what you get when the margin is added to the difference instead of subtracted: a pair the labellers
found clearly separated is then asked for less separation, not more.

Overrides: _logit
"""


def _logit(r_chosen, r_rejected, margin):
    z = r_chosen - r_rejected
    if margin is not None:
        z = z + margin
    return z
