"""This is what you get when sigma * noise is always added: at eta = 0 with noise None (the default) the step fails.

Overrides: ddim_step
"""


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
    sigma = _sigma(alpha_bar_t, alpha_bar_prev, eta)
    x0 = _predicted_x0(x_t, eps, alpha_bar_t)
    direction = math.sqrt(max(1 - alpha_bar_prev - sigma**2, 0.0)) * eps
    return math.sqrt(alpha_bar_prev) * x0 + direction + sigma * noise
