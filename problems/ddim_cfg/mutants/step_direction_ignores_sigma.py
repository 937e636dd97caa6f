"""This is what you get when the direction keeps sqrt(1 - abar_prev) for every eta: with fresh noise on top, the variance is too large.

Overrides: ddim_step
"""


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
    sigma = _sigma(alpha_bar_t, alpha_bar_prev, eta)
    x0 = _predicted_x0(x_t, eps, alpha_bar_t)
    x_prev = math.sqrt(alpha_bar_prev) * x0 + math.sqrt(1 - alpha_bar_prev) * eps
    if sigma > 0:
        x_prev = x_prev + sigma * noise
    return x_prev
