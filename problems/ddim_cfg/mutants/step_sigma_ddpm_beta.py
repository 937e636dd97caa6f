"""This is what you get when sigma^2 is eta^2 (1 - abar_t), ignoring abar_prev, instead of eta^2 times the posterior variance of the jump (Eq. 16).

Overrides: _sigma
Source: jsboige/CoursIA pull request #16158 (the first version of its DDIM sampler used eta * sqrt(1 - ab) as the noise scale)
"""


def _sigma(alpha_bar_t, alpha_bar_prev, eta):
    return eta * math.sqrt(1 - alpha_bar_t)
