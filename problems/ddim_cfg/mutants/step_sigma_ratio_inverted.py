"""This is what you get when sigma uses (1 - abar_t) / (1 - abar_prev), the ratio upside down.

Overrides: _sigma
"""


def _sigma(alpha_bar_t, alpha_bar_prev, eta):
    if eta == 0:
        return 0.0
    return eta * math.sqrt((1 - alpha_bar_t) / max(1 - alpha_bar_prev, 1e-300) * (1 - alpha_bar_t / alpha_bar_prev))
