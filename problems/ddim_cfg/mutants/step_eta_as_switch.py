"""This is what you get when eta only switches the noise on and off: any eta > 0 gets DDPM's full sigma.

Overrides: _sigma
"""


def _sigma(alpha_bar_t, alpha_bar_prev, eta):
    if eta == 0:
        return 0.0
    return math.sqrt((1 - alpha_bar_prev) / (1 - alpha_bar_t) * (1 - alpha_bar_t / alpha_bar_prev))
