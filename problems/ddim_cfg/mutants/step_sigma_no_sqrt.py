"""This is what you get when sigma is eta times the posterior variance instead of its square root.

Overrides: _sigma
"""


def _sigma(alpha_bar_t, alpha_bar_prev, eta):
    return eta * ((1 - alpha_bar_prev) / (1 - alpha_bar_t) * (1 - alpha_bar_t / alpha_bar_prev))
