"""This is what you get when x0_hat subtracts (1 - abar_t) eps instead of sqrt(1 - abar_t) eps.

Overrides: _predicted_x0
"""


def _predicted_x0(x_t, eps, alpha_bar_t):
    return (x_t - (1 - alpha_bar_t) * eps) / math.sqrt(alpha_bar_t)
