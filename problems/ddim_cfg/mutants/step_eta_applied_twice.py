"""This is what you get when the noise is scaled by eta * sigma although sigma already contains eta.

Overrides: ddim_step
"""


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
    sigma = _sigma(alpha_bar_t, alpha_bar_prev, eta)
    x0 = _predicted_x0(x_t, eps, alpha_bar_t)
    direction = math.sqrt(max(1 - alpha_bar_prev - sigma**2, 0.0)) * eps
    x_prev = math.sqrt(alpha_bar_prev) * x0 + direction
    if sigma > 0:
        x_prev = x_prev + eta * sigma * noise
    return x_prev
