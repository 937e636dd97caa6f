"""This is what you get when acceptance tests u < p(x) / q(x) with Python floats, an infinite ratio standing in for q(x) = 0, instead of comparing u * q(x) < p(x): a token both models give probability 0 is accepted, and a quotient that rounds down onto u rejects a draft the product accepts.

Overrides: _accepted
"""


def _accepted(u, p_x, q_x):
    return u < (p_x / q_x if q_x > 0 else float("inf"))
