"""This is what you get when the direction's variance is 1 - abar_prev - eta * variance instead of 1 - abar_prev - sigma^2 = eta^2 * variance.

Overrides: ddim_step
Source: inbarhub/DDPM_inversion issue #12 (pred_sample_direction computed with (1 - alpha_prod_t_prev - eta * variance) ** 0.5)
"""


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
    sigma = _sigma(alpha_bar_t, alpha_bar_prev, eta)
    variance = (1 - alpha_bar_prev) / (1 - alpha_bar_t) * (1 - alpha_bar_t / alpha_bar_prev)
    x0 = _predicted_x0(x_t, eps, alpha_bar_t)
    direction = math.sqrt(max(1 - alpha_bar_prev - eta * variance, 0.0)) * eps
    x_prev = math.sqrt(alpha_bar_prev) * x0 + direction
    if sigma > 0:
        x_prev = x_prev + sigma * noise
    return x_prev
