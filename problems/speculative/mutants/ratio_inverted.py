"""This is what you get when the acceptance ratio is q(x)/p(x) instead of p(x)/q(x): tokens the draft over-rates are accepted more often, not less.

Overrides: _accepted
"""


def _accepted(u, p_x, q_x):
    return u * p_x < q_x
